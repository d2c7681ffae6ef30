#!/usr/bin/env bats
# TangramFS, the lock-based design: the locking primitives (Table 5.2)
# through tests/tfs/prim, POSIX consistency through locks (Table 5.3)
# through tests/tfs/raw under libtfs-posix.so, and the overhead study's
# counters (Table 5.8) through tests/bench/tfs-bench, TFS_NODE standing in
# for nodes.  Each test starts its own server.

bats_require_minimum_version 1.5.0

setup_file() {
	export B=$BATS_FILE_TMPDIR/bin
	mkdir -p "$B"
	gcc -std=gnu11 -O1 -g -Wall -Wextra -Werror -o "$B/prim" "$TG_TOP/tests/tfs/prim.c" \
		-L"$TG_TOP/lib" -ltfs -Wl,-rpath,"$TG_TOP/lib" -lpthread
	if command -v mpicc.mpich >/dev/null; then
		mpicc.mpich -O1 -Wall -Werror -o "$B/raw" "$TG_TOP/tests/tfs/raw.c"
		mpicc.mpich -O2 -Wall -Wextra -Werror -o "$B/tfs-bench" \
			"$TG_TOP/tests/bench/tfs-bench.c" -L"$TG_TOP/lib" -ltfs \
			-Wl,-rpath,"$TG_TOP/lib"
	fi
	export UCX_TLS=${UCX_TLS:-sm,self}
	export MPIR_CVAR_POLLS_BEFORE_YIELD=${MPIR_CVAR_POLLS_BEFORE_YIELD:-1}
	export PRELOAD=$TG_TOP/lib/libtfs-posix.so
}

start() {
	tfs-server -d srv 2>srv.log 3>&- &
	SERVER_PID=$!
	for _ in $(seq 100); do [ -f srv/server ] && break; sleep 0.05; done
	[ -f srv/server ]
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	mkdir -p bb pfs
	export TFS_SERVER=$PWD/srv/server TFS_BB_DIR=$PWD/bb TFS_PFS_DIR=$PWD/pfs
	export TFS_MOUNT=/tfs-test TFS_NODE=1 TFS_TIMEOUT=5
	unset TFS_LOCK_POLICY TFS_DESIGN
	SERVER_PID=
}

teardown() {
	if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
		tfs-server --stop srv || kill -9 "$SERVER_PID"
	fi
	{ jobs -p | xargs -r kill -9; wait; } 2>/dev/null || true
}

prim() {
	run -0 --separate-stderr "$B/prim" "$@"
}

# bench NP P M REPEATS WORKLOADS MODELS [OPTIONS]: the "counts" lines of
# tfs-bench, as "WORKLOAD MODEL REPEAT NODE ALPHA BETA GAMMA"
bench() {
	[ -x "$B/tfs-bench" ] || skip "mpicc.mpich is missing"
	run -0 --separate-stderr timeout 120 mpirun.mpich -n "$1" "$B/tfs-bench" -c -P "$2" \
		-M "$3" -r "$4" -S 4096 -w "$5" -m "$6" "${@:7}"
	counts=$(printf '%s\n' "$output" | awk '$1 == "counts" { $1 = ""; print substr($0, 2) }')
	[ -n "$counts" ]
}

# ---- the primitives (Table 5.2) ----------------------------------------------------

