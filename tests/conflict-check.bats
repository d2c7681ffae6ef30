#!/usr/bin/env bats
# conflict-check (conflict-check(1)) on its own: hand-written overlap-find
# outputs in tests/conflict/*.overlap, one file per synchronisation case,
# judged by time (RAW/WAW, S/D, each model's verdict, --recommend,
# --json, --fail-on-unsynchronized); then --hb with the graph hb-build
# made of a real traced MPI run (tests/conflict/cases.c, waw-d), its pair
# rewritten so that the clocks say the opposite of happens-before; then
# bad input; then verify-io, which runs it once.  The tool under test is
# always given a file, never a pipe.

bats_require_minimum_version 1.5.0

setup_file() {
	export W=$BATS_FILE_TMPDIR
	command -v mpicc.mpich >/dev/null || return 0
	export UCX_TLS=${UCX_TLS:-sm,self}
	export MPIR_CVAR_POLLS_BEFORE_YIELD=${MPIR_CVAR_POLLS_BEFORE_YIELD:-1}
	mpicc.mpich -O2 -Wall -o "$W/cases" "$TG_TOP/tests/conflict/cases.c"
	# rank 0 writes f, sends a token; rank 1 receives it, writes the
	# same bytes: ordered by the message, with no commit between
	(cd "$W" && timeout 120 trace-run -o t -- mpirun.mpich -n 2 "$W/cases" waw-d \
		>/dev/null &&
		trace-decode t/rank-*.rec > text && hb-build -o app.hb text &&
		overlap-find text > pairs) && touch "$W/mpi-ok"
}

setup() {
	C=$TG_TOP/tests/conflict
	USAGE='usage: conflict-check [-hjv] [--hb graph] [--model posix|commit|session|mpiio|all]'
	cd "$BATS_TEST_TMPDIR"
}

needmpi() {
	[ -f "$W/mpi-ok" ] || skip "mpicc.mpich is missing, or tracing waw-d failed"
}

# ---- ordered by time ------------------------------------------------------------

@test "-v: RAW/WAW by the same (S) or different (D) processes, each model's verdict by the clocks; a write after a read is no pair" {
	run -0 --separate-stderr conflict-check -v --model all "$C/models.overlap"
	[ -z "$stderr" ]
	cat > want <<-'EOF'
	RAW-S	/d/raw-s	0:2 pwrite W [0,100)	0:4 pread R [0,100)	posix=ok	commit=conflict	session=conflict	synchronized=yes
	RAW-S	/d/raw-s-sync	0:2 pwrite W [0,100)	0:4 pread R [10,20)	posix=ok	commit=ok	session=conflict	synchronized=yes	commit=0:3
	WAW-S	/d/waw-s-sync	0:2 pwrite W [0,100)	0:4 pwrite W [50,150)	posix=ok	commit=ok	session=conflict	synchronized=yes	commit=0:3
	WAW-D	/d/waw-d-commit	0:2 pwrite W [0,100)	1:2 pwrite W [50,150)	posix=ok	commit=ok	session=conflict	synchronized=yes	commit=0:3
	RAW-D	/d/raw-d-session	0:2 pwrite W [0,100)	1:2 read R [0,100)	posix=ok	commit=ok	session=ok	synchronized=yes	commit=0:3	close=0:3	open=1:1
	WAW-D	/d/commit-late	0:2 pwrite W [0,100)	1:2 pwrite W [0,100)	posix=ok	commit=conflict	session=conflict	synchronized=yes
	model    file                                       WAW-S   WAW-D   RAW-S   RAW-D
	posix    (all files)                                    0       0       0       0
	commit   /d/raw-s                                       0       0       1       0
	commit   /d/commit-late                                 0       1       0       0
	commit   (all files)                                    0       1       1       0
	session  /d/raw-s                                       0       0       1       0
	session  /d/raw-s-sync                                  0       0       1       0
	session  /d/waw-s-sync                                  1       0       0       0
	session  /d/waw-d-commit                                0       1       0       0
	session  /d/commit-late                                 0       1       0       0
	session  (all files)                                    1       2       2       0
	EOF
	printf '%s\n' "$output" > got
	diff -u want got
}

