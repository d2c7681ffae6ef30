# transport.bash - loaded by the TangramFS bats files: which transport
# this run of a file uses.  A file named *-ucx.bats (a symlink to the
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
