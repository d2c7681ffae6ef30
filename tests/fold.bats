#!/usr/bin/env bats
# Folding of repeated polls (issue 20): a poll call (aio_error, the
# MPI_Test family, MPI_Iprobe...) whose record would be identical to the
# thread's previous one but for seq and times is counted, not written, and
# a REPEAT record (#repeat) says how many, from when to when.  Nothing is
# dropped: the counts add up to the calls the program made, folded calls
# take no seq, and TANGRAM_FOLD=0 writes every call.

bats_require_minimum_version 1.5.0

setup() {
	cd "$BATS_TEST_TMPDIR"
	SHIM=$TG_TOP/lib/libtangram.so
	export UCX_TLS=sm,self MPIR_CVAR_POLLS_BEFORE_YIELD=1
}

need_mpi() { command -v mpicc.mpich >/dev/null || skip "mpicc.mpich is missing"; }

# calls_in FILE: aio_error records plus the calls #repeat lines fold, of
# every process in the decoded FILE
calls_in() {
	awk -F'\t' '$8 == "aio_error" { n++ }
		$1 == "#repeat" { sub(/^count=/, "", $5); n += $5 } END { print n + 0 }' "$1"
}

# printed FILE: the sum of the counts polls printed (polls=K, child=K)
printed() { awk -F= '{ n += $2 } END { print n + 0 }' "$1"; }

# calls FUNC FILE: the call lines of FUNC in the decoded FILE
calls() { awk -F'\t' -v f="$1" '$8 == f' "$2"; }

# folded RANK SEQ FILE: the calls the #repeat lines of call SEQ of RANK
# add up to
folded() {
	awk -F'\t' -v r="rank=$1" -v s="seq=$2" '$1 == "#repeat" && $2 == r && $4 == s {
		sub(/^count=/, "", $5); n += $5 } END { print n + 0 }' "$3"
}

@test "MPI_File_iwrite_at + MPI_Wait: ROMIO's aio_error polls are folded, the rank streams stay small" {
	need_mpi
	mpicc.mpich -O2 -Wall -o iwbig "$TG_TOP/tests/mpi/iwbig.c"
	run -0 timeout 120 trace-run -o t -- mpirun.mpich -n 2 ./iwbig "$PWD/f.dat" 16
	for r in 0 1; do
		run -0 trace-decode "t/rank-$r.rec"
		echo "$output" > "d$r"
		# one request per rank: aio_error answers EINPROGRESS, folded
		# however often it is asked, then 0 once; a few more if other
		# records of the thread come between two polls
		n=$(calls aio_error "d$r" | wc -l)
		[ "$n" -ge 2 ] && [ "$n" -lt 10 ]
		first=$(calls aio_error "d$r" | awk -F'\t' '$9 == 115 { print $3; exit }')
		[ -n "$first" ]
		[ "$(folded "$r" "$first" "d$r")" -gt 0 ]
		calls aio_error "d$r" | tail -1 | grep -q $'\taio_error\t0\t'
		# folded calls take no seq: the rank's seqs run on without a gap
		awk -F'\t' '$1 !~ /^#/ { print $3 }' "d$r" | sort -n |
			awk 'NR > 1 && $1 != p + 1 { print "gap after " p; bad = 1 } { p = $1 } END { exit bad }'
		# a few hundred records: the program's own and MPI's set-up
		[ "$(grep -vc '^#' "d$r")" -lt 2000 ]
	done
}

@test "TANGRAM_FOLD=0: every aio_error poll the default folds is written" {
	need_mpi
	mpicc.mpich -O2 -Wall -o iwbig "$TG_TOP/tests/mpi/iwbig.c"
	run -0 timeout 120 trace-run -o t1 -- mpirun.mpich -n 2 ./iwbig "$PWD/f.dat" 16
	trace-decode t1/rank-0.rec t1/rank-1.rec > d1
	grep -q '^#repeat' d1
	TANGRAM_FOLD=0 run -0 timeout 120 trace-run -o t0 -- mpirun.mpich -n 2 ./iwbig "$PWD/f.dat" 16
	trace-decode t0/rank-0.rec t0/rank-1.rec > d0
	[ "$(calls aio_error d0 | wc -l)" -gt 1000 ]
	! grep -q '^#repeat' d0 || false
}