@test "the table shows session by default, one model with --model" {
	run -0 conflict-check "$C/models.overlap"
	[ "${lines[0]}" = "model    file                                       WAW-S   WAW-D   RAW-S   RAW-D" ]
	[ "${#lines[@]}" -eq 7 ]
	[[ ${lines[6]} =~ ^session\ +\(all\ files\)\ +1\ +2\ +2\ +0$ ]]
	run -0 conflict-check --model commit "$C/models.overlap"
	[ "${#lines[@]}" -eq 4 ]
	[[ ${lines[3]} =~ ^commit\ +\(all\ files\)\ +0\ +1\ +1\ +0$ ]]
}

@test "two writes at overlapping times are a race: every model conflicts, not synchronized; a read during a write is RAW" {
	run -0 --separate-stderr conflict-check -v --model posix "$C/race.overlap"
	[ "${lines[0]}" = $'WAW-D\t/d/race\t0:2 pwrite W [0,100)\t1:2 pwrite W [0,100)\tposix=conflict\tcommit=conflict\tsession=conflict\tsynchronized=no' ]
	[ "${lines[1]}" = $'RAW-D\t/d/race\t0:2 pwrite W [0,100)\t1:3 pread R [0,100)\tposix=conflict\tcommit=conflict\tsession=conflict\tsynchronized=no' ]
	[[ ${lines[4]} =~ ^posix\ +\(all\ files\)\ +0\ +1\ +0\ +1$ ]]
}

@test "an O_APPEND write's end of file (E): atomic under posix, however concurrent; under commit and session the write that made the end must be seen" {
	run -0 --separate-stderr conflict-check -v --model all "$C/append.overlap"
	[ -z "$stderr" ]
	# concurrent with the write whose end it found: no race, posix only
	[ "${lines[0]}" = $'RAW-D\t/d/log\t0:2 write W [0,20)\t1:2 write E [19,20)\tposix=ok\tcommit=conflict\tsession=conflict\tsynchronized=no' ]
	[ "${lines[1]}" = $'RAW-D\t/d/log\t1:2 write W [20,40)\t0:4 read R [20,40)\tposix=ok\tcommit=conflict\tsession=conflict\tsynchronized=yes' ]
	# after the writer's close and its own open: every model
	[ "${lines[2]}" = $'RAW-D\t/d/log\t0:2 write W [0,20)\t1:6 write E [19,20)\tposix=ok\tcommit=ok\tsession=ok\tsynchronized=yes\tcommit=0:3\tclose=0:3\topen=1:5' ]
	# an end found before a write over that byte: no pair
	[ "${lines[3]}" = "model    file                                       WAW-S   WAW-D   RAW-S   RAW-D" ]
	# (no race: --fail-on-unsynchronized exits 0), and it says why posix
	run -0 --separate-stderr conflict-check --recommend --fail-on-unsynchronized "$C/append.overlap"
	[ "$output" = posix ]
	[ "$stderr" = "conflict-check: 1 of the pairs that rule out commit is an O_APPEND write that found the end of file another process's write made, with no commit of it before: only atomic appends (posix) keep both" ]
	run -0 conflict-check --json "$C/append.overlap"
	[ "$(jq -r 'select(.second) | .second.op' <<<"$output" | sort | uniq -c | tr -s ' ')" = $' 2 append-end\n 1 read' ]
}

@test "a size a call saw (S): no conflict at all while the write that set it ran (the older size is one POSIX gives too); after it, as a read" {
	run -0 --separate-stderr conflict-check -v --model all "$C/size.overlap"
	[ -z "$stderr" ]
	[ "${lines[0]}" = $'RAW-D\t/d/f\t0:2 write W [0,64)\t1:2 fstat S [63,64)\tposix=ok\tcommit=ok\tsession=ok\tsynchronized=no' ]
	[ "${lines[1]}" = $'RAW-D\t/d/f\t0:2 write W [0,64)\t1:5 lseek S [63,64)\tposix=ok\tcommit=ok\tsession=conflict\tsynchronized=yes\tcommit=0:3' ]
	run -0 --separate-stderr conflict-check --recommend --fail-on-unsynchronized "$C/size.overlap"
	[ "$output" = commit ]
	[ -z "$stderr" ]
	run -0 conflict-check --json "$C/size.overlap"
	[ "$(jq -r 'select(.second) | .second.op' <<<"$output" | sort -u)" = size ]
}

