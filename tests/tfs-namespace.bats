#!/usr/bin/env bats
# The namespace of a TangramFS mount (libtfs-posix(7)): directories and
# links, metadata (chmod, chown, times), rename, on a real tfs-server with
# real programs (coreutils, python3, a small C program).  The mount's
# namespace is the backing directory plus the files the server holds:
# nothing a mount path names is ever made on the real path /tfs-test,
# which must not exist.  tfs-namespace-ucx.bats is a copy that runs on UCX.

bats_require_minimum_version 1.5.0

load tfs/common

setup_file() {
	export B=$BATS_FILE_TMPDIR/bin
	mkdir -p "$B"
	gcc -std=gnu11 -O1 -g -Wall -Wextra -Werror -o "$B/call" "$TG_TOP/tests/tfs/call.c" \
		"$TG_TOP/lib/libtfs.a" -ldl -lpthread -Wl,-rpath,"$TG_TOP/lib"
	gcc -std=gnu11 -O1 -g -Wall -Wextra -Werror -o "$B/ns" "$TG_TOP/tests/tfs/ns.c"
	gcc -std=gnu11 -O1 -g -Wall -Wextra -Werror -o "$B/errno" "$TG_TOP/tests/tfs/errno.c"
	export UCX_TLS=${UCX_TLS:-sm,self}
	export MPIR_CVAR_POLLS_BEFORE_YIELD=${MPIR_CVAR_POLLS_BEFORE_YIELD:-1}
	export PRELOAD=$TG_TOP/lib/libtfs-posix.so
	pick_transport ucx_probe
}


start() {
	tfs-server -a "$DEFADDR" -d srv 2>srv.log 3>&- &
	SERVER_PID=$!
	for _ in $(seq 100); do grep -qs "^pid $SERVER_PID\$" srv/server && break; sleep 0.05; done
	grep -qs "^pid $SERVER_PID\$" srv/server
}

setup() {
	[ -z "${TFS_SKIP:-}" ] || skip "$TFS_SKIP"
	[ ! -e /tfs-test ] || skip "/tfs-test exists on this machine"
	cd "$BATS_TEST_TMPDIR"
	mkdir -p bb pfs
	export TFS_SERVER=$PWD/srv/server TFS_BB_DIR=$PWD/bb TFS_PFS_DIR=$PWD/pfs
	export TFS_MOUNT=/tfs-test TFS_NODE=1 TFS_TIMEOUT=3
	SERVER_PID=
}

# on COMMAND...: COMMAND with libtfs-posix.so preloaded, under timeout
on() {
	timeout 30 env LD_PRELOAD="$PRELOAD" "$@"
}

# start_beside_nobody: a server in a directory of its own ($d) that user
# nobody may search (bats's own is 0700), and nobody's own copy of the
# server file and burst buffer under nb/
start_beside_nobody() {
	d=$(mktemp -d /tmp/tfs-ns.XXXXXX)
	chmod 755 "$d"
	cd "$d"
	mkdir bb pfs
	export TFS_SERVER=$d/srv/server TFS_BB_DIR=$d/bb TFS_PFS_DIR=$d/pfs
	start
	mkdir -p nb/bb
	cp srv/server nb/server
	chown -R nobody nb
	chmod 600 nb/server
}

# nothing_real: the real path the mount names was never made
nothing_real() {
	[ ! -e /tfs-test ] && [ ! -L /tfs-test ]
}

@test "mkdir, mkdir -p, ln -s, rmdir, rm -r on the mount act on the backing directory, never on the real path" {
	start
	run -0 on mkdir /tfs-test/d
	[ -d pfs/d ]
	run -0 on mkdir -p /tfs-test/a/b/c
	[ -d pfs/a/b/c ]
	run -0 on ln -s target /tfs-test/a/l
	[ "$(readlink pfs/a/l)" = target ]
	run -0 on stat -c '%F %N' /tfs-test/a/l
	[ "$output" = "symbolic link '/tfs-test/a/l' -> 'target'" ]
	run -0 on sh -c 'cd /tfs-test/a/b && pwd && mkdir rel && echo x > rel/f && cat rel/f'
	[ "${lines[0]}" = /tfs-test/a/b ]
	[ "${lines[1]}" = x ]
	[ -d pfs/a/b/rel ]
	run -0 on rmdir /tfs-test/d
	[ ! -e pfs/d ]
	run -0 on rm -r /tfs-test/a/b/c
	[ ! -e pfs/a/b/c ]
	nothing_real
	# the mount itself exists; a name the server holds is taken
	run -1 on mkdir /tfs-test
	[[ "$output" == *"File exists"* ]]
	run -1 on sh -c 'echo data > /tfs-test/onlybb; mkdir /tfs-test/onlybb' 3>&-
	[[ "$output" == *"File exists"* ]]
	[ ! -e pfs/onlybb ] || [ -f pfs/onlybb ]
	run -1 on ln -s x /tfs-test/onlybb
	[[ "$output" == *"File exists"* ]]
	run -1 on rmdir /tfs-test
	[[ "$output" == *"busy"* ]]
	run -1 on rmdir /tfs-test/nothere
	[[ "$output" == *"No such file"* ]]
	run -1 on mkdir /tfs-test/nothere/x
	[[ "$output" == *"No such file"* ]]
	nothing_real
}

