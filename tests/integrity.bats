#!/usr/bin/env bats
# Integrity of the trace formats: a bit flipped anywhere in a .rec or a .hb
# is refused (one line on stderr, exit 2) or changes nothing the tools
# print; never a different answer with exit 0.  A killed writer leaves a
# torn tail, reported as such; a chunk whose CRC does not match is an
# error.  tests/helpers/bitflip does the flipping.

bats_require_minimum_version 1.5.0

setup() {
	SHIM=$TG_TOP/lib/libtangram.so
	APPS=$TG_TOP/build/apps
	FLIP=$TG_TOP/$TG_BUILD/helpers/bitflip
	GEN=$TG_TOP/$TG_BUILD/helpers/trace-gen
	unset TANGRAM_DIR TANGRAM_SINK TANGRAM_LAYERS TANGRAM_EXCLUDE \
		TANGRAM_FLUSH TANGRAM_NESTED TANGRAM_SKIP TANGRAM_OFF
	cd "$BATS_TEST_TMPDIR"
}

# killed_ticker [FLUSH]: the ticker app traced into t/ (with that
# TANGRAM_FLUSH, if given), writing a byte to out every 10 ms, killed
# (SIGKILL) after 150 of them; its pid in $pid
killed_ticker() {
	(if [ -n "${1:-}" ]; then export TANGRAM_FLUSH=$1; fi
	 TANGRAM_DIR=t LD_PRELOAD=$SHIM exec "$APPS/ticker" -1 10) &
	pid=$!
	for ((i = 0; i < 500; i++)); do
		[ "$(stat -c %s out 2>/dev/null || echo 0)" -gt 150 ] && break
		sleep 0.01
	done
	kill -KILL "$pid"
	wait "$pid" || true
}

# ---- .rec ---------------------------------------------------------------

