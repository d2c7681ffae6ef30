#!/usr/bin/env bats
# Two runs into one trace directory, analysed together: tests/mpi/restart.c
# writes a checkpoint on 2 ranks under one mpirun.mpich, then reads it back
# on 3 ranks under the next, both traced by trace-run into the same
# directory.  The second run's streams must not replace the first's
# (rank-R.run2.rec), trace-decode numbers the ranks of both run-major
# (#run lines), and hb-build orders every rank's end of the first run
# before every rank's start of the second, so that verify-io and
# conflict-check find the cross-run RAW pairs and report them ordered.
# A single run is traced and decoded as it always was.  The tools are
# always given files.

bats_require_minimum_version 1.5.0

setup_file() {
	export W=$BATS_FILE_TMPDIR
	command -v mpicc.mpich >/dev/null || return 0
	export UCX_TLS=${UCX_TLS:-sm,self}
	export MPIR_CVAR_POLLS_BEFORE_YIELD=${MPIR_CVAR_POLLS_BEFORE_YIELD:-1}
	mpicc.mpich -O2 -Wall -o "$W/restart" "$TG_TOP/tests/mpi/restart.c" || return 0
	(cd "$W" && timeout 120 trace-run -o t -- mpirun.mpich -n 2 ./restart write ckpt &&
		timeout 120 trace-run -o t -- mpirun.mpich -n 3 ./restart read ckpt &&
		timeout 120 trace-run -o one -- mpirun.mpich -n 2 ./restart write single) \
		>/dev/null || return 0
	(cd "$W" && trace-decode t/*.rec > text && overlap-find text > pairs &&
		hb-build text > app.hb 2> hb.err) || return 0
	touch "$W/mpi-ok"
}

setup() {
	[ -f "$W/mpi-ok" ] || skip "mpicc.mpich is missing, or tracing tests/mpi/restart.c failed"
	cd "$BATS_TEST_TMPDIR"
}

# ---- names --------------------------------------------------------------------------

@test "a second run into the directory keeps the first's streams: rank-R.rec, then rank-R.run2.rec" {
	run -0 ls "$W/t"
	[ "$output" = "$(printf '%s\n' rank-0.rec rank-0.run2.rec rank-1.rec rank-1.run2.rec rank-2.run2.rec)" ]
	run -0 trace-decode "$W/t/rank-0.rec"
	grep -q $'^#proc\trank=0\tworld=2\t.*argv="./restart" "write" "ckpt"$' <<<"$output"
	run -0 trace-decode "$W/t/rank-0.run2.rec"
	grep -q $'^#proc\trank=0\tworld=3\t.*argv="./restart" "read" "ckpt"\trun=2$' <<<"$output"
}

@test "a third run is run 3, also for a process that never learns an MPI rank" {
	cp -r "$W/t" t
	run -0 trace-run -o t -- cat /dev/null
	run -0 --separate-stderr bash -c 'ls t | grep -v "^rank-"'
	[[ $output =~ ^pid-[0-9]+\.run3\.rec$ ]]
	run -0 --separate-stderr trace-decode t/*.rec
	grep -q $'^#run\trun=3\tfirst=5\tworld=0$' <<<"$output"
	grep -q $'^#proc\trank=p[0-9]*\tworld=0\t.*argv="cat" "/dev/null"\trun=3$' <<<"$output"
}

@test "a single run keeps its names and decodes as before: no #run line, no run=" {
	run -0 ls "$W/one"
	[ "$output" = "$(printf '%s\n' rank-0.rec rank-1.rec)" ]
	run -0 --separate-stderr trace-decode "$W"/one/*.rec
	! grep -q '^#run' <<<"$output" || false
	! grep -q 'run=' <<<"$output" || false
	[ "$(grep -c '^#proc' <<<"$output")" -eq 2 ]
}

# ---- numbering ----------------------------------------------------------------------

@test "trace-decode numbers the runs' ranks run-major and says so in #run lines" {
	run -0 grep '^#run' "$W/text"
	[ "${lines[0]}" = $'#run\trun=1\tfirst=0\tworld=2' ]
	[ "${lines[1]}" = $'#run\trun=2\tfirst=2\tworld=3' ]
	[ "${#lines[@]}" -eq 2 ]
	run -0 bash -c "grep -v '^#' '$W/text' | cut -f1 | sort -u"
	[ "$output" = "$(printf '%s\n' 0 1 2 3 4)" ]
	run -0 grep $'^#rank\t' "$W/text"
	[ "${#lines[@]}" -eq 5 ]
	grep -q $'^#rank\tpid=[0-9]*\trank=4\tworld=3$' "$W/text"
	# -r selects by the numbers printed
	run -0 --separate-stderr trace-decode -r 3 "$W"/t/*.rec
	[ "$(grep -v '^#' <<<"$output" | cut -f1 | sort -u)" = 3 ]
}

@test "trace-decode --json has the runs too" {
	run -0 --separate-stderr trace-decode --json "$W"/t/*.rec
	grep -q '^{"def":"run","run":2,"first":2,"world":3}$' <<<"$output"
	grep -q '"def":"proc","rank":4,.*"run":2}$' <<<"$output"
}

# ---- order --------------------------------------------------------------------------

@test "hb-build: each run's collectives match within the run; run edges join the runs" {
	[ ! -s "$W/hb.err" ]
	run -0 hb-build --stats "$W/text"
	grep -qx $'ranks\t5' <<<"$output"
	grep -qx $'edges.run\t5' <<<"$output"
}

@test "hb-query: the first run's last records happen before the second run's records, never after" {
	local last0 last1 open4
	last0=$(awk -F'\t' '$1 == "0" { s = $3 } END { print s }' "$W/text")
	last1=$(awk -F'\t' '$1 == "1" { s = $3 } END { print s }' "$W/text")
	open4=$(awk -F'\t' '$1 == "4" && $8 == "MPI_File_open" { print $3; exit }' "$W/text")
	run -0 hb-query "$W/app.hb" "0:$last0" "4:$open4"
	[ "$output" = yes ]
	run -0 hb-query "$W/app.hb" "1:$last1" "3:1"
	[ "$output" = yes ]
	run -0 hb-query "$W/app.hb" "4:$open4" "0:$last0"
	[ "$output" = no ]
}

@test "conflict-check: the cross-run RAW pairs are found and ordered (close, then the next run's open)" {
	run -0 --separate-stderr conflict-check -v --hb "$W/app.hb" --model session "$W/pairs"
	local raw
	raw=$(grep -c '^RAW-D'$'\t'"$W/ckpt"$'\t''[01]:[0-9]* pwrite W .*'$'\t''[234]:[0-9]* pread R ' <<<"$output")
	[ "$raw" -ge 2 ]
	[ "$(grep -c '^RAW-D' <<<"$output")" -eq "$raw" ]
	[ "$(grep '^RAW-D' <<<"$output" | grep -c $'\tsession=ok\tsynchronized=yes\t')" -eq "$raw" ]
	grep -q $'^session  (all files) *0 *0 *0 *0$' <<<"$output"
}

@test "files a run leaves open are closed at its end: the next run's reads of them are session-safe" {
	mpicc.mpich -O2 -Wall -o leave "$TG_TOP/tests/mpi/leave.c"
	timeout 120 trace-run -o t -- mpirun.mpich -n 2 ./leave write >/dev/null
	run -0 timeout 120 trace-run -o t -- mpirun.mpich -n 2 ./leave read
	[ "$(sort <<<"$output")" = "$(printf '0: rank 1\n1: rank 0')" ]
	trace-decode t/*.rec > text
	run -0 overlap-find text
	# each writer's end: the stream it left open committed and closed
	# once, one past its last record
	[ "$(grep -c $'\tkind=close\tfunc=_exit$' <<<"$output")" -ge 2 ]
	run -0 "$TG_TOP/pipelines/verify-io" t
	printf '%s\n' "$output" | grep -Eq '^session +\(all files\) +0 +0 +0 +0$'
	[[ "$output" == *"POSIX layer: recommended consistency: session"* ]]
}

@test "verify-io of the directory: both layers synchronised, session recommended" {
	[ -e "$W/t/rank-0.run2.rec" ]	# both runs are there to be judged
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" "$W/t"
	grep -qx 'ordered by: happens-before (hb-build)' <<<"$output"
	grep -qx 'POSIX layer: recommended consistency: session' <<<"$output"
	grep -qx 'MPI-IO layer: recommended consistency: session' <<<"$output"
	[ -z "$stderr" ]
}

# ---- compressed -------------------------------------------------------------------

# untimed TEXT: the lines of a decoded trace without their times, sorted
untimed() {
	grep -v '^#' "$1" | cut -f1-3,6- | sort
}

@test "trace-merge of both runs: one .cfg that decodes as the streams do, and is judged the same" {
	run -0 --separate-stderr trace-merge -o both.cfg "$W"/t/*.rec
	run -0 --separate-stderr trace-decode both.cfg
	printf '%s\n' "$output" > both.txt
	[ "$(grep -c '^#run' both.txt)" -eq 2 ]
	[ "$(grep '^#run' both.txt)" = "$(grep '^#run' "$W/text")" ]
	[ "$(untimed both.txt)" = "$(untimed "$W/text")" ]
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" both.cfg
	grep -qx 'POSIX layer: recommended consistency: session' <<<"$output"
}

@test "trace-compress keeps a later run's number: a directory of .cfg streams is judged as the .rec are" {
	local f
	mkdir d
	for f in "$W"/t/*.rec; do
		run -0 --separate-stderr trace-compress -o "d/$(basename "${f%.rec}").cfg" "$f"
	done
	run -0 --separate-stderr trace-decode d/rank-0.run2.cfg
	grep -q $'^#proc\trank=0\t.*\trun=2$' <<<"$output"
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" d
	grep -qx 'POSIX layer: recommended consistency: session' <<<"$output"
	grep -qx 'MPI-IO layer: recommended consistency: session' <<<"$output"
}

# ---- bad input ----------------------------------------------------------------------

@test "hb-build: a malformed or overlapping #run line is one error, exit 2" {
	printf '#run\trun=1\tfirst=0\tworld=x\n' > bad1
	run -2 --separate-stderr hb-build bad1
	[ "${#stderr_lines[@]}" -eq 1 ] && [[ $stderr =~ ^hb-build:\ .*malformed\ #run\ line ]]
	printf '#run\trun=1\tfirst=0\tworld=2\n#run\trun=2\tfirst=1\tworld=2\n' > bad2
	run -2 --separate-stderr hb-build bad2
	[ "${#stderr_lines[@]}" -eq 1 ] && [[ $stderr =~ malformed\ #run\ line ]]
}

# mpirun starting trace-run in every rank: the ranks of one launch start
# together, and some find the streams of others already there; they must
# still take one number, one more than the launch before.
@test "mpirun ... trace-run: every rank of a launch takes the launch's run number" {
	for i in 1 2 3; do
		timeout 120 mpirun.mpich -n 4 trace-run -o u "$W/restart" write ckpt$i > /dev/null
	done
	run -0 ls u
	[ "$output" = "$(for r in 0 1 2 3; do printf 'rank-%s.rec\nrank-%s.run2.rec\nrank-%s.run3.rec\n' $r $r $r; done)" ]
}

@test "one trace-run of a job script with two mpiruns: the second launch is run 2 (it replaced run 1's streams), judged with the first; two launches at once: one line, exit 2" {
	# (a background job's launch is not told apart from a sequential one)
	timeout 120 trace-run -o j -- bash -c '
		mpirun.mpich -n 2 "$1" write ckpt
		mpirun.mpich -n 3 "$1" read ckpt' - "$W/restart" > /dev/null
	run -0 ls j
	[[ $output == *$'rank-0.rec\nrank-0.run2.rec\nrank-1.rec\nrank-1.run2.rec\nrank-2.run2.rec'* ]]
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" j
	grep -qx 'POSIX layer: recommended consistency: session' <<<"$output"
	# the read-back pairs between the runs are there, ordered
	run -0 trace-decode j/rank-0.rec j/rank-0.run2.rec j/rank-1.rec j/rank-1.run2.rec j/rank-2.run2.rec
	grep -q $'^#run\trun=2\tfirst=2\tworld=3' <<<"$output"
	timeout 120 trace-run -o k -- bash -c '
		mpirun.mpich -n 2 "$1" write ck1 &
		mpirun.mpich -n 2 "$1" write ck2 &
		wait' - "$W/restart" > /dev/null
	# every rank's stream is kept (the later rename replaced the earlier)
	[ "$(for f in k/*.rec; do trace-decode "$f" | grep -c $'^#rank\t'; done | awk '{ s += $1 } END { print s }')" -eq 4 ]
	if [ "$(ls k | grep -c '^rank-0')" -eq 1 ]; then
		# both launches took run 1: the second keeps its pids' names
		run -2 --separate-stderr "$TG_TOP/pipelines/verify-io" k
		[[ $stderr == "verify-io: rank "*" of run 1 is two processes (pids "*"): two launches at once into one trace directory; trace each into its own (trace-run -o)" ]]
	fi
}

# Until 2026-12-04 an MPI program started without a launcher (a singleton:
# ncmpidump, a checker, an mpi4py script) took rank 0 of run 1 whatever
# ran before it, and verify-io refused the job script's trace as two
# launches at once.
@test "one trace-run of a job script with MPI programs started without mpirun (singletons): each is a run of its own, after those begun before it, judged with them" {
	timeout 120 trace-run -o s -- bash -c '
		"$1" write c1
		mpirun.mpich -n 2 "$1" write c2
		"$1" read c2
		"$1" read c1' - "$W/restart" > /dev/null
	run -0 bash -c 'ls s | grep "^rank-"'
	[ "$output" = "$(printf '%s\n' rank-0.rec rank-0.run2.rec rank-0.run3.rec rank-0.run4.rec rank-1.run2.rec)" ]
	run -0 trace-decode s/rank-0.run3.rec
	grep -q $'^#proc\trank=0\tworld=1\t.*argv=".*/restart" "read" "c2"\trun=3$' <<<"$output"
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" s
	grep -qx 'POSIX layer: recommended consistency: session' <<<"$output"
	run -0 --separate-stderr trace-merge -o s.cfg s
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" s.cfg
	grep -qx 'POSIX layer: recommended consistency: session' <<<"$output"
}

@test "hb-build: two runs at once (their ranks' MPI calls overlap in time) are not ordered; one after the other, and on rebuilt times, they are" {
	# the second run's times moved back to start with the first's
	awk -F'\t' -v OFS='\t' '
		NR == FNR { if ($0 !~ /^#/ && $1 >= 2 && (d == "" || $4 < d)) d = $4; next }
		FNR == 1 { d -= 0.000001 }
		$0 !~ /^#/ && $1 >= 2 { $4 -= d; $5 -= d }
		{ print }' "$W/text" "$W/text" > atonce
	run -0 hb-build --stats atonce
	run -1 grep -q $'^edges.run\t[1-9]' <<<"$output"
	# the cross-run pairs are then unordered: the writes and reads race
	hb-build atonce > atonce.hb
	overlap-find atonce > atonce.pairs
	run -1 --separate-stderr conflict-check --hb atonce.hb --fail-on-unsynchronized atonce.pairs
	# rebuilt times (#timing) are no order of launches: ordered as given
	{ printf '#timing\tmode=aggregate\n'; cat atonce; } > rebuilt
	run -0 hb-build --stats rebuilt
	grep -qx $'edges.run\t5' <<<"$output"
}

@test "trace-export and trace-report of both runs number the ranks as trace-decode does: the second run's are 2, 3, 4 (they were two processes each named rank 0 and rank 1)" {
	trace-export -f chrome -o c.json "$W"/t/*.rec
	run -0 python3 -c '
import json, sys
ev = json.load(open("c.json"))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
print(" ".join(sorted(e["args"]["name"] for e in ev if e.get("name") == "process_name")))'
	[ "$output" = "rank 0 rank 1 rank 2 rank 3 rank 4" ]
	trace-export -f sqlite -o s.db "$W"/t/*.rec
	run -0 sqlite3 s.db 'select count(distinct rank) from ranks'
	[ "$output" = 5 ]
	trace-report -o r.html "$W"/t/*.rec
	grep -q 'ranks (processes)</th><td class="l">5 (world 5)<' r.html
}

# Until 2026-12-04 singletons begun at once took the same run: verify-io
# refused the trace ("two launches at once"), the race between them
# unjudged, with advice one trace-run cannot follow.
@test "two MPI singletons started at once by one job script: each a run of its own, the runs unordered: the lines both write at offset 0 are a race" {
	mpicc.mpich -O2 -Wall -o sameline "$TG_TOP/tests/mpi/sameline.c"
	timeout 120 trace-run -o t -- sh -c "./sameline '$PWD/f' & ./sameline '$PWD/f' & wait" > out
	[ "$(cat out)" = $'rank 0 of 1\nrank 0 of 1' ]
	run -0 bash -c 'ls t | grep "^rank-"'
	[ "$output" = $'rank-0.rec\nrank-0.run2.rec' ]
	run -1 --separate-stderr "$TG_TOP/pipelines/verify-io" t
	grep -Eq "^posix +$PWD/f +0 +1 +0 +0$" <<<"$output"
	[[ $stderr == *"1 conflicting pair is not synchronized"* ]]
}