@test "hard links on the mount are refused (EPERM), across its boundary EXDEV; mknod of a FIFO EPERM, of a file makes it" {
	start
	run -0 on sh -c 'echo data > /tfs-test/t'
	run -1 on ln /tfs-test/t /tfs-test/hl
	[[ "$output" == *"Operation not permitted"* ]]
	run -1 on ln /tfs-test/nothere /tfs-test/hl
	[[ "$output" == *"No such file"* ]]
	echo x > outside
	run -1 on ln outside /tfs-test/hl2
	[[ "$output" == *"Invalid cross-device link"* ]]
	run -1 on ln /tfs-test/t here
	[[ "$output" == *"Invalid cross-device link"* ]]
	run -1 on mkfifo /tfs-test/fifo
	[[ "$output" == *"Operation not permitted"* ]]
	run -0 on "$B/ns" mknod /tfs-test/m
	run -0 on cat /tfs-test/t
	[ "$output" = data ]
	[ ! -e pfs/hl ] && [ ! -e pfs/fifo ] && [ ! -e pfs/hl2 ]
	nothing_real
}

@test "touch of a new and of an existing file exits 0 and sets the times; chmod and fchmod change the mode every later open and stage-out see" {
	start
	run -0 on touch /tfs-test/t
	run -0 on touch /tfs-test/t
	run -0 on touch -d @1000000000 /tfs-test/t
	run -0 on stat -c %Y /tfs-test/t
	[ "$output" = 1000000000 ]
	run -0 on "$B/ns" utime-fd /tfs-test/t 1100000000
	run -0 on stat -c %Y /tfs-test/t
	[ "$output" = 1100000000 ]
	# a file only in a live writer's burst buffer: another process's
	# chmod is what a third process's stat and stage-out give
	mkfifo go
	on sh -c 'exec 3> /tfs-test/h; echo secret >&3; read -r x < go; exec 3>&-' 3>&- &
	local w=$!
	for _ in $(seq 100); do on test -e /tfs-test/h && break; sleep 0.05; done
	run -0 on chmod 600 /tfs-test/h
	run -0 on stat -c %a /tfs-test/h
	[ "$output" = 600 ]
	run -0 on "$B/ns" chmod-fd /tfs-test/h 640
	run -0 on stat -c %a /tfs-test/h
	[ "$output" = 640 ]
	echo > go
	wait "$w"
	run -0 on cat /tfs-test/h
	[ "$output" = secret ]
	run -1 on chmod 600 /tfs-test/nothere
	[[ "$output" == *"No such file"* ]]
	tfs-server --stop srv
	[ "$(stat -c %a pfs/h)" = 640 ]
	[ "$(cat pfs/h)" = secret ]
	nothing_real
}

@test "times set on a file still only in burst buffers (touch -d, cp -a, tar x) are what stat shows and what stage-out keeps; a write after them makes the mtime new" {
	start
	mkdir src
	echo one > src/a
	echo two > src/b
	touch -d @1000000000 src/a
	touch -d @1100000000 src/b
	tar -C src -cf t.tar a b
	# one shell holds f and late in its burst buffer; cp and tar stage
	# theirs out as they exit, within the job
	run -0 on bash -c '
		echo data > /tfs-test/f
		touch -d @1200000000 /tfs-test/f
		cp -a src /tfs-test/cpa
		mkdir /tfs-test/tx && tar -C /tfs-test/tx -xf t.tar
		echo w > /tfs-test/late
		touch -d @1300000000 /tfs-test/late
		echo more >> /tfs-test/late
		stat -c %Y /tfs-test/f /tfs-test/cpa/a /tfs-test/cpa/b /tfs-test/tx/a /tfs-test/tx/b'
	[ "${lines[*]}" = "1200000000 1000000000 1100000000 1000000000 1100000000" ]
	tfs-server --stop srv
	run -0 stat -c %Y pfs/f pfs/cpa/a pfs/cpa/b pfs/tx/a pfs/tx/b
	[ "${lines[*]}" = "1200000000 1000000000 1100000000 1000000000 1100000000" ]
	[ "$(cat pfs/f pfs/cpa/a pfs/tx/b pfs/late)" = "$(printf 'data\none\ntwo\nw\nmore')" ]
	[ "$(stat -c %Y pfs/late)" -gt 1300000000 ]
	nothing_real
}