@test "lock: acquire, a held lock is free, release of a range, a file, a client" {
	start
	prim open:a wlock:0:10 lstats wlock:0:4096 rlock:100:5 lstats wlock:4096:1 lstats \
		unlock:0:1 unlockfile unlockclient unlock:0:1 lstats
	[ "$output" = 'open: ok
wlock: 0
lstats: alpha 1 beta 0 gamma 0
wlock: 0
rlock: 0
lstats: alpha 1 beta 0 gamma 0
wlock: 0
lstats: alpha 2 beta 0 gamma 0
unlock: 0
unlockfile: 0
unlockclient: 0
unlock: 0
lstats: alpha 2 beta 0 gamma 0' ]
}

@test "lock: the node's tokens grant again without the server; extend reaches the end" {
	start
	prim open:a policy:extend wlock:0:1 unlockfile wlock:8192:1 wlock:1000000:1 lstats
	[ "${lines[6]}" = 'lstats: alpha 1 beta 2 gamma 0' ]
	prim open:b policy:exact wlock:0:1 unlockfile wlock:0:1 wlock:8192:1 lstats
	# the manager of node 1 changed: counters start again with the new one
	[ "${lines[6]}" = 'lstats: alpha 2 beta 1 gamma 0' ]
}

@test "lock: no file is refused; an empty range is a no-op" {
	start
	prim wlock:0:1 unlockfile open:a wlock:0:0 unlock:0:0 lstats
	[ "$output" = 'wlock: -1 EBADF
unlockfile: -1 EBADF
open: ok
wlock: 0
unlock: 0
lstats: alpha 0 beta 0 gamma 0' ]
}

@test "lock: a read after a conflicting write on another node returns the new bytes, flushed first" {
	start
	printf 'old bytes' > pfs/f
	TFS_NODE=1 timeout 20 "$B/prim" open:f wlock:0:9 pwrite:0:NEW touch:w1 wait:done \
		lstats close > n1.out &
	n1=$!
	TFS_NODE=2 run -0 --separate-stderr timeout 20 "$B/prim" open:f wait:w1 rlock:0:9 \
		pread:0:9 lstats
	[ "$output" = 'open: ok
rlock: 0
pread: 9 "NEW bytes"
lstats: alpha 0 beta 0 gamma 1' ]
	# node 1 still has the file open: the revocation flushed its write
	[ "$(cat pfs/f)" = 'NEW bytes' ]
	touch done
	wait "$n1"
	[ "$(tail -2 n1.out)" = 'lstats: alpha 1 beta 0 gamma 0
close: 0' ]
	tfs-server --stop srv
	grep -q '^tfs-server: node 2: alpha 0 beta 0 gamma 1$' srv.log
}

@test "lock: a write after a read on another node revokes the read; the writer's bytes are read next" {
	start
	printf 'aaaa' > pfs/f
	TFS_NODE=1 timeout 20 "$B/prim" open:f rlock:0:4 pread:0:4 touch:r1 wait:w2 rlock:0:4 \
		pread:0:4 close > n1.out &
	n1=$!
	TFS_NODE=2 timeout 20 "$B/prim" open:f wait:r1 wlock:0:4 pwrite:0:bbbb touch:w2 sleep:3000 \
		close > n2.out &
	n2=$!
	wait "$n1"
	wait "$n2"
	[ "$(cat n1.out)" = 'open: ok
rlock: 0
pread: 4 "aaaa"
rlock: 0
pread: 4 "bbbb"
close: 0' ]
}

# ---- POSIX through locks (Table 5.3) ---------------------------------------------

@test "posix via locks: every rank (a node each) reads rank 0's write without fsync or close" {
	[ -x "$B/raw" ] || skip "mpicc.mpich is missing"
	start
	printf OLDOLDOL > pfs/f
	run -0 --separate-stderr env TFS_DESIGN=lock timeout 60 mpirun.mpich -n 3 \
		sh -c 'TFS_NODE=$PMI_RANK LD_PRELOAD=$PRELOAD exec "$0" "$@"' "$B/raw" \
		/tfs-test/f none
	[ "$(printf '%s\n' "$output" | sort)" = 'rank 1 read NEWNEWNE
rank 2 read NEWNEWNE' ]
	[ "$(cat pfs/f)" = NEWNEWNE ]
}

@test "posix via locks: a bad TFS_DESIGN is named and sync used" {
	start
	echo data > in
	run -0 --separate-stderr env TFS_DESIGN=bogus LD_PRELOAD="$PRELOAD" cp in /tfs-test/x
	[ "$stderr" = "libtfs-posix: TFS_DESIGN 'bogus' is not sync or lock; using sync" ]
}

# ---- Table 5.8 ------------------------------------------------------------------------

# N = 2 nodes, P = 4, M = 4: MP = 16 lock requests per node
@test "table 5.8: lock-exact: alpha = MP, beta = 0, gamma = 0 in every workload" {
	start
	bench 8 4 4 2 fpp,contiguous,strided lock-exact
	[ "$(printf '%s\n' "$counts" | wc -l)" -eq 12 ]
	run -0 awk '$5 != 16 || $6 != 0 || $7 != 0' <<< "$counts"
	[ -z "$output" ]
}

@test "table 5.8: fpp, lock-extend: alpha = P, beta = MP - P, gamma = 0" {
	start
	bench 8 4 4 2 fpp lock-extend
	[ "$(printf '%s\n' "$counts" | wc -l)" -eq 4 ]
	run -0 awk '$5 != 4 || $6 != 12 || $7 != 0' <<< "$counts"
	[ -z "$output" ]
}

# The conflicts depend on the arrival order: -o draws it at random.  One
# token is new per file (the first request's, which extend makes the
# whole file); every node's first request meets another node's token or
# is that one: 1 <= alpha + gamma <= P per node; the mean approaches
# C_P = H_4 = 2.08 (from below: the first node's requests meet fewer).
@test "table 5.8: contiguous, lock-extend: alpha + beta + gamma = MP, 1 <= alpha + gamma <= P, mean near H_P" {
	start
	bench 8 4 4 6 contiguous lock-extend -b -o 11
	[ "$(printf '%s\n' "$counts" | wc -l)" -eq 12 ]
	run -0 awk '$5 + $6 + $7 != 16 || $5 + $7 < 1 || $5 + $7 > 4' <<< "$counts"
	[ -z "$output" ]
	run -0 awk '{ a[$3] += $5 } END { for (r in a) if (a[r] != 1) print r, a[r] }' <<< "$counts"
	[ -z "$output" ]
	run -0 awk '{ s += $5 + $7; n++ } END { m = s / n; print m; exit !(m >= 1.3 && m <= 2.6) }' \
		<<< "$counts"
}

# Strided is M batches of the contiguous case (a barrier between): per
# node and batch 0 <= alpha + gamma <= P, at least 1 for every node but the
# one whose token already reached the batch; the mean per batch approaches
# H_P, so gamma grows with M while contiguous's does not.
@test "table 5.8: strided, lock-extend: gamma = M C_P on average, bounded per batch" {
	start
	bench 8 4 4 3 strided lock-extend -b -o 5
	[ "$(printf '%s\n' "$counts" | wc -l)" -eq 6 ]
	run -0 awk '$5 + $6 + $7 != 16 || $5 + $7 > 16' <<< "$counts"
	[ -z "$output" ]
	# per repeat: one new token; at least N - 1 = 1 node meets a conflict per batch
	run -0 awk '{ a[$3] += $5; g[$3] += $5 + $7 }
		END { for (r in a) if (a[r] != 1 || g[r] < 4 + 1) print r, a[r], g[r] }' <<< "$counts"
	[ -z "$output" ]
	run -0 awk '{ s += ($5 + $7) / 4; n++ } END { m = s / n; print m; exit !(m >= 1.3 && m <= 2.6) }' \
		<<< "$counts"
}
