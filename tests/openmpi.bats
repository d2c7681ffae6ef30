#!/usr/bin/env bats
# Programs of Open MPI (Debian's default MPI), traced: the tracer's MPI
# wrappers compiled once more against Open MPI's mpi.h (shim/mpi-ompi.c)
# record their calls as they record MPICH's, every constant by MPICH's
# number.  The same programs of tests/mpi/, built with each library and
# run on the same ranks, must give the same MPI records (buffer ids aside)
# and the same verdicts.

bats_require_minimum_version 1.5.0

setup_file() {
	command -v mpicc.mpich >/dev/null ||
		skip "mpicc.mpich is missing (make deps installs MPICH)"
	command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null ||
		skip "Open MPI's mpicc or mpirun is missing (make deps installs libopenmpi-dev)"
	[ "$(uname -m)" = x86_64 ] ||
		skip "the stubs that send Open MPI's calls to its wrappers are x86-64 only"
	export UCX_TLS=${UCX_TLS:-sm,self}
	export MPIR_CVAR_POLLS_BEFORE_YIELD=${MPIR_CVAR_POLLS_BEFORE_YIELD:-1}
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	export OMPI_MCA_rmaps_base_oversubscribe=1
	export B=$BATS_FILE_TMPDIR/bin
	local s=$TG_TOP/tests/mpi p
	mkdir -p "$B"
	for p in anysrc waits persist ring coll comms types sends info lifecycle mpiio mpiio-symlink typethreads collwait; do
		mpicc.mpich -O2 -Wall -o "$B/$p.mpich" "$s/$p.c"
		mpicc.openmpi -O2 -Wall -o "$B/$p.openmpi" "$s/$p.c"
	done
	if command -v mpif90.mpich >/dev/null && command -v mpif90.openmpi >/dev/null; then
		for p in ftn f08io; do
			mpif90.mpich -O2 -o "$B/$p.mpich" "$s/$p.f90"
			mpif90.openmpi -O2 -o "$B/$p.openmpi" "$s/$p.f90"
		done
	fi
}

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# records DIR RANK [LAYER]: the MPI (or LAYER's) records and definitions
# of DIR/rank-RANK.rec, "func ret args" with buffer ids written "b"
records() {
	trace-decode -l "${3:-mpi}" "$1/rank-$2.rec" |
		awk -F'\t' '/^#(proc|rank|excluded)\t/ { next }
			/^#/ { print; next }
			{ s = $8; for (i = 9; i <= NF; i++) s = s "\t" $i; print s }' |
		sed -E 's/=b[0-9]+/=b/g'
}

# same NP PROG [SED]: PROG of MPICH's and of Open MPI's, each traced on NP
# ranks (into m/ and o/), print the same lines and record, rank by rank,
# the same MPI calls; SED, when given, edits both records first
same() {
	local np=$1 prog=$2 r
	rm -rf m o
	run -0 --separate-stderr timeout 300 trace-run -o m -- mpirun.mpich -n "$np" "$B/$prog.mpich"
	local mout=$output
	run -0 --separate-stderr timeout 300 trace-run -o o -- mpirun.openmpi -n "$np" "$B/$prog.openmpi"
	[ "$(sort <<<"$output")" = "$(sort <<<"$mout")" ]
	! grep '^tangram: ' <<<"$stderr" || false
	for ((r = 0; r < np; r++)); do
		records m $r | sed -E "${3:-}" > m.$r
		records o $r | sed -E "${3:-}" > o.$r
		grep -q '^MPI_Init' o.$r
		diff -u m.$r o.$r
	done
}

@test "point to point, wildcard receives completed with their statuses: the same records as MPICH's" {
	same 4 anysrc
	grep -q $'^MPI_Recv\t0\t.*\tsource=-2\ttag=-1\t' o.0	# MPI_ANY_SOURCE, MPICH's -2
	same 2 sends
	same 4 ring
}

