#!/usr/bin/env bats
# Inputs the fuzzers of tests/fuzz/ found a crash, a hang or undefined
# behaviour with, one folder per parser under tests/golden-bad/.  Each is
# fed to the real tool that reads such input: it must be refused with exit
# status 2 and exactly one line on stderr -- never a signal, never a hang.

bats_require_minimum_version 1.5.0

G=$BATS_TEST_DIRNAME/golden-bad

# The tool that reads the inputs of parser $1, the file $2 appended.
tool_for() {
	case $1 in
	rec|cfg) echo trace-decode ;;
	hb) echo hb-query ;;
	text|types|overlap-find) echo overlap-find ;;
	conflict-check) echo conflict-check ;;
	*) return 1 ;;
	esac
}

@test "every golden-bad input: exit 2, one line on stderr, no signal" {
	local n=0 dir f tool

	for dir in "$G"/*/; do
		tool=$(tool_for "$(basename "$dir")")
		for f in "$dir"*; do
			[ -f "$f" ] || continue
			run --separate-stderr timeout 60 "$tool" "$f"
			echo "$tool $f: status $status, stderr: $stderr"
			[ "$status" -eq 2 ]
			[ -n "$stderr" ]
			[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
			n=$((n + 1))
		done
	done
	[ "$n" -gt 0 ]
}

# The gcc sanitizers of "make check SANITIZE=1" miss some of what clang's
# find (NULL + 0): the inputs also go through the harness that found them,
# once "make fuzz" has built it.
@test "every golden-bad input through its fuzz harness: no finding" {
	local n=0 dir f h

	for dir in "$G"/*/; do
		h=$TG_TOP/build/fuzz/fuzz-$(basename "$dir")
		[ -x "$h" ] || continue
		for f in "$dir"*; do
			[ -f "$f" ] || continue
			run timeout 60 "$h" "$f"
			echo "$h $f: status $status"
			[ "$status" -eq 0 ]
			n=$((n + 1))
		done
	done
	[ "$n" -gt 0 ] || skip "no harness built (make fuzz)"
}