@test "a truncation (T): before an access, seen in every model; beside one, a race; after a write, judged as a write" {
	run -1 --separate-stderr conflict-check -v --model all --fail-on-unsynchronized "$C/trunc.overlap"
	[ "${lines[0]}" = $'WAW-D\t/d/f\t0:1 open T [0,4096)\t1:2 write W [0,4096)\tposix=ok\tcommit=ok\tsession=ok\tsynchronized=yes' ]
	[ "${lines[1]}" = $'WAW-D\t/d/f\t0:1 open T [0,4096)\t1:3 write W [4096,8192)\tposix=conflict\tcommit=conflict\tsession=conflict\tsynchronized=no' ]
	[ "${lines[2]}" = $'WAW-D\t/d/f\t1:2 write W [0,4096)\t0:5 ftruncate T [0,4096)\tposix=ok\tcommit=conflict\tsession=conflict\tsynchronized=yes' ]
	run -1 --separate-stderr conflict-check --recommend --fail-on-unsynchronized "$C/trunc.overlap"
	[ "$output" = posix ]
	[ "$stderr" = "conflict-check: 1 conflicting pair is not synchronized: no model makes this run correct" ]
	run -0 conflict-check --json "$C/trunc.overlap"
	[ "$(jq -r 'select(.first) | .first.op' <<<"$output" | tr '\n' ' ')" = 'truncate truncate write ' ]
}

@test "--recommend: the weakest model without conflicts between processes; --strict counts those within one" {
	run -0 --separate-stderr conflict-check --recommend "$C/session.overlap"
	[ "$output" = session ]
	[ -z "$stderr" ]
	run -0 --separate-stderr conflict-check --recommend --strict "$C/session.overlap"
	[ "$output" = commit ]
	run -0 --separate-stderr conflict-check --recommend "$C/models.overlap"
	[ "$output" = posix ]
	[ -z "$stderr" ]
	# a race: posix is the best there is, and it says no model suffices
	run -0 --separate-stderr conflict-check --recommend "$C/race.overlap"
	[ "$output" = posix ]
	[ "${stderr_lines[0]}" = "conflict-check: 2 conflicting pairs are not synchronized: no model makes this run correct" ]
	# its two pwrites of [0,100) by two ranks: said to be one range
	[ "${#stderr_lines[@]}" -eq 2 ]
	[[ ${stderr_lines[1]} == "conflict-check: 1 of them are writes of one range by two processes in the same function, not ordered"* ]]
}

@test "--fail-on-unsynchronized: exit 1 on a race, 0 when every pair is ordered" {
	run -1 --separate-stderr conflict-check --fail-on-unsynchronized "$C/race.overlap"
	[[ ${lines[2]} =~ ^session\ +\(all\ files\)\ +0\ +1\ +0\ +1$ ]]
	run -0 conflict-check --fail-on-unsynchronized "$C/models.overlap"
}

@test "--model with --recommend and --fail-on-unsynchronized: the table, the recommendation, the exit status, in one pass" {
	run -0 --separate-stderr conflict-check --model all --recommend --fail-on-unsynchronized "$C/session.overlap"
	[ "${lines[0]}" = "model    file                                       WAW-S   WAW-D   RAW-S   RAW-D" ]
	[[ ${lines[-2]} =~ ^session\ +\(all\ files\)\ +0\ +0\ +1\ +0$ ]]
	[ "${lines[-1]}" = "recommended consistency: session" ]
	[ -z "$stderr" ]
	run -0 --separate-stderr conflict-check --model session --strict --recommend "$C/session.overlap"
	[ "${#lines[@]}" -eq 4 ]
	[ "${lines[-1]}" = "recommended consistency: commit" ]
	run -1 --separate-stderr conflict-check --model all --recommend --fail-on-unsynchronized "$C/race.overlap"
	[ "${lines[-1]}" = "recommended consistency: posix (no model makes this run correct)" ]
	[[ ${lines[-2]} =~ ^session\ +\(all\ files\)\ +0\ +1\ +0\ +1$ ]]
	[ "${stderr_lines[0]}" = "conflict-check: 2 conflicting pairs are not synchronized: no model makes this run correct" ]
	run -0 --separate-stderr conflict-check --json --model all --recommend "$C/session.overlap"
	[ "${lines[-1]}" = '{"recommended":"session"}' ]
	[[ ${lines[-2]} == '{"summary":'* ]]
}