@test "communicators, topologies, derived datatypes, infos, init and finalize: the same records as MPICH's" {
	same 4 comms
	grep -q '^#comm' o.1
	# Open MPI gives the types of a type's contents as new duplicates,
	# each defined (#type) before the type that holds it
	same 2 types '/^#type/d'
	run -0 trace-decode -l mpi o/rank-0.rec
	grep -q $'^#type\trank=0\tid=t1\tcombiner=MPI_COMBINER_VECTOR\tints=\\[4,1,2\\]\taints=\\[\\]\ttypes=\\[MPI_DOUBLE\\]$' <<<"$output"
	local dup
	dup=$(grep -o $'combiner=MPI_COMBINER_STRUCT\tints=\\[2,1,1\\]\taints=\\[0,8\\]\ttypes=\\[MPI_INT,t[0-9]*' <<<"$output")
	dup=${dup##*,}
	[ -n "$dup" ] && [ "$dup" != t1 ]
	grep -q $'^#type\trank=0\tid='"$dup"$'\tcombiner=MPI_COMBINER_VECTOR\tints=\\[4,1,2\\]\taints=\\[\\]\ttypes=\\[MPI_DOUBLE\\]$' <<<"$output"
	same 2 info
	same 2 lifecycle
}

# the statuses of sends and of nonblocking collectives are undefined:
# each library leaves its own there
@test "requests: waits and tests of every kind, persistent requests, requests of MPI_PROC_NULL, nonblocking collectives" {
	local nost='s/\t(status|array_of_statuses)=[^\t]*//'
	same 2 waits "$nost"
	grep -q '^MPI_Waitall' o.0
	same 2 persist "$nost"
	same 4 coll "$nost"
}

@test "MPI-IO through a file view, shared and ordered writes: the verdicts MPICH's run gives, nothing unplaced" {
	mkdir m o
	(cd m && trace-run -o t -- mpirun.mpich -n 4 "$B/mpiio.mpich") > m.out
	(cd o && trace-run -o t -- mpirun.openmpi -n 4 "$B/mpiio.openmpi") > o.out
	[ "$(sort o.out)" = $'0: ok\n1: ok\n2: ok\n3: ok' ]
	# the launcher is not traced, the ranks are
	[ "$(ls o/t)" = $'rank-0.rec\nrank-1.rec\nrank-2.rec\nrank-3.rec' ]
	# the MPI-IO layer's conflicts, file by file
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" -l mpiio m/t
	local mv=${output//\/m\//\/X\/}
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" -l mpiio o/t
	[ "${output//\/o\//\/X\/}" = "$mv" ]
	grep -q '^mpiio    .*/o/data   *0       0       0       3$' <<<"$output"
	# both layers' verdicts (their POSIX calls differ: ROMIO keeps the
	# shared pointer in a hidden file, Open MPI's OMPIO in a mapped one)
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" m/t
	mv=$(grep 'recommended consistency' <<<"$output")
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" o/t
	[ "$(grep 'recommended consistency' <<<"$output")" = "$mv" ]
	grep -qx 'MPI-IO layer: recommended consistency: commit' <<<"$output"
	# OMPIO's mapping is not the program's I/O: nothing is unplaced
	[ -z "$stderr" ]
}

# Open MPI's sharedfp "individual" component cannot give a shared pointer:
# MPI_File_get_position_shared returns MPI_SUCCESS, leaves the offset and
# prints "NOT IMPLEMENTED".  The tracer asked before and after every
# shared-pointer call, so a traced run printed two lines per call that the
# untraced run did not (32 for this program until 2026-12-05); it now asks
# no file of a run told to use that component, nor again a file that gave
# no pointer.  Those calls are unplaced, and verify-io says so.
@test "Open MPI with --mca sharedfp individual: the traced program prints what the untraced one does; its shared-pointer calls are unplaced, and said to be" {
	mpicc.openmpi -O2 -Wall -o shared-mix "$TG_TOP/tests/mpi/shared-mix.c"
	run -0 --separate-stderr timeout 120 mpirun.openmpi -n 2 --mca sharedfp individual \
		./shared-mix 4
	# (its seek_shared says NOT IMPLEMENTED by itself)
	local want=$output n
	n=$(grep -c "NOT IMPLEMENTED" <<<"$stderr")
	rm -f log content
	run -0 --separate-stderr timeout 120 trace-run -o t -- mpirun.openmpi -n 2 \
		--mca sharedfp individual ./shared-mix 4
	[ "$output" = "$want" ]
	[ "$(grep -c "NOT IMPLEMENTED" <<<"$stderr")" -eq "$n" ]
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" -l mpiio t
	[[ $stderr == *"MPI-IO layer: "*" calls of 2 processes could not be placed in the file (#unplaced)"* ]]
}

# MPI_File_open of a path through a symbolic link: the MPI-IO layer takes
# the file the library opened inside the call.  It took the first, which
# under Open MPI is OMPIO's shared pointer's (NAME_cid-C-N.sm): two ranks
# writing their own files through lnA/ and lnB/ were a race on that one
# file at the MPI-IO layer, and a write through lnA/ and a read of the
# same file by its own name were two files there, the race missed
# (code_saturne's restart, whose directory is a link to the checkpoint's).
@test "MPI_File_open through a symbolic link: the MPI-IO layer knows the file, not OMPIO's shared pointer's (a false race and a missed one)" {
	local m v
	for m in mpich openmpi; do
		for v in two one; do
			rm -rf w t; mkdir -p w/dirA w/dirB; ln -s dirA w/lnA; ln -s dirB w/lnB
			(cd w && timeout 120 trace-run -o ../t -- "mpirun.$m" -n 2 "$B/mpiio-symlink.$m" $v)
			run --separate-stderr "$TG_TOP/pipelines/verify-io" t
			printf '%s\n' "$status" "$output" "$stderr" > $v.$m
		done
		[ "$(head -n 1 two.$m)" = 0 ]
		grep -q '^MPI-IO layer: recommended consistency: session$' two.$m
		[ "$(head -n 1 one.$m)" = 1 ]
		grep -q '^verify-io: MPI-IO layer: 1 conflicting pair is not synchronized' one.$m
		grep -q '^verify-io: POSIX layer: 1 conflicting pair is not synchronized' one.$m
	done
}

# A write, a file collective, a read of the written bytes by another rank
# (tests/mpi/collwait.c): MPI orders nothing there.  Under MPICH, ROMIO's
# collective waits and its messages are in the trace (posix at the POSIX
# layer); Open MPI's OMPIO at 2 ranks lets the reader through before the
# writer called, and the read finds no data.  The verdict follows what the
# run did: a race where the read did not see the write.  Until 2026-12-03
# a collective whose messages are unseen ordered every member's start
# before every end whatever the times said: posix for the race.
@test "a file collective that waited for nobody orders nothing: the verdict follows what the read saw, from the streams and from the default .cfg" {
	for m in mpich openmpi; do
		rm -rf t c.dat
		run -0 --separate-stderr timeout 120 trace-run -o t -- "mpirun.$m" -n 2 "$B/collwait.$m" c.dat
		local saw=$output
		run --separate-stderr "$TG_TOP/pipelines/verify-io" t
		if [[ $saw == *"not written"* ]]; then
			[ "$status" = 1 ]
			[[ $stderr == *"verify-io: POSIX layer: 1 conflicting pair is not synchronized"* ]]
		else
			[[ $saw == *"100 bytes: written"* ]]
			[[ $output == *"POSIX layer: recommended consistency: posix"* ]]
			[[ $stderr != *"POSIX layer: 1 conflicting pair"* ]]
		fi
		# at the MPI-IO layer, a race whatever the run did
		[[ $stderr == *"verify-io: MPI-IO layer: 1 conflicting pair is not synchronized"* ]]
		# and the same from the default .cfg, which keeps the times of
		# a file collective with no message seen in it (until
		# 2026-12-05 rebuilt: every start before every end, posix for
		# Open MPI's race)
		local want=$output st=$status
		trace-merge t/*.rec > app.cfg
		run --separate-stderr "$TG_TOP/pipelines/verify-io" app.cfg
		[ "$status" = "$st" ]
		[ "$(grep recommended <<<"$output")" = "$(grep recommended <<<"$want")" ]
		printf '%s\n' "$m: $saw" >> seen
	done
	cat seen
}

# Open MPI 4.1's persistent collectives are MPIX_Barrier_init and the like
# (mpi-ext.h), traced as MPI 4.0's MPI_*_init.  Until 2026-12-03 they were
# not: the MPI_Start of their requests named unknown handles, and an
# ordered run was a race.
@test "Open MPI's MPIX_*_init persistent collectives order as MPI 4.0's: a barrier or a broadcast started twice (session), a read after the first round (race)" {
	[ -r /usr/lib/x86_64-linux-gnu/openmpi/include/openmpi/mpiext/mpiext_pcollreq_c.h ] ||
		skip "this Open MPI has no persistent collectives"
	mpicc.openmpi -O2 -Wall -o mpix-pcoll "$TG_TOP/tests/mpi/mpix-pcoll.c"
	for mode in barrier bcast early; do
		rm -rf t f
		run -0 --separate-stderr timeout 120 trace-run -o t -- mpirun.openmpi -n 3 ./mpix-pcoll $mode f
		[ "$(sort <<<"$output")" = $'0: ok\n1: ok\n2: ok' ]
		run --separate-stderr "$TG_TOP/pipelines/verify-io" t
		[[ $stderr != *unknown-handle* ]]
		if [ $mode = early ]; then
			[ "$status" = 1 ]
			[[ $stderr == *"POSIX layer: 1 conflicting pair is not synchronized"* ]]
		else
			[ "$status" = 0 ]
			[[ $output == *"POSIX layer: recommended consistency: session"* ]]
		fi
	done
	run -0 trace-decode t/rank-0.rec
	[[ $output == *$'\tMPIX_Barrier_init\t'* ]]
}

# Two exclusive lock epochs on one target (tests/mpi/lazylock.c): rank 1's,
# held 500 ms, came first (it fetched the flag 0), so rank 0's write
# before its own epoch is not ordered before rank 1's read after.  Open
# MPI's osc/pt2pt takes the lock lazily: rank 0's MPI_Win_lock returns at
# once and its unlock starts before rank 1's, and hb-build, which ordered
# epochs by their unlocks' starts, put rank 0's first: session for a race.
# The unlocks' ends say otherwise, and epochs are ordered only where both
# agree.  The default osc (and MPICH) take the lock in MPI_Win_lock.
@test "lock epochs of a library that locks lazily (osc/pt2pt): the first epoch where the times tell, else none" {
	mpicc.openmpi -O2 -Wall -o lazylock "$TG_TOP/tests/mpi/lazylock.c"
	for osc in pt2pt default; do
		rm -rf t f
		if [ $osc = pt2pt ]; then
			run -0 --separate-stderr timeout 120 trace-run -o t -- env OMPI_MCA_osc=pt2pt mpirun.openmpi -n 3 ./lazylock f
		else
			run -0 --separate-stderr timeout 120 trace-run -o t -- mpirun.openmpi -n 3 ./lazylock f
		fi
		[[ $output == "flag 0, read "* ]]
		run -1 --separate-stderr "$TG_TOP/pipelines/verify-io" t
		[[ $stderr == *"verify-io: POSIX layer: 1 conflicting pair is not synchronized"* ]]
	done
}

# Open MPI gives the MPI_LB and MPI_UB of an MPI-1 struct back from
# MPI_Type_get_contents as themselves, predefined; the tracer, which frees
# the types it is given unless its table of predefined handles knows them
# (the table is made from Open MPI's mpi.h, which hides these two), freed
# them: "MPI_Type_free: invalid datatype", and ABINIT's MPI-IO runs
# aborted traced (exit 3), never untraced.
# The tracer then wrote the two as handles it did not know: the views
# were not placed, every access through them was #unplaced, and the
# MPI-IO layer's verdict left them out (ABINIT: session where a read after
# a barrier without sync needs posix).  They are named as under MPICH.
@test "a view built with MPI_LB and MPI_UB (Open MPI's, by their Fortran handles): the traced program runs as untraced, its writes and reads placed (a read of the other rank's after a barrier without sync: posix at the MPI-IO layer)" {
	mpicc.openmpi -O2 -Wall -o lbub "$TG_TOP/tests/mpi/lbub.c"
	run -0 --separate-stderr timeout 120 mpirun.openmpi -n 2 ./lbub
	local want=$(sort <<<"$output")
	cp lbub.dat want.dat
	rm lbub.dat
	run -0 --separate-stderr timeout 120 trace-run -o t -- mpirun.openmpi -n 2 ./lbub
	[ "$(sort <<<"$output")" = "$want" ]
	[[ $want == *"rank 1: rc 0 lb 0 extent 128 read 0.0"* ]]
	cmp want.dat lbub.dat
	trace-decode t/*.rec > text
	grep -q $'\tMPI_File_set_view\t.*\tetype=MPI_DOUBLE\tfiletype=t' text
	grep -q '^#type.*MPI_LB.*MPI_UB' text
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" t
	[[ $output == *"MPI-IO layer: recommended consistency: posix"* ]]
	! grep -q 'could not be placed' <<<"$stderr" || false
}

# A datatype's record is written just before the record of the call that
# made it, in the thread's own buffer; when the buffer went out between
# the two, another thread's records (the MPI library's progress thread's)
# came first in the stream, and overlap-find gave the definition to that
# thread's call: sorted early in the process, the older definition of the
# same id placed the view writes (ABINIT's second dataset: commit at the
# MPI-IO layer, where the ranks write apart; here 328 false pairs).
@test "datatypes made while another thread writes records: each view write placed by the type its call made, no pair (MPICH and Open MPI)" {
	local m
	for m in mpich openmpi; do
		rm -rf t tt.dat
		run -0 --separate-stderr timeout 300 trace-run -o t -- "mpirun.$m" -n 2 "$B/typethreads.$m"
		trace-decode t/*.rec > text
		# the case arose: a definition followed by another thread's record
		awk -F'\t' '/^#type/ { d = 1; next } d && $2 != 0 { n++ } { d = 0 } END { exit !n }' text
		overlap-find -l mpiio text > pairs
		[ "$(grep -c '^pair' pairs)" -eq 0 ]
		run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" t
		[[ $output == *"MPI-IO layer: recommended consistency: session"* ]]
	done
}

@test "a nonblocking write of many pieces through OMPIO (aiocbs it moves between aio_write and aio_return): each request is done at its aio_return, its own read-back ordered, exit 0" {
	mpicc.openmpi -O2 -Wall -o iwview "$TG_TOP/tests/mpi/iwview.c"
	run -0 --separate-stderr timeout 120 trace-run -o t -- mpirun.openmpi -n 2 ./iwview "$PWD/iw"
	[ "$(sort <<<"$output")" = $'rank 0: ok\nrank 1: ok' ]
	# (before: the 2,048 requests a rank submitted never ended, as their
	# aio_return named other aiocbs: "some conflicting accesses are not
	# synchronized", exit 1)
	run -0 --separate-stderr trace-decode t/rank-0.rec
	[ "$(grep -c $'\tposix\taio_write\t' <<<"$output")" -eq 2048 ]
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" t
	[ -z "$stderr" ]
	grep -qx 'POSIX layer: recommended consistency: session' <<<"$output"
}

# MPICH 4.0 (ch4:ucx) here opens no port; Open MPI does.  The two sides
# make the intercommunicator each from its own MPI_COMM_SELF, with other
# calls: it was two communicators of one member each, and every message
# and collective on it unmatched ("not synchronized").
@test "MPI_Comm_accept and MPI_Comm_connect: one intercommunicator, whose message, barrier or merge orders the server's write before the client's read" {
	mpicc.openmpi -O2 -Wall -o connect "$TG_TOP/tests/mpi/connect.c"
	for m in msg bar merge none; do
		run -0 --separate-stderr timeout 120 trace-run -o t$m -- mpirun.openmpi -n 2 ./connect "$PWD/f$m" $m
		[[ "$output" == "rank 1: read "* ]]
		run --separate-stderr "$TG_TOP/pipelines/verify-io" t$m
		echo "$m: $status $output $stderr"
		if [ $m = none ]; then
			[ "$status" -eq 1 ]
			[[ "$stderr" == *"not synchronized"* ]]
		else
			[ "$status" -eq 0 ]
			[ -z "$stderr" ]
			grep -qx 'POSIX layer: recommended consistency: session' <<<"$output"
		fi
	done
}

# A spawned process numbers its rank in a world of its own, from 0: the
# parent's rank 0 and the child's were taken for two launches at once, and
# verify-io advised tracing each into its own directory, which a spawn
# cannot do.  It says why it cannot judge such a run now.
@test "a run that starts processes with MPI_Comm_spawn: both traced, the program runs as untraced, verify-io says it cannot tell their ranks apart (exit 2)" {
	mpicc.openmpi -O2 -Wall -o spawn "$TG_TOP/tests/mpi/spawn.c"
	run -0 --separate-stderr timeout 120 trace-run -o t -- mpirun.openmpi -n 1 ./spawn "$PWD/f"
	[ "$output" = "child: read 16" ]
	[ "$(ls t | wc -l)" -eq 2 ]
	run -2 --separate-stderr "$TG_TOP/pipelines/verify-io" t
	[ -z "$output" ]
	[[ "$stderr" == "verify-io: rank 0 of run 1 is two processes (pids "*"): the run starts processes with MPI_Comm_spawn, whose ranks Tangram cannot tell from the parent's yet" ]]
}

@test "darray and subarray views of Open MPI's: placed on the bytes each rank wrote (flatten.bats)" {
	# MPI_ORDER_C is 0 in Open MPI, 56 in MPICH: recorded as MPICH's
	cat > sub.c <<-'EOF'
	#include <mpi.h>
	int main(int argc, char **argv)
	{
		int sizes[2] = { 4, 8 }, subs[2] = { 4, 2 }, starts[2] = { 0, 0 }, r, v[8], i;
		MPI_Datatype t;
		MPI_File fh;
		char path[] = "PWD/f";
		MPI_Init(&argc, &argv);
		MPI_Comm_rank(MPI_COMM_WORLD, &r);
		for (i = 0; i < 8; i++)
			v[i] = r + 1;
		starts[1] = 2 * r;
		MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t);
		MPI_Type_commit(&t);
		MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
		MPI_File_set_view(fh, 0, MPI_INT, t, "native", MPI_INFO_NULL);
		MPI_File_write_all(fh, v, 8, MPI_INT, MPI_STATUS_IGNORE);
		MPI_File_close(&fh);
		MPI_Finalize();
		return 0;
	}
	EOF
	sed -i "s|PWD|$PWD|" sub.c
	mpicc.openmpi -O2 -o sub sub.c
	run -0 --separate-stderr trace-run -o t -- mpirun.openmpi -n 4 ./sub
	run -0 --separate-stderr trace-decode t/rank-2.rec
	grep -q $'combiner=MPI_COMBINER_SUBARRAY\tints=\\[2,4,8,4,2,0,4,56\\]' <<<"$output"
	# rank 2 wrote ints 4-5 of each of the 4 rows of 8
	run -0 --separate-stderr overlap-find -l mpiio -a <(trace-decode t/*.rec)
	[ "$(awk -F'\t' '$1 == "access" && $3 == 2 && $7 == "W" { print $9 "-" $10 }' <<<"$output" | sort -n | tr '\n' ' ')" = "16-24 48-56 80-88 112-120 " ]
	! grep -q '^#unplaced' <<<"$output" || false
}

@test "a program of Open MPI built without its headers: its MPI and MPI-IO calls are traced, nothing is said" {
	cc -O2 -Wall -o openmpi "$TG_TOP/tests/mpi/openmpi.c" /usr/lib/x86_64-linux-gnu/libmpi.so.40
	run -0 --separate-stderr timeout 120 mpirun.openmpi -n 2 ./openmpi
	plain=$(sort <<<"$output")
	[ "$plain" = $'rank 0 of 2 read 1\nrank 1 of 2 read 0' ]
	rm -f shared out.*
	run -0 --separate-stderr timeout 120 trace-run -o t -- mpirun.openmpi -n 2 ./openmpi
	[ "$(sort <<<"$output")" = "$plain" ]
	! grep '^tangram: ' <<<"$stderr" || false
	[ -f t/rank-0.rec ] && [ -f t/rank-1.rec ]
	run -0 trace-decode t/rank-1.rec
	[ "$(grep -Ec $'\tposix\topen\t[0-9]+\tpath="[^"]*/out\\.1"' <<<"$output")" -eq 1 ]
	grep -q $'\tmpiio\tMPI_File_write_at\t0\tfh=f1\toffset=4\t.*datatype=MPI_INT' <<<"$output"
	grep -q $'\tmpi\tMPI_Barrier\t0\tcomm=MPI_COMM_WORLD' <<<"$output"
	# each rank reads what the other wrote before the barrier, no sync:
	# POSIX consistency, in both layers (the barrier orders them)
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" t
	grep -qx 'POSIX layer: recommended consistency: posix' <<<"$output"
	grep -qx 'MPI-IO layer: recommended consistency: posix' <<<"$output"
	[ -z "$stderr" ]
}

@test "Open MPI loaded where RTLD_NEXT does not look (a part dlopen'd RTLD_LOCAL, as mpi4py does): the calls reach Open MPI and are traced" {
	mpicc.openmpi -DPART -shared -fPIC -o libpart.so "$TG_TOP/tests/mpi/dlmpi.c"
	cc -O2 -Wall -o dlmpi "$TG_TOP/tests/mpi/dlmpi.c" -ldl
	run -0 --separate-stderr timeout 120 trace-run -o t -- mpirun.openmpi -n 2 ./dlmpi ./libpart.so "$PWD/f"
	# every call returned what Open MPI said (MPI_ERR_INTERN before)
	[ "$(sort <<<"$output")" = $'0: ok\n1: ok' ]
	run -0 trace-decode -l mpiio t/rank-1.rec
	[ "$(grep -c $'\tMPI_File_sync\t0\tfh=f1$' <<<"$output")" -eq 2 ]
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" t
	grep -qx 'MPI-IO layer: recommended consistency: mpiio' <<<"$output"
	[ -z "$stderr" ]
}

# Open MPI's Fortran bindings (mpif.h, use mpi, use mpi_f08) call its
# PMPI_ functions, as MPICH's mpi_f08 ones do (shim/pmpi.c)
@test "Fortran programs of Open MPI (mpif.h, use mpi_f08 with MPI-IO): the same records as MPICH's" {
	[ -x "$B/ftn.openmpi" ] || skip "mpif90.mpich or mpif90.openmpi is missing"
	same 2 ftn
	grep -q $'^MPI_Init\t0$' o.1
	grep -q $'^MPI_Finalize\t0$' o.1
	same 2 f08io '/\tparent=/d; /^#(type|comm)/d; /^$/d'
	# ROMIO's communication inside the MPI-IO calls (parent=) is MPICH's own
	for r in 0 1; do
		records m $r mpiio | grep -Ev $'\tparent=|^#(comm|type)\t' > m.$r
		records o $r mpiio | grep -Ev $'\tparent=|^#(comm|type)\t' > o.$r
		grep -q $'^MPI_File_write_at\t0\tfh=f1\t.*datatype=MPI_INTEGER\tstatus={bytes:16}' o.$r
		diff -u m.$r o.$r
	done
}

# python3 with Debian's mpi4py and h5py for MPI (make deps-apps): both
# link Open MPI (and h5py its HDF5) from extension modules that Python
# loads out of the global scope
pympi() {
	/usr/bin/python3 -c 'import importlib.util as u; assert u.find_spec("mpi4py") and u.find_spec("h5py._debian_h5py_mpi")' 2>/dev/null ||
		skip "Debian's python3-h5py-mpi is missing (make deps-apps installs it)"
}

@test "h5py with MPI (python3-h5py-mpi: Open MPI's HDF5, loaded RTLD_LOCAL after mpi4py's MPI_Init): runs as untraced, its HDF5 calls recorded with their classes and H5Pset_fapl_mpio, session" {
	pympi
	run -0 --separate-stderr timeout 300 mpirun.openmpi -n 3 /usr/bin/python3 \
		"$TG_TOP/tests/python/h5rows.py" "$PWD/u.h5"
	[ "$(grep -o '[0-9]: [a-z]*' <<<"$output" | sort)" = $'0: ok\n1: ok\n2: ok' ]
	# H5Pset_fapl_mpio, found by no lookup at mpi4py's first MPI call,
	# returned MPI_ERR_INTERN and the file was opened without MPI-IO
	# (h5py: "collective access for MPI-based driver only", exit 1)
	run -0 --separate-stderr timeout 300 trace-run -o t -- mpirun.openmpi -n 3 /usr/bin/python3 \
		"$TG_TOP/tests/python/h5rows.py" "$PWD/t.h5"
	[ "$(grep -o '[0-9]: [a-z]*' <<<"$output" | sort)" = $'0: ok\n1: ok\n2: ok' ]
	[ -z "$stderr" ]
	cmp u.h5 t.h5 || true	# (HDF5 may write times: only the outputs are compared)
	# predefined classes by name: the library's globals are found too
	run -0 trace-decode -l hdf5 t/rank-1.rec
	grep -q $'\tH5Pcreate\tP[0-9]*\tcls_id=H5P_FILE_ACCESS$' <<<"$output"
	[ "$(grep -c $'\tH5Dwrite\t0\t' <<<"$output")" -eq 2 ]
	# H5Pset_fapl_mpio takes Open MPI's handles: recorded through the
	# HDF5 wrappers built for Open MPI, the MPI_Comm_dup it makes inside
	grep -q $'\tH5Pset_fapl_mpio\t0\tfapl_id=P[0-9]*\tcomm=MPI_COMM_WORLD\tinfo=MPI_INFO_NULL$' <<<"$output"
	run -0 trace-decode t/rank-1.rec
	[ "$(awk -F'\t' '$8 == "H5Pset_fapl_mpio" { s[$3] = 1 } $8 == "MPI_Comm_dup" && $NF ~ /^parent=/ { p[substr($NF, 8)]++ } END { for (k in p) if (k in s) n += p[k]; print n + 0 }' <<<"$output")" -ge 2 ]
	run -0 trace-decode -l mpiio t/rank-1.rec
	grep -q $'\tMPI_File_open\t0\t' <<<"$output"
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" t
	grep -qx 'POSIX layer: recommended consistency: session' <<<"$output"
	grep -qx 'MPI-IO layer: recommended consistency: session' <<<"$output"
}

@test "mpi4py's MPI-IO (python3-mpi4py, Open MPI): write_at_all, sync-barrier-sync, the neighbour's block read; write_ordered placed after the blocks" {
	pympi
	run -0 --separate-stderr timeout 300 trace-run -o t -- mpirun.openmpi -n 3 /usr/bin/python3 \
		"$TG_TOP/tests/python/mpiio.py" "$PWD/f"
	[ "$(grep -o '[0-9]: [a-z]*' <<<"$output" | sort)" = $'0: ok\n1: ok\n2: ok' ]
	[ -z "$stderr" ]
	trace-decode t/*.rec > text
	run -0 overlap-find -l mpiio -a text
	[ "$(awk -F'\t' '$1 == "access" && $8 == "MPI_File_write_ordered" { print $3, $9, $10 }' <<<"$output" | sort)" = \
		$'0 48 56\n1 56 64\n2 64 72' ]
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" t
	grep -qx 'MPI-IO layer: recommended consistency: mpiio' <<<"$output"
}

@test "Open MPI's lock types and MPI_MODE_* bits are recorded by MPICH's numbers: the lock epochs of rmalock order its ranks as under MPICH (session), and so do its flags polled in MPI_Win_lock_all epochs; epochs without operations, which Open MPI never locks, order nothing" {
	mpicc.openmpi -O2 -Wall -o rmalock "$TG_TOP/tests/mpi/rmalock.c"
	rm -rf t
	run -0 --separate-stderr trace-run -o t -- mpirun.openmpi -n 3 ./rmalock emptylock "$PWD/f.empty"
	run -1 --separate-stderr "$TG_TOP/pipelines/verify-io" t
	[[ $stderr =~ conflicting\ pairs?\ (are|is)\ not\ synchronized ]]
	for mode in mutex flag allflag; do
		rm -rf t
		run -0 --separate-stderr trace-run -o t -- mpirun.openmpi -n 3 ./rmalock $mode "$PWD/f.$mode"
		[ "$(sort <<<"$output")" = $'0: ok\n1: ok\n2: ok' ]
		run -0 trace-decode -l mpi t/rank-1.rec
		[ $mode = allflag ] ||
			grep -qE $'\tMPI_Win_lock\t0\tlock_type=23[45]\trank=[0-9]\tassert=0\t' <<<"$output"
		run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" t
		grep -qx 'POSIX layer: recommended consistency: session' <<<"$output"
	done
	# MPI_MODE_NOCHECK (1 in Open MPI) as MPICH's 1024
	cat > fence.c <<-'C'
	#include <mpi.h>
	int main(int argc, char **argv)
	{
		int *b;
		MPI_Win w;
		MPI_Init(&argc, &argv);
		MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &b, &w);
		MPI_Win_fence(MPI_MODE_NOPRECEDE | MPI_MODE_NOSTORE, w);
		MPI_Win_lock_all(MPI_MODE_NOCHECK, w);
		MPI_Win_unlock_all(w);
		MPI_Win_fence(MPI_MODE_NOSUCCEED, w);
		MPI_Win_free(&w);
		MPI_Finalize();
		return 0;
	}
	C
	mpicc.openmpi -O2 -o fence fence.c
	rm -rf t
	run -0 trace-run -o t -- mpirun.openmpi -n 2 ./fence
	run -0 trace-decode -l mpi t/rank-0.rec
	grep -q $'\tMPI_Win_fence\t0\tassert=10240\t' <<<"$output"
	grep -q $'\tMPI_Win_lock_all\t0\tassert=1024\t' <<<"$output"
	grep -q $'\tMPI_Win_fence\t0\tassert=16384\t' <<<"$output"
}

# Until 2026-12-04 OMPIO's own files, which every rank's MPI_File_open
# makes and removes (FILE.locktest.0 beside the file, one in its session
# directory), were taken for the program's names: a removal that found
# one gone (another rank's) before another rank made it again was a race
# of names, in some runs and in every default .cfg.
@test "Open MPI: every rank opens one file on MPI_COMM_SELF (tests/mpi/selfopen.c): OMPIO's own files made and removed inside MPI_File_open are not the program's names (session, from the streams and from the default .cfg)" {
	mpicc.openmpi -O2 -Wall -o selfopen "$TG_TOP/tests/mpi/selfopen.c"
	for n in 2 4; do
		rm -rf t f app.cfg
		run -0 --separate-stderr trace-run -o t -- mpirun.openmpi -n $n ./selfopen "$PWD/f"
		[ "$output" = ok ]
		run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" t
		grep -qx 'POSIX layer: recommended consistency: session' <<<"$output"
		run -0 --separate-stderr trace-merge -o app.cfg t/*.rec
		run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" app.cfg
		grep -qx 'POSIX layer: recommended consistency: session' <<<"$output"
	done
}

# Until 2026-12-04 the processes of a launcher of the other MPI library
# (hydra's mpirun starting an Open MPI program, Debian's /usr/bin/mpirun
# under ExaML's wrapper; Open MPI's an MPICH one), each a world of one,
# were all rank 0 of run 1: verify-io refused the trace.
@test "a launcher of the other MPI library: each process a world of one, a run of its own, the runs unordered: their writes of one line are a race, either way round" {
	mpicc.mpich -O2 -Wall -o sameline.mpich "$TG_TOP/tests/mpi/sameline.c"
	mpicc.openmpi -O2 -Wall -o sameline.openmpi "$TG_TOP/tests/mpi/sameline.c"
	for how in "mpirun.mpich -n 2 ./sameline.openmpi" "mpirun.openmpi -n 2 ./sameline.mpich"; do
		rm -rf t f
		timeout 120 trace-run -o t -- $how "$PWD/f" < /dev/null > out
		[ "$(cat out)" = $'rank 0 of 1\nrank 0 of 1' ]
		run -0 bash -c 'ls t | grep "^rank-"'
		[ "$output" = $'rank-0.rec\nrank-0.run2.rec' ]
		run -1 --separate-stderr "$TG_TOP/pipelines/verify-io" t
		grep -Eq "^posix +$PWD/f +0 +1 +0 +0$" <<<"$output"
	done
}
