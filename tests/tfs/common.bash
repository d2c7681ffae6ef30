# common.bash - loaded by the TangramFS bats files: which transport this
# run of a file uses, the teardown, and prim.  A file named *-ucx.bats (a symlink to the
# sockets one) runs on UCX: servers listen on ucx:127.0.0.1:0 and
# TangramFS's UCX gets TFS_UCX_TLS=tcp,sm,self (a UCP listener needs a
# sockaddr transport).  The UCX plugin is this tree's, wherever the
# tfs-server under test is (make check SANITIZE=1 runs build/san/bin's).

# pick_transport PROBE: set TFS_TRANSPORT and DEFADDR; on UCX, when the
# command PROBE fails, TFS_SKIP says why (its log: $BATS_FILE_TMPDIR/probe.log).
pick_transport() {
	[ -f "$TG_TOP/lib/libtfs-ucx.so" ] && export TFS_UCX_LIB=$TG_TOP/lib/libtfs-ucx.so
	case $BATS_TEST_FILENAME in
	*-ucx.bats)
		export TFS_TRANSPORT=ucx DEFADDR=ucx:127.0.0.1:0
		export TFS_UCX_TLS=${TFS_UCX_TLS:-tcp,sm,self}
		"$1" || export TFS_SKIP="UCX cannot connect over loopback here: $(tail -n 1 "$BATS_FILE_TMPDIR/probe.log")"
		;;
	*)
		export TFS_TRANSPORT=sockets DEFADDR=tcp:127.0.0.1:0
		;;
	esac
}

# Stop the test's server (stage-out) and every process the test left.
teardown() {
	if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
		tfs-server --stop srv || kill -9 "$SERVER_PID"
	fi
	{ jobs -p | xargs -r kill -9; wait; } 2>/dev/null || true
}

# prim ARGS...: tests/tfs/prim, which must succeed
prim() {
	run -0 --separate-stderr "$B/prim" "$@"
}

# ucx_probe: can a UCX server be started and reached?  (A refused secret is
# the answer; $B/call is tests/tfs/call.c, built by the file.)
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