@test "--json: an object per pair with the verdicts and the records that make it safe, then the summary" {
	run -0 --separate-stderr conflict-check --json "$C/session.overlap"
	[ "${#lines[@]}" -eq 3 ]
	[ "${lines[0]}" = '{"file":"/d/raw-d-session","kind":"RAW","procs":"D","first":{"rank":"0","seq":2,"tstart":1.0,"tend":1.1000000000000001,"op":"write","func":"pwrite","start":0,"end":100},"second":{"rank":"1","seq":2,"tstart":2.0,"tend":2.1000000000000001,"op":"read","func":"read","start":0,"end":100},"conflict":{"posix":false,"commit":false,"session":false},"ordered_by":"time","synchronized":true,"commit_seq":3,"close_seq":3,"open_seq":1}' ]
	[ "$(printf '%s\n' "${lines[1]}" | jq -c '[.kind, .procs, .conflict.commit, .conflict.session, .commit_seq, .close_seq]')" = '["RAW","S",false,true,3,null]' ]
	[ "$(printf '%s\n' "${lines[2]}" | jq -c '[.summary[] | [.file, .conflicts.session["RAW-S"], .conflicts.session["RAW-D"], .conflicts.commit["RAW-S"]]]')" = '[["/d/raw-d-session",0,0,0],["/d/raw-s-sync",1,0,0]]' ]
}

# ---- ordered by happens-before ---------------------------------------------------

# hbpair OUT SWAP: the real WAW-D pair of the waw-d trace, written to OUT
# with every #line; SWAP=1 lists rank 1's access first; the first access
# of the line gets the times [1, 2], the second [1.5, 2.5], so that the
# clocks call them concurrent
hbpair() {
	awk -F'\t' -v OFS='\t' -v swap="$2" '
		$1 != "pair" { print; next }
		$9 == 0 && $3 != $11 && $7 == "W" && $15 == "W" {
			if (swap)
				$0 = $1 OFS $2 OFS $11 OFS $12 OFS $13 OFS $14 OFS $15 OFS $16 OFS $17 OFS $18 OFS \
				     $3 OFS $4 OFS $5 OFS $6 OFS $7 OFS $8 OFS $9 OFS $10
			$5 = "1.0"; $6 = "2.0"; $13 = "1.5"; $14 = "2.5"
			print
		}' "$W/pairs" > "$1"
	[ "$(grep -c '^pair' "$1")" -eq 1 ]
}

@test "--hb: the graph orders the real pair although the clocks call it concurrent, first access first" {
	needmpi
	hbpair p 1
	s0=$(awk -F'\t' '$1 == "pair" { print $12 }' p)
	s1=$(awk -F'\t' '$1 == "pair" { print $4 }' p)
	# by the clocks: a race, in the order of the line
	run -0 --separate-stderr conflict-check -v --model posix p
	[[ ${lines[0]} == "WAW-D"$'\t'"$W/f"$'\t'"1:$s1 pwrite W [0,100)"$'\t'"0:$s0 pwrite W [0,100)"$'\t'"posix=conflict"* ]]
	[[ ${lines[0]} == *$'\tsynchronized=no' ]]
	# by happens-before: rank 0's write, its send, rank 1's receive, its write
	run -0 --separate-stderr conflict-check --hb "$W/app.hb" -v --model posix p
	[ "${lines[0]}" = "WAW-D"$'\t'"$W/f"$'\t'"0:$s0 pwrite W [0,100)"$'\t'"1:$s1 pwrite W [0,100)"$'\t'"posix=ok"$'\t'"commit=conflict"$'\t'"session=conflict"$'\t'"synchronized=yes" ]
	[ -z "$stderr" ]
	run -0 conflict-check --hb "$W/app.hb" --fail-on-unsynchronized p
	run -0 conflict-check --hb "$W/app.hb" --json p
	[ "$(printf '%s\n' "${lines[0]}" | jq -r '.ordered_by + " " + .first.rank')" = "happens-before 0" ]
}

