#!/usr/bin/env bats
# TangramFS's durability contract (tfs(3), "DURABILITY"), on a real
# tfs-server and real clients: a lost server (kill -9, SIGSTOP past
# TFS_TIMEOUT) gives errors within TFS_TIMEOUT and the clients keep what
# they could not hand over, which the next server (or --recover, or --stop
# after SIGCONT) stages out and names; a killed client's leftovers are
# removed and named; stage-out keeps the mode; one server per directory;
# ls -la on the mount.  Sockets only (the contract does not depend on the
# transport).

bats_require_minimum_version 1.5.0

load tfs/common

setup_file() {
	export B=$BATS_FILE_TMPDIR/bin
	mkdir -p "$B"
	gcc -std=gnu11 -O1 -g -Wall -Wextra -Werror -o "$B/prim" "$TG_TOP/tests/tfs/prim.c" \
		-L"$TG_TOP/lib" -ltfs -Wl,-rpath,"$TG_TOP/lib" -lpthread
	if command -v mpicc.mpich >/dev/null; then
		mpicc.mpich -O2 -Wall -Wextra -Werror -o "$B/tfs-bench" \
			"$TG_TOP/tests/bench/tfs-bench.c" -L"$TG_TOP/lib" -ltfs \
			-Wl,-rpath,"$TG_TOP/lib"
	fi
	export UCX_TLS=${UCX_TLS:-sm,self}
	export MPIR_CVAR_POLLS_BEFORE_YIELD=${MPIR_CVAR_POLLS_BEFORE_YIELD:-1}
	export PRELOAD=$TG_TOP/lib/libtfs-posix.so
	pick_transport true
}

start() {
	tfs-server -a "$DEFADDR" -d srv 2>srv.log 3>&- &
	SERVER_PID=$!
	# a dead server's file stays until the new one has staged out what its
	# clients left and writes its own: wait for this server's pid in it
	for _ in $(seq 200); do grep -qs "^pid $SERVER_PID\$" srv/server && break; sleep 0.05; done
	grep -qs "^pid $SERVER_PID\$" srv/server
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	mkdir -p bb pfs
	export TFS_SERVER=$PWD/srv/server TFS_BB_DIR=$PWD/bb TFS_PFS_DIR=$PWD/pfs
	export TFS_MOUNT=/tfs-test TFS_NODE=1 TFS_TIMEOUT=2
	SERVER_PID=
}

# slow_dd N: a writer under libtfs-posix (posix model) that goes on for
# seconds, 200 kB every 20 ms of src.N into /tfs-test/wN; its pid in DD[N]
slow_dd() {
	head -c 20000000 /dev/urandom > "src.$1"
	mkfifo "fifo.$1"
	for i in $(seq 0 99); do
		dd if="src.$1" bs=200000 skip=$i count=1 status=none
		sleep 0.02
	done > "fifo.$1" 3>&- &
	LD_PRELOAD=$PRELOAD TFS_CONSISTENCY=posix dd if="fifo.$1" of="/tfs-test/w$1" bs=200000 \
		iflag=fullblock 2>"dd.$1" 3>&- &
	DD[$1]=$!
}

# wait_gone PID SECONDS: PID has ended within SECONDS
wait_gone() {
	local i
	for i in $(seq $(($2 * 10))); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
	return 1
}

