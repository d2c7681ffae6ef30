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
	at=$((size / 2))
	cp g.rec bad.rec
	printf '\x5a' | dd of=bad.rec bs=1 seek=$at conv=notrunc status=none
	run -2 --separate-stderr trace-decode bad.rec
	[ "${#stderr_lines[@]}" -eq 1 ]
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
	(TANGRAM_DIR=t LD_PRELOAD=$SHIM exec "$APPS/ticker" -1 10) &
	pid=$!
	for ((i = 0; i < 500; i++)); do
		[ "$(stat -c %s out 2>/dev/null || echo 0)" -gt 150 ] && break
		sleep 0.01
	done
	kill -KILL "$pid"
	wait "$pid" || true
	run -2 --separate-stderr trace-decode t/pid-$pid.rec
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "trace-decode: t/pid-$pid.rec: torn tail: records from byte "*" on have no checksum (the writer did not finish)" ]]
	# every write the program made before the kill (a record is in the
	# file when its call returns), the last ones unchecked
	n=$(printf '%s\n' "$output" | grep -c $'\twrite\t')
	[ "$n" -ge 150 ]
	[ "$n" -ge "$(($(stat -c %s out) - 1))" ]
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
	[[ ${lines[-1]} == "7456 bits: 0 same output, 7456 refused, 0 wrong" ]]
}