@test "--hb: records before MPI orders anything are not synchronized, whatever the clocks say" {
	needmpi
	awk -F'\t' -v OFS='\t' '$1 != "pair" { print; next }
		$9 == 0 && $3 != $11 && $7 == "W" && $15 == "W" { $4 = $12 = 1; $5 = $6 = "1.0"; $13 = $14 = "9.0"; print }' \
		"$W/pairs" > early
	run -0 conflict-check --fail-on-unsynchronized early
	run -1 conflict-check --hb "$W/app.hb" --fail-on-unsynchronized early
	run -0 --separate-stderr conflict-check --hb "$W/app.hb" -v --model posix early
	[[ ${lines[0]} == *$'\tposix=conflict\tcommit=conflict\tsession=conflict\tsynchronized=no' ]]
}

@test "--hb run by path without bin/ on PATH: no other tool is needed" {
	needmpi
	hbpair p 0
	PATH=/usr/bin:/bin run -0 --separate-stderr "$TG_TOP/bin/conflict-check" --hb "$W/app.hb" -v --model posix p
	[[ ${lines[0]} == *$'\tposix=ok\tcommit=conflict\tsession=conflict\tsynchronized=yes' ]]
	[ -z "$stderr" ]
}

@test "--hb: a rank the graph does not have, a damaged or foreign graph: one line, exit 2" {
	needmpi
	hbpair p 0
	awk -F'\t' -v OFS='\t' '$1 == "pair" { $11 = 7 } { print }' p > p7
	run -2 --separate-stderr conflict-check --hb "$W/app.hb" p7
	[ "$stderr" = "conflict-check: $W/app.hb: no rank 7 in the graph (it has 2)" ]
	head -c 100 "$W/app.hb" > short.hb
	run -2 --separate-stderr conflict-check --hb short.hb p
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "conflict-check: short.hb: at offset "*"(truncated)" ]]
	[ -z "$output" ]
	run -2 --separate-stderr conflict-check --hb "$C/models.overlap" p
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "conflict-check: $C/models.overlap: "* ]]
	[ -z "$output" ]
	mkdir adir	# named by its path, not as standard input
	run -2 --separate-stderr conflict-check --hb adir p
	[ -z "$output" ] && [ "$stderr" = "conflict-check: adir: read error: Is a directory" ]
	run -2 --separate-stderr conflict-check --hb nosuch.hb p
	[ -z "$output" ] && [ "$stderr" = "conflict-check: cannot read 'nosuch.hb': No such file or directory" ]
}

@test "events of one kind only (a close, no open or commit): judged, no empty list sorted (UBSan under SANITIZE=1)" {
	printf '#overlap\tversion=1\tlayer=posix\n#file\tfile=0\tpath="/d/x"\n' > ev
	printf '#event\tfile=0\trank=0\tseq=1\tt=0.500000000\tkind=close\n' >> ev
	printf 'pair\t0\t0\t2\t1.000000000\t2.000000000\tW\tpwrite\t0\t100\t1\t2\t1.500000000\t2.500000000\tW\tpwrite\t0\t100\n' >> ev
	run -0 --separate-stderr conflict-check ev
	[ -z "$stderr" ]
	[ "$(printf '%s\n' "$output" | tr -s ' ' | sed -n 2p)" = "session /d/x 0 1 0 0" ]
}