@test "chmod on the mount: the owner's bits are checked at open as the kernel does; a chmod lets the owner read again" {
	command -v setpriv >/dev/null && [ "$(id -u)" = 0 ] || skip "needs root and setpriv"
	local d
	d=$(mktemp -d /tmp/tfs-ns.XXXXXX)
	chmod 755 "$d"
	mkdir "$d/bb" "$d/pfs"
	chown -R nobody "$d"
	cd "$d"
	run -0 setpriv --reuid=nobody --regid=nogroup --clear-groups env -u LD_PRELOAD \
		PATH="$PATH" bash -c 'tfs-server -a "$DEFADDR" -d srv > /dev/null 2> srv.log 3>&- & for _ in $(seq 100); do [ -s srv/server ] && break; sleep 0.05; done; [ -s srv/server ]'
	export TFS_SERVER=$d/srv/server TFS_BB_DIR=$d/bb TFS_PFS_DIR=$d/pfs
	# nobody's file, only in its burst buffer while the writer lives
	mkfifo go
	chown nobody go
	setpriv --reuid=nobody --regid=nogroup --clear-groups env LD_PRELOAD="$PRELOAD" \
		sh -c 'exec 3> /tfs-test/f; echo data >&3; read -r x < go; exec 3>&-' 3>&- &
	local w=$!
	for _ in $(seq 100); do on test -e /tfs-test/f && break; sleep 0.05; done
	run -1 setpriv --reuid=nobody --regid=nogroup --clear-groups env LD_PRELOAD="$PRELOAD" \
		sh -c 'chmod 200 /tfs-test/f && cat /tfs-test/f'
	[[ "$output" == *"Permission denied"* ]]
	run -0 setpriv --reuid=nobody --regid=nogroup --clear-groups env LD_PRELOAD="$PRELOAD" \
		sh -c 'chmod 600 /tfs-test/f && cat /tfs-test/f'
	[ "$output" = data ]
	echo > go
	wait "$w"
	setpriv --reuid=nobody --regid=nogroup --clear-groups tfs-server --stop srv
	[ "$(stat -c %a pfs/f)" = 600 ]
	cd /
	rm -rf "$d"
}

@test "another user on the mount: the others' bits at open, the directory's write and search bits to make, remove or rename a name, while the owner still buffers the files" {
	command -v setpriv >/dev/null && [ "$(id -u)" = 0 ] || skip "needs root and setpriv"
	# (UCX's shared memory: another user's client cannot attach the
	# root server's segments, shmat EACCES, and is refused)
	[ "${TFS_TRANSPORT:-}" != ucx ] || skip "another user's client over UCX shared memory"
	local d
	start_beside_nobody
	chmod 755 . pfs
	# root's shell makes the files and keeps them buffered meanwhile
	mkfifo go
	on bash -c 'echo secret > /tfs-test/s600; chmod 600 /tfs-test/s600
		echo x > /tfs-test/w666; chmod 666 /tfs-test/w666
		echo pub > /tfs-test/p644; echo pub > /tfs-test/r644
		mkdir /tfs-test/d700; chmod 700 /tfs-test/d700; echo in > /tfs-test/d700/f
		echo ready > ready; read -r x < go' 3>&- &
	local w=$!
	for _ in $(seq 200); do [ -s ready ] && break; sleep 0.05; done
	nb() {
		setpriv --reuid=nobody --regid=nogroup --clear-groups env LD_PRELOAD="$PRELOAD" \
			TFS_SERVER="$PWD/nb/server" TFS_BB_DIR="$PWD/nb/bb" timeout 30 "$@"
	}
	# (before: every one of these but the append to w666 succeeded)
	run -1 nb cat /tfs-test/s600
	[[ $output == *"Permission denied"* ]]
	run -0 nb sh -c 'echo y >> /tfs-test/w666'
	run -2 nb sh -c 'echo y >> /tfs-test/p644'
	[[ $output == *"Permission denied"* ]]
	run -1 nb cat /tfs-test/d700/f
	[[ $output == *"Permission denied"* ]]
	run -2 nb sh -c 'echo n > /tfs-test/new'
	[[ $output == *"Permission denied"* ]]
	run -1 nb rm -f /tfs-test/r644
	[[ $output == *"Permission denied"* ]]
	run -1 nb mv /tfs-test/p644 /tfs-test/p644x
	[[ $output == *"Permission denied"* ]]
	echo > go
	wait "$w"
	run -0 tfs-server --stop srv
	[ "$(cat pfs/s600)" = secret ]
	[ "$(cat pfs/r644)" = pub ]
	[ "$(cat pfs/p644)" = pub ]
	[ ! -e pfs/new ]
	[ ! -e pfs/p644x ]
	nothing_real
	cd /
	rm -rf "$d"
}