@test "server kill -9 mid-write: the writer fails within TFS_TIMEOUT, keeps its data, the next server stages it out" {
	start
	mkfifo fifo.in
	head -c 20000000 /dev/urandom > src
	# a writer that goes on for seconds: 200 kB every 20 ms
	for i in $(seq 0 99); do
		dd if=src bs=200000 skip=$i count=1 status=none
		sleep 0.02
	done > fifo.in 3>&- &
	LD_PRELOAD=$PRELOAD TFS_CONSISTENCY=posix dd if=fifo.in of=/tfs-test/big bs=200000 \
		iflag=fullblock status=none 2>dd.err 3>&- &
	local dd=$!
	for _ in $(seq 300); do
		[ "$(stat -c %s bb/tfs-bb-* 2>/dev/null || echo 0)" -ge 2000000 ] && break
		sleep 0.02
	done
	kill -9 "$SERVER_PID"
	SECONDS=0
	wait_gone "$dd" 3
	local rc=0
	wait "$dd" || rc=$?
	[ "$rc" -eq 1 ]
	[ "$SECONDS" -le 3 ]
	grep -q 'dd: error writing' dd.err
	# the buffer is kept, and its note says where it goes
	run -0 ls bb
	[[ "$output" == tfs-bb-1-* ]]
	run -0 grep -c '^file 644 tfs-bb-1-[0-9]*-1 big$' srv/clients/*
	[ -z "$(ls pfs)" ]
	start
	grep -q 'did not stage out big: staged out [0-9]* bytes' srv.log
	[ "$(stat -c %s pfs/big)" -ge 2000000 ]
	cmp -n "$(stat -c %s pfs/big)" src pfs/big
	[ -z "$(ls bb)" ]
	[ -z "$(ls srv/clients)" ]
}

@test "server kill -9 before the close of session and commit writes: the client keeps them, the next server stages them out (they were deleted)" {
	head -c 300000 /dev/urandom | base64 -w 0 | head -c 300000 > src
	for model in session commit; do
		rm -rf srv bb/* pfs/* written go
		mkdir -p bb pfs
		start
		mkfifo go
		# the shell writes (no process of its own for the bytes),
		# fsyncs, waits, then closes after the server died
		LD_PRELOAD=$PRELOAD TFS_CONSISTENCY=$model bash -c '
			exec 3> /tfs-test/f
			v=$(cat src)
			printf "%s" "$v" >&3
			: > written
			read -r x < go
			exec 3>&-
			exit 0' 2> client.err 3>&- &
		local c=$!
		for _ in $(seq 200); do [ -e written ] && break; sleep 0.05; done
		[ -e written ]
		kill -9 "$SERVER_PID"
		wait "$SERVER_PID" || true
		echo > go
		wait_gone "$c" 5
		wait "$c" || true
		# the buffer and its note are kept
		run -0 ls bb
		[[ "$output" == tfs-bb-1-* ]] || { echo "$model: bb: $output"; false; }
		run -0 grep -c ' f$' srv/clients/*
		[ -z "$(ls pfs)" ]
		start
		grep -q 'did not stage out f: staged out 300000 bytes' srv.log
		cmp src pfs/f
		tfs-server --stop srv
		wait "$SERVER_PID"
	done
}

@test "server kill -9: tfs-server --recover stages out what the clients kept, once" {
	start
	"$B/prim" open:a pwrite:0:hello attachfile touch:r wait:k pwrite:5:world attachfile \
		> p1 3>&- &
	local c=$!
	"$B/prim" wait:r
	kill -9 "$SERVER_PID"
	touch k
	wait_gone "$c" 3
	run -0 cat p1
	[[ "${lines[4]}" == "attachfile: -1 "E* ]]
	run -0 tfs-server --recover srv
	[[ "$output" == *"did not stage out a: staged out 10 bytes"* ]]
	[ "$(cat pfs/a)" = helloworld ]
	[ -z "$(ls bb)" ]
	run -0 tfs-server --recover srv
	[ -z "$output" ]
}

@test "tfs-server --recover on a directory no server ran on: one line, exit 2, no lock file left in it; after a clean stop: nothing to do, exit 0" {
	mkdir nas
	run -2 --separate-stderr tfs-server --recover nas
	[ -z "$output" ]
	[ "$stderr" = "tfs-server: 'nas' holds no server state (no lock, server file or clients/): nothing to recover" ]
	[ -z "$(ls -A nas)" ]
	start
	run -0 tfs-server --stop srv
	wait "$SERVER_PID"
	run -0 --separate-stderr tfs-server --recover srv
	[ -z "$output" ] && [ -z "$stderr" ]
}

@test "server stopped past TFS_TIMEOUT: ETIMEDOUT in time; after SIGCONT --stop names the client and stages it out" {
	start
	"$B/prim" open:a pwrite:0:hello attachfile touch:r wait:k pwrite:5:world attachfile close \
		> p1 3>&- &
	local c=$!
	"$B/prim" open:o pwrite:0:fine attachfile close > /dev/null
	"$B/prim" wait:r
	kill -STOP "$SERVER_PID"
	SECONDS=0
	touch k
	wait_gone "$c" 5
	[ "$SECONDS" -le 4 ]
	run -0 cat p1
	[ "${lines[4]}" = "attachfile: -1 ETIMEDOUT" ]
	kill -CONT "$SERVER_PID"
	run -0 tfs-server --stop srv
	[[ "$output" == "tfs-server: client pid $c (node 1) did not stage out a: staged out 10 bytes"* ]]
	[ "${#lines[@]}" -eq 1 ]
	[ "$(cat pfs/a)" = helloworld ]
	[ "$(cat pfs/o)" = fine ]
	[ -z "$(ls bb)" ]
}

# What a client attached (its close or fsync returned) survives its death:
# its note lists it as it attaches, and the server stages out at once what
# it still owns (it was removed, and the file lost, even after fsync and
# close had returned: HDF5's t_pflush1, an MPI job whose ranks the
# launcher kills after one exits).  What it never attached goes.
@test "a client killed after it attached: the server stages out at once what it still owns; what it never attached is gone" {
	start
	"$B/prim" open:a pwrite:0:kept attachfile pwrite:4:lost touch:r wait:never > /dev/null 3>&- &
	local c=$!
	"$B/prim" wait:r
	kill -9 "$c"
	wait "$c" || true
	# (the server logs the rescue after the copy is in place)
	for _ in $(seq 50); do
		[ -s pfs/a ] && grep -q "client pid $c (node 1) died" srv.log && break
		sleep 0.1
	done
	[ "$(cat pfs/a)" = kept ]
	grep -q "client pid $c (node 1) died: staged out 4 bytes of a it had attached" srv.log
	run -0 tfs-server --stop srv
	[[ "$output" == "tfs-server: client pid $c (node 1) died: staged out 4 bytes of a it had attached, from its burst buffer to $PWD/pfs/a, mode 0644" ]]
	[ "$(cat pfs/a)" = kept ]
	[ -z "$(ls bb)" ]
	[ -z "$(ls srv/clients)" ]
}

# A checkpoint written under a temporary name, closed and renamed into
# place, then its writer killed: the rescue found the file by the name the
# note had (none now) and the data was lost, --stop exiting 0; and renamed
# over an older file, the older file's bytes came back.  The note names
# the server's file id now.
@test "a client killed after renaming what it attached: staged out under the new name; a file it renamed over does not come back" {
	start
	LD_PRELOAD=$PRELOAD TFS_CONSISTENCY=session python3 -c '
import os, time
def put(p, b):
    fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.write(fd, b)
    os.fsync(fd)
    os.close(fd)
put("/tfs-test/g", b"GGGGGG")
put("/tfs-test/f", b"AAAA")
os.rename("/tfs-test/f", "/tfs-test/g")
put("/tfs-test/ckpt.tmp", b"CHECKPOINT")
os.rename("/tfs-test/ckpt.tmp", "/tfs-test/ckpt")
open("r", "w").close()
time.sleep(100)' 3>&- &
	local c=$!
	for _ in $(seq 100); do [ -e r ] && break; sleep 0.05; done
	kill -9 "$c"
	wait "$c" || true
	run -0 tfs-server --stop srv
	[ "$(cat pfs/ckpt)" = CHECKPOINT ]
	[ "$(cat pfs/g)" = AAAA ]
	[ ! -e pfs/f ] && [ ! -e pfs/ckpt.tmp ]
	[ -z "$(ls bb)" ]
}

# The server dead, the next one stages out what the note lists: less what
# the client itself unlinked, truncated or renamed after it attached it
# (it wrote them back before: f came back, g under its old name).
@test "server kill -9, then its client: the next server follows the client's own unlink, truncate and rename" {
	start
	LD_PRELOAD=$PRELOAD TFS_CONSISTENCY=session python3 -c '
import os, time
def put(p, b):
    fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.write(fd, b)
    os.close(fd)
put("/tfs-test/u", b"UUUU")
os.unlink("/tfs-test/u")
put("/tfs-test/t", b"TTTTTTTT")
os.truncate("/tfs-test/t", 2)
put("/tfs-test/a", b"AAAA")
os.rename("/tfs-test/a", "/tfs-test/b")
open("r", "w").close()
time.sleep(100)' 3>&- &
	local c=$!
	for _ in $(seq 100); do [ -e r ] && break; sleep 0.05; done
	kill -9 "$SERVER_PID"
	wait "$SERVER_PID" || true
	kill -9 "$c"
	wait "$c" || true
	start
	run -0 tfs-server --stop srv
	[ ! -e pfs/u ] && [ ! -e pfs/a ]
	[ "$(cat pfs/t)" = TT ]
	[ "$(cat pfs/b)" = AAAA ]
}

# The server killed, then its client too, before the client could write
# what it kept (a launcher killing ranks after an MPI_Abort): the note was
# only its header, and the next server removed every burst-buffer file.
@test "server kill -9, then its client: the next server stages out what the client had attached, from its note" {
	start
	"$B/prim" open:b pwrite:0:acked attachfile touch:r wait:never > /dev/null 3>&- &
	local c=$!
	"$B/prim" wait:r
	kill -9 "$SERVER_PID"
	wait "$SERVER_PID" || true
	kill -9 "$c"
	wait "$c" || true
	[ ! -e pfs/b ]
	grep -q '^attached ' srv/clients/*
	start
	[ "$(cat pfs/b)" = acked ]
	grep -q "client pid $c (node 1) did not stage out b: staged out 5 bytes" srv.log
	run -0 tfs-server --stop srv
	[ -z "$(ls bb)" ]
	[ -z "$(ls srv/clients)" ]
}

@test "a file another live process made keeps its creator's mode: a later O_CREAT open (a shell's >>) neither widens it nor reads what the mode forbids" {
	start
	mkfifo goA goB
	# A makes a private file and stays; B opens it for appending (0666
	# under umask 022) before A has staged it out
	LD_PRELOAD=$PRELOAD TFS_CONSISTENCY=session bash -c '
		umask 077
		printf private > /tfs-test/p
		: > a.done
		read -r x < goA' 3>&- &
	local a=$!
	for _ in $(seq 200); do [ -e a.done ] && break; sleep 0.05; done
	LD_PRELOAD=$PRELOAD TFS_CONSISTENCY=session bash -c '
		umask 022
		exec 3>> /tfs-test/p
		: > b.open
		read -r x < goB
		printf more >&3
		exec 3>&-' 3>&- &
	local b=$!
	for _ in $(seq 200); do [ -e b.open ] && break; sleep 0.05; done
	echo > goA
	wait "$a"
	[ "$(stat -c %a pfs/p)" = 600 ]
	echo > goB
	wait "$b"
	# (it was 644, A's bytes with it, when B staged out after A)
	[ "$(stat -c %a pfs/p)" = 600 ]
	[ "$(cat pfs/p)" = privatemore ]
	tfs-server --stop srv
	wait "$SERVER_PID"
	# as another user, the bits are checked at open, as open(2) does, also
	# while the file is only in a live creator's burst buffer
	command -v setpriv >/dev/null && [ "$(id -u)" = 0 ] || return 0
	local d
	d=$(mktemp -d /tmp/tfs-mode.XXXXXX)
	chmod 755 "$d"
	mkdir "$d/bb" "$d/pfs"
	chown -R nobody "$d"
	run -0 setpriv --reuid=nobody --regid=nogroup --clear-groups env -u LD_PRELOAD \
		TFS_BB_DIR="$d/bb" TFS_PFS_DIR="$d/pfs" TFS_SERVER="$d/srv/server" \
		PRELOAD="$PRELOAD" PATH="$PATH" bash -c '
		cd "$0"
		tfs-server -d srv 2> srv.log 3>&- &
		s=$!
		for _ in $(seq 100); do [ -s srv/server ] && break; sleep 0.05; done
		mkfifo go
		LD_PRELOAD=$PRELOAD python3 -c "
import os
fd = os.open(\"/tfs-test/wo\", os.O_CREAT | os.O_WRONLY, 0o200); os.write(fd, b\"secret\"); os.close(fd)
open(\"made\", \"w\").close(); open(\"go\").read()" 3>&- &
		a=$!
		for _ in $(seq 200); do [ -e made ] && break; sleep 0.05; done
		LD_PRELOAD=$PRELOAD python3 -c "
import os
for p, m in ((\"/tfs-test/wo\", os.O_RDONLY), (\"/tfs-test/wo\", os.O_RDWR)):
    try:
        os.open(p, m); print(\"opened\")
    except OSError as e:
        print(e.strerror)"
		echo > go
		wait $a
		LD_PRELOAD=$PRELOAD python3 -c "
import os
try:
    os.open(\"/tfs-test/wo\", os.O_RDONLY); print(\"opened\")
except OSError as e:
    print(e.strerror)"
		tfs-server --stop srv
		wait $s' "$d"
	rm -rf "$d"
	# (opened, opened, opened before: the bits were not checked)
	[ "$output" = $'Permission denied\nPermission denied\nPermission denied' ]
}

@test "a file made longer (truncate -s, ftruncate past its end) is that long after stage-out, under every model; a tail cut and grown again too" {
	start
	# the same program on a plain directory, for the bytes
	mkdir plain
	local prog='import os, sys
fd = os.open(sys.argv[1], os.O_CREAT | os.O_WRONLY, 0o644)
os.pwrite(fd, b"x", 100000); os.ftruncate(fd, 60000); os.ftruncate(fd, 70000)
os.pwrite(fd, b"abc", 0); os.close(fd)'
	python3 -c "$prog" plain/h
	for m in posix commit session; do
		LD_PRELOAD=$PRELOAD TFS_CONSISTENCY=$m truncate -s 5000 /tfs-test/t.$m
		LD_PRELOAD=$PRELOAD TFS_CONSISTENCY=$m python3 -c "$prog" /tfs-test/h.$m
	done
	tfs-server --stop srv
	wait "$SERVER_PID"
	for m in posix commit session; do
		# (0 bytes and 50,001 before: stage-out copied only what was written)
		[ "$(stat -c %s pfs/t.$m)" = 5000 ] || { echo "$m: $(stat -c %s pfs/t.$m)"; false; }
		cmp plain/h pfs/h.$m
	done
}

@test "CPython's subprocess (vfork): a child that closes the descriptors not passed leaves the parent's open, one given as stdout is written through" {
	start
	local prog='import os, subprocess, sys
fd = os.open(sys.argv[1], os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
os.write(fd, b"before\n")
subprocess.run(["true"], check=True)
subprocess.run(["echo", "child"], stdout=fd, check=True)
os.write(fd, b"after\n")
os.close(fd)'
	mkdir plain
	python3 -c "$prog" plain/f
	for m in posix session; do
		LD_PRELOAD=$PRELOAD TFS_CONSISTENCY=$m python3 -c "$prog" /tfs-test/f.$m
	done
	tfs-server --stop srv
	wait "$SERVER_PID"
	for m in posix session; do
		# (EBADF on "after" before: the vfork child's close took the
		# parent's descriptor out of the parent's table)
		cmp plain/f pfs/f.$m
	done
}

@test "TFS_PFS_DIR gone before a client's stage-out: its file is kept, --stop says so and exits 2, --recover stages it out once the directory is back" {
	start
	head -c 75000 /dev/urandom | base64 -w 0 > src
	mkfifo go
	# the shell itself writes (a cat would stage out at its own end)
	LD_PRELOAD=$PRELOAD TFS_CONSISTENCY=session bash -c '
		exec 3> /tfs-test/f
		v=$(cat src)
		printf "%s" "$v" >&3
		: > written
		read -r x < go' 3>&- &
	local c=$!
	for _ in $(seq 200); do [ -e written ] && break; sleep 0.05; done
	rm -rf pfs
	echo > go
	wait "$c"
	# (exit 0 before, while it printed "(kept)"; the line named the
	# burst-buffer file with the error of the missing destination)
	run -2 tfs-server --stop srv
	[[ $output == *"cannot be staged out from "*" to $PWD/pfs/f: No such file or directory (kept)"* ]]
	wait "$SERVER_PID" || true
	mkdir pfs
	run -0 tfs-server --recover srv
	cmp src pfs/f
}

# A client killed after it attached, while TFS_PFS_DIR is gone: the rescue
# at its close fails and its attachments go; --stop's rescue_dead() then
# found it owned nothing, "staged" nothing, removed its burst-buffer file
# and exited 0 (the data lost, with the directory back or not).
@test "a client killed after it attached while TFS_PFS_DIR is gone: --stop exits 2 and keeps it, or stages it out when the directory is back" {
	for back in 0 1; do
		rm -rf srv bb pfs src go written
		mkdir -p bb pfs
		start
		head -c 75000 /dev/urandom | base64 -w 0 > src
		mkfifo go
		LD_PRELOAD=$PRELOAD TFS_CONSISTENCY=session bash -c '
			v=$(cat src)
			printf "%s" "$v" > /tfs-test/f
			: > written
			read -r x < go' 3>&- &
		local c=$!
		for _ in $(seq 200); do [ -e written ] && break; sleep 0.05; done
		rm -rf pfs
		kill -9 "$c"
		wait "$c" || true
		for _ in $(seq 50); do grep -q "(kept)" srv.log && break; sleep 0.1; done
		if [ "$back" = 1 ]; then
			mkdir pfs
			run -0 tfs-server --stop srv
			wait "$SERVER_PID" || true
		else
			run -2 tfs-server --stop srv
			[[ $output == *"cannot be staged out"*"(kept)"* ]]
			wait "$SERVER_PID" || true
			mkdir pfs
			run -0 tfs-server --recover srv
		fi
		cmp src pfs/f
		[ -z "$(ls bb)" ]
	done
}

# glibc before 2.33 compiled stat(2) into calls of __xstat and its kin:
# Debian's CGNS 3.4 still makes them, and every cg_open of a file on the
# mount failed ("file was not found"), __fxstat gave the placeholder
# descriptor's size.
@test "the old stat entries (__xstat, __lxstat, __fxstat, __fxstatat and their 64 names) on the mount: as stat" {
	start
	cat > xstat.c <<-'EOF'
	#define _LARGEFILE64_SOURCE 1
	#include <fcntl.h>
	#include <stdio.h>
	#include <sys/stat.h>
	#include <unistd.h>
	int __xstat(int, const char *, struct stat *);
	int __lxstat(int, const char *, struct stat *);
	int __fxstat(int, int, struct stat *);
	int __fxstatat(int, int, const char *, struct stat *, int);
	int __xstat64(int, const char *, struct stat64 *);
	int main(void)
	{
		struct stat a, b, c, d;
		struct stat64 e;
		int fd = open("/tfs-test/x", O_CREAT | O_WRONLY | O_TRUNC, 0640);
		if (fd < 0 || write(fd, "hello", 5) != 5)
			return 1;
		printf("%d %d %d %d %d\n", __xstat(1, "/tfs-test/x", &a),
		       __lxstat(1, "/tfs-test/x", &b), __fxstat(1, fd, &c),
		       __fxstatat(1, AT_FDCWD, "/tfs-test/x", &d, 0), __xstat64(1, "/tfs-test/x", &e));
		printf("%lld %lld %lld %lld %lld %o\n", (long long)a.st_size, (long long)b.st_size,
		       (long long)c.st_size, (long long)d.st_size, (long long)e.st_size,
		       (unsigned)(c.st_mode & 07777));
		return close(fd) != 0 || !S_ISREG(a.st_mode) || !S_ISREG(c.st_mode);
	}
	EOF
	gcc -O1 -o xstat xstat.c
	LD_PRELOAD=$PRELOAD TFS_CONSISTENCY=session run -0 --separate-stderr ./xstat
	[ "$output" = "$(printf '0 0 0 0 0\n5 5 5 5 5 640')" ]
	tfs-server --stop srv
	[ "$(cat pfs/x)" = hello ]
}

@test "test -r, [ -w ] and /usr/bin/test on the mount (faccessat, euidaccess): as on a disk, for a file in a burst buffer and a staged one" {
	start
	export LD_PRELOAD=$PRELOAD
	run -0 bash -c 'printf x > /tfs-test/a
		exec 3> /tfs-test/b; printf y >&3
		for f in a b nosuch; do
			r=-; w=-; e=-
			[ -r /tfs-test/$f ] && r=r
			[ -w /tfs-test/$f ] && w=w
			/usr/bin/test -e /tfs-test/$f && e=e
			echo "$f $r$w$e"
		done'
	unset LD_PRELOAD
	# (a: "--e" before: GNU test asks faccessat, which was not taken)
	[ "$output" = $'a rwe\nb rwe\nnosuch ---' ]
}

@test "stage-out keeps the mode open(2) gave, under the program's umask" {
	start
	export LD_PRELOAD=$PRELOAD
	python3 -c 'import os; fd = os.open("/tfs-test/p600", os.O_CREAT | os.O_WRONLY, 0o600); os.write(fd, b"x")'
	python3 -c 'import os; fd = os.open("/tfs-test/d/p640", os.O_CREAT | os.O_WRONLY, 0o640); os.write(fd, b"x")'
	sh -c 'umask 077; echo x > /tfs-test/u077'
	sh -c 'umask 022; echo x > /tfs-test/u022'
	unset LD_PRELOAD
	[ "$(stat -c %a pfs/p600)" = 600 ]
	[ "$(stat -c %a pfs/d/p640)" = 640 ]
	[ "$(stat -c %a pfs/u077)" = 600 ]
	[ "$(stat -c %a pfs/u022)" = 644 ]
	# the mode of a file that exists is not changed by open(2)
	LD_PRELOAD=$PRELOAD python3 -c 'import os; fd = os.open("/tfs-test/u022", os.O_CREAT | os.O_WRONLY, 0o600); os.write(fd, b"y")'
	[ "$(stat -c %a pfs/u022)" = 644 ]
}

@test "one server per directory: a second refuses in one line; a dead one's directory is taken over" {
	start
	local first=$SERVER_PID
	run -2 timeout 10 tfs-server -d srv
	[ "$output" = "tfs-server: 'srv' has a live server (pid $first): tfs-server --stop srv" ]
	grep -q "pid $first" srv/server
	kill -STOP "$first"
	run -2 timeout 10 tfs-server -d srv
	kill -CONT "$first"
	kill -9 "$first"
	wait "$first" || true	# gone, and its lock with it
	start
	grep -q "pid $SERVER_PID" srv/server
	run -0 "$B/prim" open:a pwrite:0:x attachfile
}

@test "ls -la on the mount root, . and .. with real times; a missing server file gives EACCES" {
	start
	mkdir pfs/sub
	run -0 env LD_PRELOAD=$PRELOAD ls -la --time-style=+%Y /tfs-test/ /tfs-test/. /tfs-test/..
	[[ "$output" != *'?'* ]]
	run -0 env LD_PRELOAD=$PRELOAD ls -la --time-style=+%Y /tfs-test/.
	[[ "$output" != *1970* ]]
	[[ "$output" == *" sub"* ]]
	LD_PRELOAD=$PRELOAD sh -c 'echo hi > /tfs-test/f; ls -l --time-style=+%Y /tfs-test/f > ls.out'
	[[ "$(cat ls.out)" == *" $(date +%Y) /tfs-test/f" ]]
	run -1 env LD_PRELOAD=$PRELOAD TFS_SERVER=$PWD/missing cat /tfs-test/f
	[[ "$output" == *"cat: /tfs-test/f: Permission denied" ]]
	run -0 env TFS_SERVER=$PWD/missing "$B/prim" open:f
	[ "$output" = "open: -1 EACCES" ]
}

@test "chaos: during a tfs-bench run and writers, kill -9 a client, SIGSTOP then SIGCONT the server: the others end within TFS_TIMEOUT, nothing durable is lost" {
	start
	local -a DD
	local bench= want=3 written=
	# tfs-bench first, and the writers once it writes: a loaded machine
	# may take longer to start an MPI program than dd takes to end
	if [ -x "$B/tfs-bench" ]; then
		timeout 60 mpirun.mpich -n 1 "$B/tfs-bench" -w fpp -m sync-posix -M 2000 -S 65536 \
			-r 1000 > bench.out 2> bench.err 3>&- &
		bench=$!
		want=4
		SECONDS=0
		while [ "$SECONDS" -lt 60 ] && kill -0 "$bench" 2>/dev/null; do
			[ -n "$(find bb -name 'tfs-bb-*' -size +0)" ] && break
			sleep 0.02
		done
	fi
	slow_dd 1
	slow_dd 2
	slow_dd 3
	# every writer has written
	SECONDS=0
	while [ "$SECONDS" -lt 60 ]; do
		[ "$(find bb -name 'tfs-bb-*' -size +0 | wc -l)" -ge "$want" ] &&
			[ "$(cat bb/tfs-bb-* 2>/dev/null | wc -c)" -ge 6000000 ] && written=1 && break
		sleep 0.02
	done
	if [ -z "$written" ]; then
		ls -l bb
		cat bench.err dd.1 dd.2 dd.3 srv.log 2>/dev/null
	fi
	[ -n "$written" ]
	kill -9 "${DD[1]}"
	sleep 0.2
	kill -STOP "$SERVER_PID"
	SECONDS=0
	local left=${DD[2]} rc
	wait_gone "${DD[2]}" 4
	wait_gone "${DD[3]}" 4
	[ -z "$bench" ] || wait_gone "$bench" 4
	[ "$SECONDS" -le 5 ]
	kill -CONT "$SERVER_PID"
	# the server (alive again) serves a new client
	run -0 "$B/prim" open:after pwrite:0:ok attachfile close
	[ "$output" = "open: ok
pwrite: 2
attachfile: 0
close: 0" ]
	run -0 tfs-server --stop srv
	# the killed client is named; the two that lost the server are named
	# and staged out: each file is a prefix of what it wrote, at least
	# what dd was told was written
	[[ "$output" == *"client pid ${DD[1]} (node 1) died before it staged out"* ]]
	for n in 2 3; do
		[[ "$output" == *"client pid ${DD[$n]} (node 1) did not stage out w$n: staged out"* ]]
		local told
		told=$(awk '/bytes/ && /copied/ { print $1 }' "dd.$n")
		[ "$(stat -c %s "pfs/w$n")" -ge "$told" ]
		cmp -n "$(stat -c %s "pfs/w$n")" "src.$n" "pfs/w$n"
	done
	# tfs-bench got the error and ended.  Caught in its writes (after the
	# first) or in the attach after them, what it wrote is staged out too
	# (or went with it, killed).  Caught in the
	# detach or the close after it, the server may have taken the detach
	# once it ran again: the file is either staged out whole or not named
	# (the program had dropped it).  Caught opening the file of its next
	# repeat, it had detached and closed the last one (tfs-bench drops
	# each repeat's data): nothing of it is left to stage out
	if [ -n "$bench" ]; then
		echo "tfs-bench: $(cat bench.err)"
		grep -q 'Connection timed out' bench.err
		if grep -q '^tfs_open:' bench.err; then
			[[ "$output" != *bench-fpp-0* ]]
		elif grep -Eq '^tfs_(detach_file|close):' bench.err; then
			[[ "$output" != *bench-fpp-0* ||
			   "$output" == *"did not stage out bench-fpp-0: staged out"* ]]
		elif grep -q '^tfs_pwrite/tfs_attach: write 1 of' bench.err; then
			# the first write of a repeat sets the pending mark:
			# nothing of this repeat was written, none is left
			[[ "$output" != *bench-fpp-0* ]]
		else
			# a later write, or the attach after them: its exit
			# handler keeps the buffer (the note names it), unless
			# MPI_Abort's launcher killed it first: a killed
			# client's writes go (tfs(3), DURABILITY)
			grep -Eq '^tfs_(pwrite/tfs_attach: write|attach_file:)' bench.err
			[[ "$output" == *"did not stage out bench-fpp-0: staged out"* ]] ||
				grep -v "pid ${DD[1]} " <<< "$output" | grep -q 'died before it staged out: removed'
		fi
	fi
	[ "$(cat pfs/after)" = ok ]
	[ -z "$(ls bb)" ]
	[ -z "$(ls srv/clients)" ]
}

@test "a missing TFS_PFS_DIR: the client does not start (ENOENT, one warning), nothing is buffered" {
	start
	run -0 env TFS_PFS_DIR=$PWD/nope "$B/prim" open:a pwrite:0:hello attachfile close
	[ "${lines[0]}" = "open: -1 ENOENT" ]
	touch plain
	run -0 env TFS_PFS_DIR=$PWD/plain "$B/prim" open:a
	[ "$output" = "open: -1 ENOTDIR" ]
	run -2 --separate-stderr env LD_PRELOAD=$PRELOAD TFS_PFS_DIR=$PWD/nope TFS_CONSISTENCY=session \
		sh -c 'echo hello > /tfs-test/a'
	[ "${stderr_lines[0]}" = "libtfs-posix: cannot use TFS_PFS_DIR $PWD/nope: No such file or directory" ]
	[[ "${stderr_lines[1]}" == "sh: 1: cannot create /tfs-test/a: "* ]]
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ -z "$(ls bb)" ]
	run -0 tfs-server --stop srv
	[ -z "$output" ]
	[ ! -e nope ]
}

@test "an empty file created through TangramFS is staged out, with its mode, under every model and design" {
	start
	prim open:e0 close
	local m d
	for d in sync lock; do
		for m in posix commit session; do
			LD_PRELOAD=$PRELOAD TFS_DESIGN=$d TFS_CONSISTENCY=$m \
				python3 -c 'import os, sys; os.close(os.open("/tfs-test/sub/e-" + sys.argv[1], os.O_CREAT | os.O_WRONLY, 0o600))' "$d-$m"
			LD_PRELOAD=$PRELOAD TFS_DESIGN=$d TFS_CONSISTENCY=$m sh -c ": > /tfs-test/s-$d-$m"
		done
	done
	# written, then truncated to nothing
	LD_PRELOAD=$PRELOAD TFS_CONSISTENCY=session python3 -c 'import os; fd = os.open("/tfs-test/t", os.O_CREAT | os.O_RDWR, 0o640); os.write(fd, b"gone"); os.ftruncate(fd, 0)'
	run -0 tfs-server --stop srv
	[ -z "$output" ]
	[ "$(stat -c '%s %a' pfs/e0)" = "0 644" ]
	for d in sync lock; do
		for m in posix commit session; do
			[ "$(stat -c '%s %a' "pfs/sub/e-$d-$m")" = "0 600" ]
			[ "$(stat -c '%s %a' "pfs/s-$d-$m")" = "0 644" ]
		done
	done
	[ "$(stat -c '%s %a' pfs/t)" = "0 640" ]
	[ -z "$(ls bb)" ]
}

# An fsync that returned 0, then the writer killed (MPI_File_sync or
# H5Fflush, then MPI_Abort): the sync design had attached the bytes, the
# server stages them out; the lock design's fsync did nothing, and the
# server removed the burst buffer they were in.  It copies them to the
# backing file now, the locks kept.
@test "an fsync that returned 0 survives the writer's death, in the lock design too" {
	cat > fk.c <<-'C'
	#include <fcntl.h>
	#include <signal.h>
	#include <stdio.h>
	#include <string.h>
	#include <unistd.h>
	int main(int argc, char **argv)
	{
		static char b[1 << 20];
		int fd = open(argv[1], O_CREAT | O_TRUNC | O_WRONLY, 0644);
		memset(b, 'A', sizeof(b));
		if (fd < 0 || write(fd, b, sizeof(b)) != (ssize_t)sizeof(b))
			return 1;
		printf("fsync=%d\n", fsync(fd));
		fflush(stdout);
		raise(SIGKILL);
		return 0;
	}
	C
	gcc -O1 -o fk fk.c
	head -c 1048576 /dev/zero | tr '\0' A > want
	start
	for design in sync lock; do
		run env LD_PRELOAD="$PRELOAD" TFS_CONSISTENCY=posix TFS_DESIGN=$design ./fk /tfs-test/f.$design
		[ "$status" = 137 ]
		[ "$output" = fsync=0 ]
	done
	run -0 tfs-server --stop srv
	cmp want pfs/f.sync
	cmp want pfs/f.lock
}