@test "#unplaced calls: the verdict stands on the rest, and standard error says how many were left out" {
	cp "$C/models.overlap" u
	printf '#unplaced\trank=0\tuntracked=3\tunplaced=0\n#unplaced\trank=1\tuntracked=0\tunplaced=2\n' >> u
	printf '#unplaced\trank=2\tuntracked=1\tunplaced=5\n' >> u
	run -0 --separate-stderr conflict-check u
	[ "$stderr" = "conflict-check: 7 calls of 2 processes could not be placed in the file (#unplaced): conflicts with their bytes are not counted" ]
	[ "$output" = "$(conflict-check "$C/models.overlap")" ]
	# descriptors never opened (untracked) alone: nothing said
	cp "$C/models.overlap" u
	printf '#unplaced\trank=0\tuntracked=3\tunplaced=0\n' >> u
	run -0 --separate-stderr conflict-check u
	[ -z "$stderr" ]
	printf '#unplaced\trank=0\tuntracked=3\tunplaced=x\n' >> u
	run -2 --separate-stderr conflict-check u
	[ "$stderr" = "conflict-check: u:$(wc -l < u): malformed #unplaced line" ]
}

@test "#done: an access of a nonblocking call lasts until the call that completed it (by the clocks: a read after the submission but before the completion is a race), with from= only its bytes from there; a malformed #done, or one after the pairs: one line, exit 2" {
	printf '#overlap\tversion=1\tlayer=posix\n#file\tfile=0\tpath="/d/nb"\n' > head
	printf 'pair\t0\t0\t2\t1.000000000\t1.100000000\tW\taio_write\t0\t100\t1\t3\t1.500000000\t1.600000000\tR\tpread\t0\t100\n' > pair
	cat head pair > plain
	run -0 conflict-check -v plain
	[[ ${lines[0]} == RAW-D$'\t'*$'\tposix=ok\t'*$'\tsynchronized=yes'* ]]
	# completed by its aio_return (seq 7) at 2.0: the read ran meanwhile
	cat head > nb
	printf '#done\trank=0\tseq=2\tend=7\ttend=2.000000000\n' >> nb
	cat pair >> nb
	run -0 conflict-check -v nb
	[[ ${lines[0]} == RAW-D$'\t'*$'\tposix=conflict\t'*$'\tsynchronized=no'* ]]
	# another call's #done changes nothing
	sed 's/seq=2/seq=3/' nb > other
	[ "$(conflict-check -v other)" = "$(conflict-check -v plain)" ]
	sed 's/end=7/end=x/' nb > bad
	run -2 --separate-stderr conflict-check bad
	[ "$stderr" = "conflict-check: bad:3: malformed #done line" ]
	# from=: only the bytes from 60 on waited (a stdio write that sent its
	# first bytes out at the call); the read of 0-100 shares some of them,
	# a read of 0-50 none
	sed 's/tend=2.000000000/&\tfrom=60/' nb > from
	run -0 conflict-check -v from
	[[ ${lines[0]} == RAW-D$'\t'*$'\tposix=conflict\t'*$'\tsynchronized=no'* ]]
	sed 's/\tpread\t0\t100$/\tpread\t0\t50/' from > head60
	run -0 conflict-check -v head60
	[[ ${lines[0]} == RAW-D$'\t'*$'\tposix=ok\t'*$'\tsynchronized=yes'* ]]
	sed 's/from=60/from=-1/' from > bad
	run -2 --separate-stderr conflict-check bad
	[ "$stderr" = "conflict-check: bad:3: malformed #done line" ]
	cat head pair > late
	printf '#done\trank=0\tseq=2\tend=7\ttend=2.000000000\n' >> late
	run -2 --separate-stderr conflict-check late
	[ "$stderr" = "conflict-check: late:4: #done line after the pairs" ]
}

# ---- bad input ------------------------------------------------------------------