# truncate(2) by path was not taken (PnetCDF's NF_CLOBBER create calls
# it): it returned ENOENT and the file kept its bytes; and the process that
# wrote a file saw its old size in stat and fstat after another process
# truncated it (its own ranges still reached there).
@test "truncate(2) of a path on the mount; the writer's stat and fstat see another process's truncate" {
	start
	run -0 on python3 -c '
import os, subprocess, sys
p = "/tfs-test/t"
with open(p, "wb") as f:
    f.write(b"x" * 100)
subprocess.run([sys.executable, "-c", "import os; os.truncate(\"/tfs-test/t\", 10)"], check=True)
fd = os.open(p, os.O_RDONLY)
print(os.stat(p).st_size, os.fstat(fd).st_size, len(os.read(fd, 200)))
os.close(fd)
os.truncate(p, 5)
print(os.stat(p).st_size)
try:
    os.truncate("/tfs-test/none", 1)
except OSError as e:
    print(e.strerror)
os.mkdir("/tfs-test/dir")
try:
    os.truncate("/tfs-test/dir", 1)
except OSError as e:
    print(e.strerror)'
	[ "${lines[0]}" = "10 10 10" ]
	[ "${lines[1]}" = 5 ]
	[ "${lines[2]}" = "No such file or directory" ]
	[ "${lines[3]}" = "Is a directory" ]
	tfs-server --stop srv
	[ "$(cat pfs/t)" = xxxxx ]
	nothing_real
}