@test ".rec of a real program: every bit flipped is refused or decodes the same" {
	TANGRAM_DIR=t LD_PRELOAD=$SHIM "$APPS/ticker" 2 0
	run -0 trace-decode t/*.rec
	[ "${#lines[@]}" -eq 5 ]
	run -0 "$FLIP" t/*.rec trace-decode {}
	echo "$output"
	[[ ${lines[-1]} == *" 0 wrong" ]]
}

@test ".rec written with write() (TANGRAM_FLUSH=buffered): every bit flipped is refused or decodes the same" {
	TANGRAM_FLUSH=buffered TANGRAM_DIR=t LD_PRELOAD=$SHIM "$APPS/ticker" 2 0
	run -0 "$FLIP" t/*.rec trace-decode {}
	echo "$output"
	[[ ${lines[-1]} == *" 0 wrong" ]]
}

@test ".rec: a bit flipped in a middle chunk: its records are not printed, one line, exit 2" {
	"$GEN" -s 3 -n 20000 -o g.rec
	run -0 --separate-stderr trace-decode g.rec
	good=("${lines[@]}")
	size=$(stat -c %s g.rec)
	[ "$size" -gt 200000 ]	# several chunks of 64 KiB
	# a byte in the middle, or the next one when that one is a frame's
	# length (then the frame is refused as such, one line too)
	for at in $((size / 2)) $((size / 2 + 1)) $((size / 2 + 2)) $((size / 2 + 3)) $((size / 2 + 4)); do
		cp g.rec bad.rec
		printf '\x5a' | dd of=bad.rec bs=1 seek=$at conv=notrunc status=none
		run -2 --separate-stderr trace-decode bad.rec
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ $stderr == *"checksum mismatch"* ]] && break
	done
	[[ $stderr =~ ^trace-decode:\ bad.rec:\ checksum\ mismatch\ in\ the\ chunk\ at\ byte\ ([0-9]+)$ ]]
	chunk=${BASH_REMATCH[1]}
	[ "$chunk" -le "$at" ] && [ "$chunk" -gt $((at - 70000)) ]
	# what was printed is what the intact stream prints first, and stops
	# before the damaged chunk
	n=${#lines[@]}
	[ "$n" -gt 1000 ] && [ "$n" -lt "${#good[@]}" ]
	for i in 0 $((n / 2)) $((n - 1)); do
		[ "${lines[$i]}" = "${good[$i]}" ]
	done
}

@test ".rec of a killed program: the records, then a torn tail: one line, exit 2" {
	killed_ticker
	run -2 --separate-stderr trace-decode t/pid-$pid.rec
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "trace-decode: t/pid-$pid.rec: torn tail: "*" call records have no checksum, the first at byte "*" (the writer did not finish)" ]]
	# every write the program made before the kill (a record is in the
	# file when its call returns), the last ones unchecked
	n=$(printf '%s\n' "$output" | grep -c $'\twrite\t')
	[ "$n" -ge 150 ]
	[ "$n" -ge "$(($(stat -c %s out) - 1))" ]
}

@test "verify-io of a killed program's trace: judged on its records, the torn tail's too, which it names; damage inside a stream is still an error" {
	killed_ticker
	# (no verdict before: exit 2 with trace-decode's line alone, as for
	# HDF5's t_pflush1, whose ranks mpiexec kills)
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" t
	grep -qx 'POSIX layer: recommended consistency: session' <<<"$output"
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "verify-io: t/pid-$pid.rec: torn tail (its process was killed): "*" call records have no checksum, the first at byte "*" (the writer did not finish); judged with them" ]]
	# a byte changed in a middle chunk of a whole stream: refused
	rm -r t
	mkdir t
	"$GEN" -s 3 -n 20000 -o t/g.rec
	size=$(stat -c %s t/g.rec)
	for at in $((size / 2)) $((size / 2 + 1)) $((size / 2 + 2)) $((size / 2 + 3)); do
		cp t/g.rec g.rec
		printf '\x5a' | dd of=t/g.rec bs=1 seek=$at conv=notrunc status=none
		run -2 --separate-stderr "$TG_TOP/pipelines/verify-io" t
		[[ $stderr == *"checksum mismatch"* ]] && break
		cp g.rec t/g.rec
	done
	[ -z "$output" ]
	[[ $stderr =~ ^trace-decode:\ t/g.rec:\ checksum\ mismatch\ in\ the\ chunk\ at\ byte\ [0-9]+$ ]]
}

# A stream written with write() (TANGRAM_FLUSH=buffered, a pipe) loses the
# records its process had not written out when it is killed outright, and
# one cut at a chunk's end looks whole: until 2026-12-05 both decoded as
# complete, exit 0.  The tracer ends such a stream with an END record
# (exit, exec, a fatal signal it catches: tangram-rec(5)); a stream whose
# header says it would and that lacks it is reported incomplete.
@test "TANGRAM_FLUSH=buffered, killed: the records, then 'incomplete' (no END record), exit 2; verify-io exit 2" {
	killed_ticker buffered
	run -2 --separate-stderr trace-decode t/pid-$pid.rec
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "trace-decode: t/pid-$pid.rec: incomplete: the stream ends without its end record at byte "*" (its process was killed before the tracer finished it, or the file was cut short): calls after its last record may be missing" ]]
	# what was written out is there (the open, the first second's writes)
	printf '%s\n' "$output" | grep -q $'\topen\t'
	[ "$(printf '%s\n' "$output" | grep -c $'\twrite\t')" -lt "$(stat -c %s out)" ]
	run -2 --separate-stderr "$TG_TOP/pipelines/verify-io" t
	[ -z "$output" ]
	[[ $stderr == *"incomplete: the stream ends without its end record"* ]]
	# compressed (as a '|trace-compress' sink does, whose status no one
	# sees) and merged again, the .cfg says so too: it read as whole
	run -2 --separate-stderr trace-compress -o k.cfg t/pid-$pid.rec
	run -0 trace-merge -q -o m.cfg k.cfg
	for f in k.cfg m.cfg; do
		run -2 --separate-stderr trace-decode $f
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ $stderr == "trace-decode: $f: stream 0 (pid $pid): incomplete: its process's last calls are missing"* ]]
		printf '%s\n' "$output" | grep -q $'\topen\t'
	done
}

@test "an exit, an exec, a caught SIGTERM end a buffered stream with its END record (exit 0); cut before it, buffered or compacted, it is incomplete" {
	for how in exit exec term; do
		rm -rf t out
		case $how in
		exit) TANGRAM_FLUSH=buffered TANGRAM_DIR=t LD_PRELOAD=$SHIM "$APPS/ticker" 3 0 ;;
		exec) TANGRAM_FLUSH=buffered TANGRAM_DIR=t LD_PRELOAD=$SHIM \
			sh -c "$APPS/ticker 2 0 && exec $APPS/ticker 1 0" ;;
		term)	(TANGRAM_FLUSH=buffered TANGRAM_DIR=t LD_PRELOAD=$SHIM exec "$APPS/ticker" -1 10) &
			pid=$!
			while [ "$(stat -c %s out 2>/dev/null || echo 0)" -lt 5 ]; do sleep 0.01; done
			kill -TERM $pid
			wait $pid || true ;;
		esac
		for f in t/*.rec; do
			run -0 --separate-stderr trace-decode "$f"
			[ -z "$stderr" ]
		done
	done
	# the last frames are the END record and its CHECK (8 + 10 bytes):
	# cut there, the stream ends on a whole chunk, and is not whole
	rm -rf t && TANGRAM_FLUSH=buffered TANGRAM_DIR=t LD_PRELOAD=$SHIM "$APPS/ticker" 3 0
	rm -rf d && TANGRAM_DIR=d LD_PRELOAD=$SHIM "$APPS/ticker" 3 0
	for f in t/*.rec d/*.rec; do
		[ "$(tail -c 18 "$f" | head -c 5 | od -An -tx1 | tr -d ' ')" = 030000000c ]
		head -c $(($(stat -c %s "$f") - 18)) "$f" > cut.rec
		run -2 --separate-stderr trace-decode cut.rec
		[[ $stderr == "trace-decode: cut.rec: incomplete: the stream ends without its end record at byte "* ]]
		[ "$(printf '%s\n' "$output" | grep -c $'\twrite\t')" -eq 3 ]
	done
}

@test ".rec of a clean exit with another thread alive and idle (a pool's): every record checked, exit 0, compacted" {
	run -0 env TANGRAM_DIR=t LD_PRELOAD=$SHIM "$APPS/idlethread" out
	[ "$output" = written ]
	run -0 --separate-stderr trace-decode t/*.rec
	[ -z "$stderr" ]
	[ "$(printf '%s\n' "$output" | awk -F'\t' '$2 == 1 && $8 == "write"' | wc -l)" -eq 100 ]
	# the stream was compacted: no holes of windows left
	[ "$(stat -c %s t/*.rec)" -le "$(($(stat -c %b t/*.rec) * 512))" ]
}

@test ".rec of a clean exit with another thread inside a traced call (a progress thread's read): every record checked, exit 0, compacted" {
	run -0 env TANGRAM_DIR=t LD_PRELOAD=$SHIM "$APPS/idlethread" out blocked
	[ "$output" = written ]
	run -0 --separate-stderr trace-decode t/*.rec
	[ -z "$stderr" ]
	[ "$(printf '%s\n' "$output" | awk -F'\t' '$2 == 1 && $8 == "write"' | wc -l)" -eq 100 ]
	# the read it was in when the process ended never returned: no record
	[ "$(printf '%s\n' "$output" | awk -F'\t' '$2 == 1 && $8 == "read"' | wc -l)" -eq 0 ]
	[ "$(stat -c %s t/*.rec)" -le "$(($(stat -c %b t/*.rec) * 512))" ]
}

@test ".rec version 1 (tests/fixtures/decode) is still read, unchecked" {
	[ "$(od -An -tx1 -j8 -N2 "$TG_TOP/tests/fixtures/decode/good.rec" | tr -d ' ')" = 0100 ]
	run -0 --separate-stderr trace-decode "$TG_TOP/tests/fixtures/decode/good.rec"
	[ "$output" = "$(cat "$TG_TOP/tests/fixtures/decode/good.txt")" ]
	[ -z "$stderr" ]
}

# ---- .hb ----------------------------------------------------------------

@test ".hb (tests/fixtures/hb/small.hb): every bit flipped is refused by hb-query" {
	# every ordered pair of records of the run, answered in one batch
	awk -F'\t' '!/^#/ { r[n++] = $1 ":" $3 }
		END { for (i = 0; i < n; i++) for (j = 0; j < n; j++) if (i != j) print r[i], r[j] }' \
		"$TG_TOP/tests/fixtures/hb/small.txt" > q
	cp "$TG_TOP/tests/fixtures/hb/small.hb" .
	run -0 --separate-stderr hb-query -b small.hb < q
	[ "$(printf '%s\n' "$output" | grep -c yes)" -eq 90 ]
	run -0 "$FLIP" -i q small.hb hb-query -b {}
	echo "$output"
	[[ ${lines[-1]} == "7712 bits: 0 same output, 7712 refused, 0 wrong" ]]
}

# ---- run identity -------------------------------------------------------------

# trace RUN: run tests/conflict/cases.c waw-d on 2 ranks into RUN/, then
# RUN/text, RUN/app.hb and RUN/pairs from it
trace() {
	mkdir "$1"
	(cd "$1" && timeout 120 trace-run -o t -- mpirun.mpich -n 2 ../cases waw-d >/dev/null &&
		trace-decode t/rank-*.rec > text && hb-build -o app.hb text &&
		overlap-find text > pairs)
}

@test "two runs of one MPI program: every derived file names its run; the tools refuse to mix them unless forced" {
	command -v mpicc.mpich >/dev/null || skip "mpicc.mpich is missing"
	export UCX_TLS=${UCX_TLS:-sm,self}
	export MPIR_CVAR_POLLS_BEFORE_YIELD=${MPIR_CVAR_POLLS_BEFORE_YIELD:-1}
	mpicc.mpich -O2 -Wall -o cases "$TG_TOP/tests/conflict/cases.c"
	trace a
	trace b
	# the .hb and the pairs of one run name the same run, the other run another
	for r in a b; do
		run -0 hb-build -s $r/app.hb
		printf '%s\n' "$output" | sed -n 's/^run\t//p' > $r/hb.run
		sed -n 's/^#run\tid=//p' $r/pairs > $r/pairs.run
		[ "$(wc -c < $r/hb.run)" -eq 17 ]
		cmp $r/hb.run $r/pairs.run
		run -0 --separate-stderr conflict-check -j --hb $r/app.hb $r/pairs
		[[ ${lines[-1]} == *"\"run\":\"$(cat $r/hb.run)\""* ]]
	done
	! cmp a/hb.run b/hb.run || false
	# the graph of one run with the pairs of the other: one line, exit 2
	run -2 --separate-stderr conflict-check --hb a/app.hb b/pairs
	[ -z "$output" ]
	[ "$stderr" = "conflict-check: a/app.hb: the graph is of run $(cat a/hb.run), the pairs of run $(cat b/hb.run) (--force mixes runs)" ]
	run -0 --separate-stderr conflict-check --force --hb a/app.hb b/pairs
	[ -n "$output" ] && [ -z "$stderr" ]
	# hb-query: questions that say which run they are about
	printf '#run\tid=%s\n0:1 1:2\n' "$(cat b/hb.run)" > q
	run -2 --separate-stderr hb-query -b a/app.hb < q
	[ -z "$output" ]
	[ "$stderr" = "hb-query: the graph is of run $(cat a/hb.run), the questions of run $(cat b/hb.run) (-f mixes runs)" ]
	run -0 --separate-stderr hb-query -b b/app.hb < q
	[ "$output" = no ] && [ -z "$stderr" ]
	run -0 --separate-stderr hb-query -f -b a/app.hb < q
	[ "$output" = no ] && [ -z "$stderr" ]
	run -2 --separate-stderr hb-query -r "$(cat b/hb.run)" a/app.hb 0:1 1:2
	[ "${#stderr_lines[@]}" -eq 1 ]
	run -0 --separate-stderr hb-query -r "$(cat a/hb.run)" a/app.hb 0:1 1:2
	[ "$output" = no ]
}

@test "the run id is the same from the .rec streams and from the merged .cfg" {
	command -v mpicc.mpich >/dev/null || skip "mpicc.mpich is missing"
	export UCX_TLS=${UCX_TLS:-sm,self}
	export MPIR_CVAR_POLLS_BEFORE_YIELD=${MPIR_CVAR_POLLS_BEFORE_YIELD:-1}
	mpicc.mpich -O2 -Wall -o cases "$TG_TOP/tests/conflict/cases.c"
	trace a
	trace-merge -o a/all.cfg a/t/rank-*.rec
	trace-decode a/all.cfg > cfg.text
	run -0 overlap-find cfg.text
	[ "${lines[1]}" = "$(sed -n 2p a/pairs)" ]
}

@test "a graph written before runs had ids (small-norun.hb) names none and answers questions of any run" {
	F=$TG_TOP/tests/fixtures/hb
	run -0 --separate-stderr hb-build -s "$F/small-norun.hb"
	! grep -q '^run' <<< "$output" || false
	printf '#run\tid=0123456789abcdef\n0:1 1:2\n' > q
	run -0 --separate-stderr hb-query -b "$F/small-norun.hb" < q
	[ "$output" = yes ] && [ -z "$stderr" ]
	run -0 --separate-stderr hb-query -b "$F/small.hb" < <(printf '0:1 1:2\n')
	[ "$output" = yes ]
	run -2 --separate-stderr hb-query -b "$F/small.hb" < q
	[ "${#stderr_lines[@]}" -eq 1 ]
}