@test "bad input: a missing file, not overlap-find output, a malformed pair line, an unknown option: one line, exit 2" {
	run -2 --separate-stderr conflict-check nosuch
	[ "$stderr" = "conflict-check: cannot open 'nosuch': No such file or directory" ]
	[ -z "$output" ]
	printf 'pair\t0\n' > bad
	run -2 --separate-stderr conflict-check bad
	[ "$stderr" = "conflict-check: bad:1: not overlap-find output (no #overlap line)" ]
	head -n 1 "$C/race.overlap" > bad
	printf '#file\tfile=0\tpath="/d/x"\npair\t0\t0\t2\t1.0\t1.1\tX\tpwrite\t0\t100\t1\t2\t2.0\t2.1\tW\tpwrite\t0\t100\n' >> bad
	run -2 --separate-stderr conflict-check bad
	[ "$stderr" = "conflict-check: bad:3: malformed pair line" ]
	[ -z "$output" ]
	run -2 --separate-stderr conflict-check --hb nosuch.hb "$C/race.overlap"
	[ "$stderr" = "conflict-check: cannot read 'nosuch.hb': No such file or directory" ]
	# an unknown option: getopt's line, then the usage, as every tool does
	run -2 --separate-stderr conflict-check --bogus "$C/race.overlap"
	[ -z "$output" ]
	[ "${stderr_lines[0]}" = "conflict-check: unrecognized option '--bogus'" ]
	[ "${stderr_lines[1]}" = "$USAGE" ]
	run -0 --separate-stderr conflict-check --help
	[ "${lines[0]}" = "$USAGE" ]
	[ -z "$stderr" ]
}

# ---- verify-io ------------------------------------------------------------------