# glibc makes the system calls of these itself, past the wrappers: they
# acted on the real path /tfs-test (ENOENT), so Fortran's CLOSE with
# STATUS='DELETE' failed (Quantum ESPRESSO stopped), OpenFOAM's
# reconstructPar crashed on realpath's NULL, and sed -i could not make its
# new file.  And a file unlinked while open came back, written after.
@test "remove(3), realpath(3), mkstemp(3), mkdtemp(3), scandir(3) and sed -i on the mount; a file unlinked while open stays unlinked, written after" {
	start
	mkdir pfs/d
	echo y > pfs/d/a
	run -0 on "$B/ns" remove /tfs-test/d/a
	[ ! -e pfs/d/a ]
	run -0 on "$B/ns" realpath /tfs-test/d/../d/.
	[ "$output" = /tfs-test/d ]
	run -1 on "$B/ns" realpath /tfs-test/d/none
	[ "$output" = "No such file or directory" ]
	run -0 on "$B/ns" mkstemp /tfs-test/d/tXXXXXX
	local t=${output#/tfs-test/d/}
	[[ "$t" =~ ^t[A-Za-z0-9]{6}$ ]]
	run -0 on "$B/ns" mkdtemp /tfs-test/d/dXXXXXX
	local dd=${output#/tfs-test/d/}
	[ -d "pfs/d/$dd" ]
	[ "$(stat -c %a "pfs/d/$dd")" = 700 ]
	run -1 on "$B/ns" mkstemp /tfs-test/d/noXs
	[ "$output" = "Invalid argument" ]
	run -0 on "$B/ns" scandir /tfs-test/d
	[ "$output" = "$(printf '%s\n' . .. "$dd" "$t" | LC_ALL=C sort)" ]
	echo a > pfs/d/s
	run -0 on sed -i s/a/b/ /tfs-test/d/s
	run -0 on "$B/ns" remove /tfs-test/d/"$dd"
	for m in session commit posix; do
		run -0 env TFS_CONSISTENCY=$m LD_PRELOAD="$PRELOAD" "$B/ns" unlink-open /tfs-test/u-$m
		[ "$output" = after ]
		run -2 on ls /tfs-test/u-$m
	done
	tfs-server --stop srv
	[ "$(cat pfs/d/s)" = b ]
	[ "$(cat "pfs/d/$t")" = t ]
	[ "$(stat -c %a "pfs/d/$t")" = 600 ]
	[ ! -e "pfs/d/$dd" ]
	[ ! -e pfs/u-session ] && [ ! -e pfs/u-commit ] && [ ! -e pfs/u-posix ]
	nothing_real
}

@test "a listing on the mount shows the files still only in burst buffers with the backing directory's entries, each once, not those removed or renamed away (ls, python, make, cp -r, tar c)" {
	start
	mkdir -p pfs/d/sub out
	echo other > pfs/d/other
	# one shell writes the files, so they stay in its burst buffer while
	# the programs it starts list the directory
	run -0 --separate-stderr on bash -c '
		for f in a b c gone old; do echo "$f" > /tfs-test/d/$f; done
		echo top > /tfs-test/top
		printf "all:\n\t@echo made\n" > /tfs-test/d/Makefile
		echo over > /tfs-test/d/other
		rm /tfs-test/d/gone
		mv /tfs-test/d/old /tfs-test/d/new
		ls -A /tfs-test/d
		ls /tfs-test
		make -s -C /tfs-test/d
		python3 -c "import os, glob; print(sorted(os.listdir(\"/tfs-test/d\")), len(glob.glob(\"/tfs-test/d/*\")))"
		cp -r /tfs-test/d out/cp
		tar -C /tfs-test -cf out/d.tar d'
	[ "${#lines[@]}" = 11 ]
	[ "${lines[*]:0:7}" = "Makefile a b c new other sub" ]
	[ "${lines[*]:7:2}" = "d top" ]
	[ "${lines[9]}" = made ]
	[ "${lines[10]}" = "['Makefile', 'a', 'b', 'c', 'new', 'other', 'sub'] 7" ]
	[ -z "$stderr" ]
	[ "$(cat out/cp/a out/cp/new out/cp/other)" = "$(printf 'a\nold\nover')" ]
	[ "$(ls -A out/cp | tr '\n' ' ')" = "Makefile a b c new other sub " ]
	run -0 tar -tf out/d.tar
	[ "$(printf '%s\n' "${lines[@]}" | LC_ALL=C sort | tr '\n' ' ')" = \
		"d/ d/Makefile d/a d/b d/c d/new d/other d/sub/ " ]
	tfs-server --stop srv
	nothing_real
}

@test "a listing of a directory of 3000 files only in burst buffers lists every one with one LIST request; readdir_r and rewinddir list them once more" {
	start
	mkdir pfs/many
	touch pfs/many/f0000
	run -0 --separate-stderr env TFS_STATS=1 LD_PRELOAD="$PRELOAD" timeout 60 python3 -c '
import os
for i in range(3000):
    with open("/tfs-test/many/f%04d" % i, "w") as f:
        f.write("x")
names = os.listdir("/tfs-test/many")
print(len(names), len(set(names)))'
	[ "$output" = "3000 3000" ]
	[[ "$stderr" == *" LIST=1/"* ]]
	run -0 on sh -c 'echo x > /tfs-test/many/g; "$0" readdir-twice /tfs-test/many' "$B/ns"
	[ "$output" = "3001 3001" ]
}

@test "fileno of a stream on the mount is its descriptor, which fstat takes (it was -1: git and ld fstat it)" {
	start
	on sh -c 'printf hello > /tfs-test/s'
	run -0 on python3 -c '
import ctypes, os
libc = ctypes.CDLL(None)
libc.fopen.restype = ctypes.c_void_p
f = ctypes.c_void_p(libc.fopen(b"/tfs-test/s", b"r"))
fd = libc.fileno(f)
print(fd >= 0, os.fstat(fd).st_size)
libc.fclose(f)'
	[ "$output" = "True 5" ]
	nothing_real
}

@test "mv, python os.replace and rename(2) on the mount: the old name is gone, the new one has the data still in burst buffers, and stage-out writes it there" {
	start
	mkfifo go
	# another process's data, attached but only in its burst buffer
	on sh -c 'exec 3> /tfs-test/a; echo other >&3; exec 3>&-; : > written; read -r x < go' 3>&- &
	local w=$!
	for _ in $(seq 100); do [ -e written ] && break; sleep 0.05; done
	[ ! -e pfs/a ]
	run -0 on mkdir -p /tfs-test/d/e
	run -0 on mv /tfs-test/a /tfs-test/d/e/b
	run -1 on cat /tfs-test/a
	[[ "$output" == *"No such file"* ]]
	run -0 on cat /tfs-test/d/e/b
	[ "$output" = other ]
	# a directory with the file below it
	run -0 on mv /tfs-test/d /tfs-test/d2
	run -0 on cat /tfs-test/d2/e/b
	[ "$output" = other ]
	run -0 on python3 -c 'import os; open("/tfs-test/new.tmp", "w").write("replaced"); os.replace("/tfs-test/new.tmp", "/tfs-test/d2/e/b"); print(open("/tfs-test/d2/e/b").read())'
	[ "$output" = replaced ]
	# noreplace; exchange is refused
	run -0 on sh -c 'echo x > /tfs-test/x'
	run -1 on "$B/ns" rename /tfs-test/x /tfs-test/d2/e/b noreplace
	[ "$output" = "File exists" ]
	run -1 on "$B/ns" rename /tfs-test/x /tfs-test/d2/e/b exchange
	[ "$output" = "Invalid argument" ]
	run -1 on "$B/ns" rename /tfs-test/nothere /tfs-test/y
	[ "$output" = "No such file or directory" ]
	# across the boundary: EXDEV, so mv copies
	run -1 on "$B/ns" rename /tfs-test/x here
	[ "$output" = "Invalid cross-device link" ]
	echo outside > o
	run -0 on mv o /tfs-test/o
	[ ! -e o ]
	run -0 on mv /tfs-test/x back
	[ "$(cat back)" = x ]
	echo > go
	wait "$w"
	tfs-server --stop srv
	[ "$(cat pfs/d2/e/b)" = replaced ]
	[ "$(cat pfs/o)" = outside ]
	[ ! -e pfs/a ] && [ ! -e pfs/d ] && [ ! -e pfs/new.tmp ] && [ ! -e pfs/x ]
	nothing_real
}

@test "two processes renaming one file in turn (w -> t by one, t -> f by another as soon as t is there): only f is left, with the data" {
	start
	mkdir pfs/r
	on python3 -c '
import os, sys
for i in range(30):
    while True:
        try:
            os.rename(f"/tfs-test/r/t.{i}", f"/tfs-test/r/f.{i}")
            break
        except FileNotFoundError:
            pass
' 3>&- &
	local b=$!
	for i in $(seq 0 29); do
		echo "d$i" > src
		on cp src /tfs-test/r/w.$i
		on mv /tfs-test/r/w.$i /tfs-test/r/t.$i
	done
	wait "$b"
	run -0 tfs-server --stop srv
	# (before: most were left as t.N, and f.N missing: the second rename
	# looked at the backing entries before the first had moved them)
	[ "$(ls pfs/r | grep -c '^f\.')" -eq 30 ]
	[ -z "$(ls pfs/r | grep -v '^f\.')" ]
	for i in $(seq 0 29); do
		[ "$(cat pfs/r/f.$i)" = "d$i" ]
	done
	nothing_real
}

@test "checkpoint publish (write ckpt.tmp, fsync, close, rename to ckpt; another process reads ckpt) under session, commit and posix" {
	for model in session commit posix; do
		rm -rf srv bb/* pfs/*
		start
		export TFS_CONSISTENCY=$model
		run -0 on "$B/ns" publish /tfs-test/ckpt.tmp /tfs-test/ckpt "step 1 $model"
		run -0 on cat /tfs-test/ckpt
		[ "$output" = "step 1 $model" ]
		# a second checkpoint replaces the first; a writer that keeps the
		# first's data in its buffer stages nothing out over it
		mkfifo go
		on sh -c 'exec 3>> /tfs-test/ckpt; echo stale >&3; exec 3>&-; : > written; read -r x < go' 3>&- &
		local w=$!
		for _ in $(seq 100); do [ -e written ] && break; sleep 0.05; done
		run -0 on "$B/ns" publish /tfs-test/ckpt.tmp /tfs-test/ckpt "step 2 $model"
		run -0 on cat /tfs-test/ckpt
		[ "$output" = "step 2 $model" ]
		run -1 on cat /tfs-test/ckpt.tmp
		echo > go
		wait "$w"
		tfs-server --stop srv
		[ "$(cat pfs/ckpt)" = "step 2 $model" ]
		[ ! -e pfs/ckpt.tmp ]
		rm -f go written
	done
	unset TFS_CONSISTENCY
}

@test "a malformed RENAME or SETMODE is refused with EINVAL, a path escaping the mount with EACCES, a chmod by another uid than the creator EPERM; the server goes on" {
	[ "$TFS_TRANSPORT" = sockets ] || skip "sockets transport only"
	start
	# HELLO, then each request on the same connection: its reply's status
	run -0 python3 "$TG_TOP/tests/tfs/rawframe.py" srv/server <<'PY'
req(1, struct.pack("<II", 1, 1) + st(b"tcp:127.0.0.1:1"), 1)
print(req(21, b"", 2), req(21, struct.pack("<I", 16) + st(b"a") + st(b"b"), 3),
      req(21, struct.pack("<I", 0) + st(b"a"), 4), req(21, struct.pack("<I", 0) + st(b"../a") + st(b"b"), 5),
      req(21, struct.pack("<I", 2) + st(b"") + st(b"b"), 6), req(21, struct.pack("<I", 0) + st(b"nothere") + st(b"b"), 7),
      req(20, struct.pack("<III", 0o10000, 0, 0) + st(b"a"), 8), req(20, struct.pack("<III", 0o600, 0, 0) + st(b"nothere"), 9))
# a file made by uid 0: another uid may not change its mode, its creator may
req(2, struct.pack("<IQ", 1 | 16, 2**64 - 1) + st(b"mine") + struct.pack("<III", 0o100600, 0, 0), 10)
print(req(20, struct.pack("<III", 0o644, 65534, 0) + st(b"mine"), 11), req(20, struct.pack("<III", 0o644, 0, 0) + st(b"mine"), 12),
      req(2, struct.pack("<IQ", 1, 2**64 - 1) + st(b"bad") + struct.pack("<III", 0o600, 0, 0), 13))
PY
	[ "${lines[0]}" = "22 22 22 13 22 2 22 2" ]
	# EPERM, then done; a mode without TFS_MODE_SET is malformed
	[ "${lines[1]}" = "1 0 22" ]
	grep -q 'malformed rename request' srv.log
	run -0 on sh -c 'echo ok > /tfs-test/f && mv /tfs-test/f /tfs-test/g && cat /tfs-test/g'
	[ "$output" = ok ]
}

@test "a malformed LIST or SETTIMES is refused with EINVAL, a path escaping the mount with EACCES, SETTIMES of a file the server does not hold ENOENT; the server goes on" {
	[ "$TFS_TRANSPORT" = sockets ] || skip "sockets transport only"
	start
	run -0 python3 "$TG_TOP/tests/tfs/rawframe.py" srv/server <<'PY'
req(1, struct.pack("<II", 1, 1) + st(b"tcp:127.0.0.1:1"), 1)
req(2, struct.pack("<IQ", 1, 2**64 - 1) + st(b"d/mine") + struct.pack("<III", 0o100600, 0, 0), 2)
t = struct.pack("<QQQQ", 1000000000, 0, 1000000000, 0)
print(req(22, b"", 3), req(22, struct.pack("<Q", 0) + st(b"../a"), 4), req(22, struct.pack("<Q", 0) + st(b""), 5),
      req(22, struct.pack("<Q", 0) + st(b"d"), 6), req(23, b"", 7),
      req(23, struct.pack("<QQQQ", 1, 10**9, 1, 0) + st(b"d/mine"), 8), req(23, t + st(b"nothere"), 9),
      req(23, t + st(b"d/mine"), 10))
PY
	[ "$output" = "22 13 0 0 22 22 2 0" ]
	grep -q 'malformed list request' srv.log
	grep -q 'malformed settimes request' srv.log
	run -0 on sh -c 'echo ok > /tfs-test/f && ls /tfs-test'
	[ "$output" = f ]
}

@test "flock(1) on the mount: an exclusive lock excludes another process's, -n fails at once, released at exit" {
	command -v flock >/dev/null || skip "flock(1) is missing"
	start
	run -0 on sh -c 'echo data > /tfs-test/lk'
	mkfifo go
	on flock /tfs-test/lk sh -c ': > held; read -r x < go' 3>&- &
	local w=$!
	for _ in $(seq 100); do [ -e held ] && break; sleep 0.05; done
	[ -e held ]
	run -1 on flock -n /tfs-test/lk true
	run -1 on flock -n -s /tfs-test/lk true
	echo > go
	wait "$w"
	run -0 on flock -n /tfs-test/lk cat /tfs-test/lk
	[ "$output" = data ]
}

@test "calls that succeed on the mount leave errno as it was (open, read past the end, stat of a file with no backing file yet, ...) under each model; ncgen -k classic and nccopy write netCDF-3 there" {
	start
	for m in session commit posix; do
		run -0 env TFS_CONSISTENCY=$m timeout 30 env LD_PRELOAD="$PRELOAD" "$B/errno" /tfs-test
		[ "$output" = done ]
	done
	command -v ncgen >/dev/null || skip "ncgen (netcdf-bin) is missing"
	printf 'netcdf t {\ndimensions:\n x = 10000 ;\nvariables:\n int a(x) ;\ndata:\n a = 1, 2, 3 ;\n}\n' >t.cdl
	ncgen -k classic -o plain.nc t.cdl
	run -0 on ncgen -k classic -o /tfs-test/t.nc t.cdl
	run -0 on nccopy -k classic /tfs-test/t.nc /tfs-test/c.nc
	run -0 on sh -c 'cmp plain.nc /tfs-test/t.nc && cmp plain.nc /tfs-test/c.nc'
	tfs-server --stop srv
	cmp plain.nc pfs/t.nc
	cmp plain.nc pfs/c.nc
}

@test "stat on the mount names the backing file's owner, and before there is one the creator's, not the caller's" {
	command -v setpriv >/dev/null && [ "$(id -u)" = 0 ] || skip "needs root and setpriv"
	[ "${TFS_TRANSPORT:-}" != ucx ] || skip "another user's client over UCX shared memory"
	local d nob
	start_beside_nobody
	chmod 777 pfs
	nob="$(id -u nobody):$(getent group nogroup | cut -d: -f3)"
	echo hi > pfs/owned
	chown nobody:nogroup pfs/owned
	run -0 on stat -c %u:%g /tfs-test/owned
	[ "$output" = "$nob" ]
	# nobody's file, only in its burst buffer while it waits
	mkfifo go
	setpriv --reuid=nobody --regid=nogroup --clear-groups env LD_PRELOAD="$PRELOAD" \
		TFS_SERVER="$PWD/nb/server" TFS_BB_DIR="$PWD/nb/bb" timeout 30 \
		bash -c 'echo x > /tfs-test/nbfile; echo ready > nb/ready; read -r x < go' 3>&- &
	local w=$!
	for _ in $(seq 200); do [ -s nb/ready ] && break; sleep 0.05; done
	[ ! -e pfs/nbfile ]
	run -0 on stat -c %u:%g /tfs-test/nbfile
	[ "$output" = "$nob" ]
	run -0 on sh -c 'echo r > /tfs-test/rootfile; stat -c %u:%g /tfs-test/rootfile'
	[ "$output" = 0:0 ]
	echo > go
	wait "$w"
	run -0 tfs-server --stop srv
	[ "$(stat -c %u:%g pfs/nbfile)" = "$nob" ]
	cd /
	rm -rf "$d"
}

@test "fchmodat(AT_SYMLINK_NOFOLLOW) of a link on the mount is EOPNOTSUPP as on Linux, of a file it changes the mode; GNU tar x of an archive with a link exits 0" {
	start
	run -0 on sh -c 'echo x > /tfs-test/target && ln -s target /tfs-test/link'
	run -1 on "$B/ns" lchmod /tfs-test/link 777
	[ "$output" = "Operation not supported" ]
	run -0 on "$B/ns" lchmod /tfs-test/target 600
	run -0 on stat -c %a /tfs-test/target
	[ "$output" = 600 ]
	mkdir src
	echo data > src/f
	ln -s f src/l
	tar -C src -cf t.tar .
	run -0 on sh -c 'mkdir /tfs-test/x && tar -C /tfs-test/x -xf t.tar'
	run -0 tfs-server --stop srv
	[ "$(cat pfs/x/f)" = data ]
	[ "$(readlink pfs/x/l)" = f ]
}

@test "a path through a symbolic link on the mount (to a file or a directory, relative or absolute) reaches the target's TangramFS file while it is only in burst buffers; lstat and rm act on the link; a link out of the mount is the kernel's" {
	start
	echo outside > outside
	run -0 on bash -c '
		echo 0123456789 > /tfs-test/target
		ln -s target /tfs-test/link
		echo APPENDED >> /tfs-test/link
		cat /tfs-test/link
		stat -L -c "%s %F" /tfs-test/link
		stat -c %F /tfs-test/link
		chmod 600 /tfs-test/link
		stat -c %a /tfs-test/target
		mkdir /tfs-test/real && ln -s real /tfs-test/alias && ln -s /tfs-test/real /tfs-test/abs
		echo through-alias > /tfs-test/alias/f
		cat /tfs-test/real/f /tfs-test/abs/f
		ln -s "$0" /tfs-test/out
		cat /tfs-test/out
		rm /tfs-test/link
		cat /tfs-test/target' "$PWD/outside" 3>&-
	[ "${lines[0]}" = 0123456789 ]
	[ "${lines[1]}" = APPENDED ]
	[ "${lines[2]}" = "20 regular file" ]
	[ "${lines[3]}" = "symbolic link" ]
	[ "${lines[4]}" = 600 ]
	[ "${lines[5]}" = through-alias ]
	[ "${lines[6]}" = through-alias ]
	[ "${lines[7]}" = outside ]
	[ "${lines[8]}" = 0123456789 ]
	[ "${lines[9]}" = APPENDED ]
	run -0 tfs-server --stop srv
	[ "$(cat pfs/target)" = "$(printf '0123456789\nAPPENDED')" ]
	[ "$(cat pfs/real/f)" = through-alias ]
	[ ! -L pfs/link ]
	[ "$(cat outside)" = outside ]
	nothing_real
}

@test "stage-out never writes through a symbolic link made in the backing directory over a file's name: the file is kept, the link's target untouched" {
	start
	echo victim > pfs/victim
	# (session: the file is only in the burst buffer until the shell
	# ends, which ln must not be exec'd in place of)
	run -0 on env TFS_CONSISTENCY=session bash -c \
		'echo bbdata > /tfs-test/f && ln -s victim "$0"/f && true' "$PWD/pfs" 3>&-
	tfs-server --stop srv 2>&1 || true
	grep -q "cannot be staged out.*pfs/f: Too many levels of symbolic links (kept)" srv.log
	[ "$(cat pfs/victim)" = victim ]
	grep -rq bbdata bb
}