@test "an application's MPI_Test and MPI_Iprobe loops are folded; the completing calls are written; the counts add up to its calls" {
	need_mpi
	mpicc.mpich -O2 -Wall -o testloop "$TG_TOP/tests/mpi/testloop.c"
	run -0 timeout 60 trace-run -o t -- mpirun.mpich -n 2 ./testloop
	tests=$(grep -oE 'tests=[0-9]+' <<< "$output" | cut -d= -f2)
	probes=$(grep -oE 'probes=[0-9]+' <<< "$output" | cut -d= -f2)
	[ "$tests" -gt 1 ] && [ "$probes" -gt 1 ]
	run -0 trace-decode t/rank-0.rec t/rank-1.rec
	echo "$output" > d
	for f in MPI_Test:$tests MPI_Iprobe:$probes; do
		calls "${f%:*}" d > tl
		[ "$(wc -l < tl)" -ge 2 ] && [ "$(wc -l < tl)" -le 4 ]
		grep -q $'\tflag=0\t' <(head -1 tl)
		tail -1 tl | grep -q $'\tflag=1\t'
		sum=$(wc -l < tl)
		for s in $(cut -f3 tl); do sum=$((sum + $(folded 0 "$s" d))); done
		[ "$sum" -eq "${f#*:}" ]
	done
	tail -1 <(calls MPI_Test d) | grep -q $'\tstatus={src:1,tag:7}$'
	tail -1 <(calls MPI_Iprobe d) | grep -q $'\tstatus={src:1,tag:8}$'
	# trace-report counts the folded calls as the calls they are
	run -0 trace-report -o r.html t/rank-0.rec t/rank-1.rec
	mpi=$(awk -F'\t' '$7 == "mpi" { n++ } $1 == "#repeat" { sub(/^count=/, "", $5); n += $5 }
		END { print n }' d)
	grep -q ", mpi $mpi, " r.html
	# the messages still complete at the MPI_Test and MPI_Recv that say so
	run -0 hb-build -s -o g.hb d
	grep -qx $'edges.message\t2' <<< "$output"
	grep -qx $'problems\t0' <<< "$output"
}

@test "TANGRAM_FOLD=0: every MPI_Test and MPI_Iprobe of the loops is written, and hb-build finds the same graph as folded" {
	need_mpi
	mpicc.mpich -O2 -Wall -o testloop "$TG_TOP/tests/mpi/testloop.c"
	for f in 1 0; do
		TANGRAM_FOLD=$f run -0 timeout 60 trace-run -o t$f -- mpirun.mpich -n 2 ./testloop
		tests=$(grep -oE 'tests=[0-9]+' <<< "$output" | cut -d= -f2)
		probes=$(grep -oE 'probes=[0-9]+' <<< "$output" | cut -d= -f2)
		trace-decode t$f/rank-0.rec t$f/rank-1.rec > d$f
		run -0 hb-build -s -o g$f.hb d$f
		grep -vE '^(records|mpi|calls|run)'$'\t' <<< "$output" > s$f
	done
	grep -q '^#repeat' d1
	[ "$(calls MPI_Test d0 | wc -l)" -eq "$tests" ]
	[ "$(calls MPI_Iprobe d0 | wc -l)" -eq "$probes" ]
	! grep -q '^#repeat' d0 || false
	diff s0 s1
}

@test "#repeat survives trace-compress (lossless: the same text) and trace-merge; -j prints it as a def" {
	need_mpi
	mpicc.mpich -O2 -Wall -o testloop "$TG_TOP/tests/mpi/testloop.c"
	run -0 timeout 60 trace-run -o t -- mpirun.mpich -n 2 ./testloop
	trace-decode t/rank-0.rec > want
	grep -q '^#repeat' want
	run -0 trace-compress -t lossless -o l.cfg t/rank-0.rec
	run -0 trace-decode l.cfg
	diff want <(printf '%s\n' "$output")
	# default timing: the calls' times are aggregated, #repeat is exact
	trace-decode t/rank-0.rec t/rank-1.rec > both
	run -0 trace-merge -o m.cfg t/rank-0.rec t/rank-1.rec
	run -0 trace-decode m.cfg
	diff <(grep '^#repeat' both) <(grep '^#repeat' <<< "$output")
	# and the merge on MPI, which ships the streams between ranks
	run -0 timeout 120 mpirun.mpich -n 2 trace-merge-mpi -o mm.cfg t/rank-0.rec t/rank-1.rec
	run -0 trace-decode mm.cfg
	diff <(grep '^#repeat' both) <(grep '^#repeat' <<< "$output")
	run -0 trace-decode -j t/rank-0.rec
	grep -qE '^\{"def":"repeat","rank":"0","tid":0,"seq":[0-9]+,"count":[0-9]+,"tstart_ns":[0-9]+,"tend_ns":[0-9]+\}$' <<< "$output"
}

@test "trace-decode -l and -t print a #repeat line with the call it repeats, from .rec and .cfg" {
	TANGRAM_DIR=p LD_PRELOAD=$SHIM run -0 "$TG_TOP/build/apps/polls" exit 100
	run -0 trace-compress -o p.cfg p/*.rec
	for f in p/*.rec p.cfg; do
		run -0 trace-decode "$f"
		[ "$(grep -c '^#repeat' <<< "$output")" -eq 1 ]
		run -0 trace-decode -l posix "$f"
		[ "$(grep -c '^#repeat' <<< "$output")" -eq 1 ]
		run -0 trace-decode -t "$f"
		[ "$(grep -c '^#repeat' <<< "$output")" -eq 1 ]
		run -0 trace-decode -l mpi,stdio "$f"
		[ "$(grep -c '^#repeat' <<< "$output")" -eq 0 ]
	done
}

@test "overlap-find and conflict-check read a trace with #repeat lines as without" {
	need_mpi
	mpicc.mpich -O2 -Wall -o iwbig "$TG_TOP/tests/mpi/iwbig.c"
	run -0 timeout 120 trace-run -o t -- mpirun.mpich -n 2 ./iwbig "$PWD/f.dat" 4
	trace-decode t/rank-0.rec t/rank-1.rec > d
	grep -q '^#repeat' d
	grep -v '^#repeat' d > plain
	run -0 overlap-find d
	echo "$output" > o1
	run -0 overlap-find plain
	diff o1 <(printf '%s\n' "$output")
	run -0 hb-build -o g.hb d
	run -0 conflict-check --hb g.hb o1
}

@test "folded calls still to be written go out at exit, fork (not into the child), thread exit, exit with the thread idle and a fatal signal" {
	# each way records reach the stream: mapped windows, buffers, at once
	for fm in auto:exit auto:fork auto:thread auto:idle auto:term buffered:exit buffered:fork \
		buffered:thread buffered:idle buffered:term always:exit always:thread; do
		m=${fm#*:}
		rm -rf p
		TANGRAM_FLUSH=${fm%:*} TANGRAM_DIR=p LD_PRELOAD=$SHIM run "$TG_TOP/build/apps/polls" "$m" 1000
		echo "$output" > out
		[ "$(printed out)" -eq $([ $m = fork ] && echo 2000 || echo 1000) ]
		run -0 trace-decode p/*.rec
		echo "$output" > d
		echo "$fm: $(calls_in d) calls in the trace"
		[ "$(calls_in d)" -eq "$(printed out)" ]
		# each process: one record, the first answer, and a REPEAT
		[ "$(grep -c $'\taio_error\t0\t' d)" -eq $([ $m = fork ] && echo 2 || echo 1) ]
		grep -q $'^#repeat\t.*\tcount=999\t' d
	done
	# fork: the parent's REPEAT comes before its fork record
	rm -rf p
	TANGRAM_DIR=p LD_PRELOAD=$SHIM run -0 "$TG_TOP/build/apps/polls" fork 10
	trace-decode p/*.rec > d
	awk -F'\t' '$1 == "#repeat" || $8 == "fork" { print $1 == "#repeat" ? "repeat" : $9 == 0 ? "child" : "parent" }' d > got
	printf 'repeat\nparent\nchild\nrepeat\n' > want
	diff want got
}

@test "a poll loop killed by SIGKILL: the calls folded up to its last second are in the file" {
	TANGRAM_DIR=p LD_PRELOAD=$SHIM run -137 "$TG_TOP/build/apps/polls" kill 2
	polls=$(printed <(echo "$output"))
	run trace-decode p/*.rec
	echo "$output" > d
	# one REPEAT a second, the calls of the last one lost with the process
	[ "$(grep -c '^#repeat' d)" -ge 1 ]
	[ "$(calls_in d)" -le "$polls" ]
	[ "$(calls_in d)" -gt $((polls / 4)) ]
}

@test "trace-export: a #repeat is a repeat event in chrome and a row of repeats in sqlite" {
	TANGRAM_DIR=p LD_PRELOAD=$SHIM run -0 "$TG_TOP/build/apps/polls" exit 100
	trace-decode p/*.rec > d
	seq=$(awk -F'\t' '$1 == "#repeat" { sub(/^seq=/, "", $4); print $4 }' d)
	[ -n "$seq" ]
	run -0 trace-export -f chrome -o t.json p/*.rec
	grep -q "\"cat\":\"repeat\",\"name\":\"repeat\",\"args\":{\"seq\":$seq,\"count\":99}" t.json
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' t.json
	command -v sqlite3 >/dev/null || skip "sqlite3 is missing"
	run -0 trace-export -f sqlite -o t.db p/*.rec
	run -0 sqlite3 t.db "SELECT thread, seq, count FROM repeats"
	[ "$output" = "0|$seq|99" ]
	# the calls of aio_error, counted from the database
	run -0 sqlite3 t.db "SELECT (SELECT count(*) FROM calls WHERE function = 'aio_error') +
		(SELECT sum(count) FROM repeats)"
	[ "$output" = 100 ]
}