@test "verify-io ended by a signal (its reader gone: SIGPIPE; SIGTERM) leaves no work directory behind, and says nothing more" {
	needmpi
	mkdir tmp
	TMPDIR=$PWD/tmp "$TG_TOP/pipelines/verify-io" "$W/t" | head -1 > first
	[ "$(cat first)" = "POSIX layer (POSIX and stdio calls):" ]
	# (the whole decoded trace stayed in $TMPDIR/verify-io.XXXXXX)
	[ -z "$(ls tmp)" ]
	# stopped once it decodes into its work directory (its shell only): 143,
	# nothing left, no line (it went on, and its cat found the files gone)
	TMPDIR=$PWD/tmp "$TG_TOP/pipelines/verify-io" "$W/t" > out 2> err &
	local pid=$! st=0
	kill -STOP "$pid"
	while ! ls tmp/*/text > /dev/null 2>&1; do
		kill -CONT "$pid"
		sleep 0.001
		kill -STOP "$pid"
	done
	kill -TERM "$pid"
	kill -CONT "$pid"
	wait "$pid" || st=$?
	[ "$st" -eq 143 ]
	[ ! -s err ]
	[ -z "$(ls tmp)" ]
}

@test "verify-io run from a bin/ of its own, without it on PATH: its tools found beside it, conflict-check run once, no hb-query needed" {
	needmpi
	mkdir d
	cp "$TG_TOP/pipelines/verify-io" d/
	for p in trace-decode hb-build overlap-find; do
		ln -s "$TG_TOP/bin/$p" d/$p
	done
	# a conflict-check that counts its runs
	printf '#!/bin/sh\necho run >> "%s/runs"\nexec "%s" "$@"\n' "$PWD" "$TG_TOP/bin/conflict-check" > d/conflict-check
	chmod +x d/conflict-check
	PATH=/usr/bin:/bin run -0 --separate-stderr d/verify-io "$W/t"
	[ "$(wc -l < runs)" -eq 1 ]
	[[ $output == *$'\n\nordered by: happens-before (hb-build)\nPOSIX layer: recommended consistency: posix' ]]
	[[ ${lines[-3]} =~ ^session\ +\(all\ files\)\ +0\ +1\ +0\ +0$ ]]
	[ -z "$stderr" ]
}

@test "a malformed #event line (an open= or originseq= that is no number, an origin= without its seq): one line, exit 2" {
	local e
	for e in 'kind=atomic\tfunc=MPI_File_set_atomicity\topen=x' \
		 'kind=open\tfunc=fork\tinherited=1\torigin=0' \
		 'kind=open\tfunc=fork\tinherited=1\torigin=0\toriginseq=-4'; do
		printf "#overlap\tversion=1\tlayer=posix\n#file\tfile=0\tpath=\"/d/f\"\n#event\tfile=0\trank=1\tseq=3\tt=1.000000000\t$e\n" > bad
		run -2 --separate-stderr conflict-check bad
		[ "$stderr" = "conflict-check: bad:3: malformed #event line" ]
	done
	printf '#overlap\tversion=1\tlayer=posix\n#file\tfile=0\tpath="/d/f"\n#event\tfile=0\trank=1\tseq=3\tt=1.000000000\tkind=open\tfunc=fork\tinherited=1\torigin=0\toriginseq=4\n' > good
	run -0 --separate-stderr conflict-check good
	[ -z "$stderr" ]
}

@test "a malformed #name line (a file never announced, a seq that is no number): one line, exit 2" {
	printf '#overlap\tversion=1\tlayer=posix\n#name\tfile=0\trank=1\tseq=3\tfrom=0\tfromseq=4\n' > bad
	run -2 --separate-stderr conflict-check bad
	[ "$stderr" = "conflict-check: bad:2: malformed #name line" ]
	printf '#overlap\tversion=1\tlayer=posix\n#file\tfile=0\tpath="/d/f"\n#name\tfile=0\trank=1\tseq=x\tfrom=0\tfromseq=4\n' > bad
	run -2 --separate-stderr conflict-check bad
	[ "$stderr" = "conflict-check: bad:3: malformed #name line" ]
	# well formed, without a graph: ordered by the clocks, no race
	printf '#overlap\tversion=1\tlayer=posix\n#file\tfile=0\tpath="/d/f"\n#name\tfile=0\trank=1\tseq=3\tfrom=0\tfromseq=4\n' > good
	run -0 --separate-stderr conflict-check --recommend good
	[ "$output" = session ]
}

@test "a malformed #child line (no parent, a reap before the spawn, after the pairs): one line, exit 2" {
	for l in '#child\trank=p7\tspawn=3' '#child\trank=p7\tparent=0\tspawn=5\treap=4' \
		 '#child\trank=p7\tparent=0\tspawn=x'; do
		printf "#overlap\tversion=1\tlayer=posix\n$l\n" > bad
		run -2 --separate-stderr conflict-check bad
		[ "$stderr" = "conflict-check: bad:2: malformed #child line" ]
	done
	printf '#overlap\tversion=1\tlayer=posix\n#file\tfile=0\tpath="/d/f"\n' > bad
	printf 'pair\t0\t0\t3\t0.1\t0.2\tW\twrite\t0\t4\t1\t5\t0.3\t0.4\tR\tread\t0\t4\n' >> bad
	printf '#child\trank=p7\tparent=0\tspawn=3\n' >> bad
	run -2 --separate-stderr conflict-check bad
	[ "$stderr" = "conflict-check: bad:4: #child line after the pairs" ]
}

# Times rebuilt from a .cfg (the #timing line overlap-find passes on) do
# not order two processes' calls: without a graph the pairs were judged
# by them in silence (a race from a default .cfg came out commit).
@test "without --hb, pairs of two processes ordered by times rebuilt from a .cfg: a line says so and names the way out" {
	{ printf '#overlap\tversion=1\tlayer=posix\n#timing\trebuilt=1\n#file\tfile=0\tpath="/d/f"\n'
	  printf 'pair\t0\t0\t3\t0.1\t0.2\tW\twrite\t0\t4\t1\t5\t0.3\t0.4\tR\tread\t0\t4\n'; } > rebuilt
	run -0 --separate-stderr conflict-check --recommend rebuilt
	[ "$output" = posix ]
	[ "$stderr" = "conflict-check: 1 pair of two processes was ordered by times rebuilt from a .cfg (#timing), which do not keep the order of two processes' calls: give the graph (--hb, from hb-build), as verify-io does, or merge with -t lossless" ]
	sed '/^#timing/d' rebuilt > real
	run -0 --separate-stderr conflict-check --recommend real
	[ -z "$stderr" ]
	# two processes without a rank, whose calls a .cfg keeps exact
	# (anchored=1): no such line
	{ printf '#overlap\tversion=1\tlayer=posix\n#timing\trebuilt=1\tanchored=1\n#file\tfile=0\tpath="/d/f"\n'
	  printf 'pair\t0\tp7\t3\t0.1\t0.2\tW\twrite\t0\t4\tp8\t5\t0.3\t0.4\tR\tread\t0\t4\n'; } > norank
	run -0 --separate-stderr conflict-check --recommend norank
	[ -z "$stderr" ]
}
