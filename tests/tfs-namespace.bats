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
	export UCX_TLS=${UCX_TLS:-sm,self}
	export MPIR_CVAR_POLLS_BEFORE_YIELD=${MPIR_CVAR_POLLS_BEFORE_YIELD:-1}
	export PRELOAD=$TG_TOP/lib/libtfs-posix.so
	pick_transport ucx_probe
}

ucx_probe() {
	local d=$BATS_FILE_TMPDIR/probe pid ok=1
	tfs-server -a ucx:127.0.0.1:0 -d "$d" >/dev/null 2>"$BATS_FILE_TMPDIR/probe.log" 3>&- &
	pid=$!
	for _ in $(seq 100); do [ -f "$d/server" ] && break; sleep 0.05; done
	local out="the server did not start"
	[ -f "$d/server" ] &&
		out=$(timeout 10 "$B/call" "$(awk '$1 == "address" { print $2 }' "$d/server")" bad 1 2>&1)
	if [ "$out" = "status 13" ]; then
		ok=0
	else
		echo "$out" >> "$BATS_FILE_TMPDIR/probe.log"
	fi
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return $ok
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
