#!/usr/bin/env bats
# make demo: the README's first command, run whole.

bats_require_minimum_version 1.5.0

setup() {
	cd "$TG_TOP"
}

@test "make demo: traces, compresses, recommends session, runs on TangramFS, stages out the same bytes" {
	run -0 --separate-stderr timeout 600 tests/demo/run
	[ -z "$stderr" ] || { echo "$stderr"; false; }
	[[ "$output" == *"ckpt: 4 ranks x 64 x 64 KiB: write "*"every byte checked"* ]]
	[[ "$output" == *"recommended consistency: session"* ]]
	[[ "$output" == *"ordered by: happens-before (hb-build)"* ]]
	# rank 1 writes segment i at (4 i + 1) * 64 KiB
	[[ "$output" == *$'pwrite\t65536\tfd='*$'offset=65536\n'* ]]
	[[ "$output" == *"the overlapping accesses behind it (256 pairs)"* ]]
	[[ "$output" == *$'\n  RAW-D\n  ckpt.dat\n'*$'\n  synchronized=yes\n'* ]]
	[[ "$output" == *"== 4. run it on TangramFS under 'session' and under 'posix'"* ]]
	[ "$(grep -c 'every byte checked' <<< "$output")" -eq 4 ]
	[[ "$output" == *"staged out: ckpt-posix.dat is byte for byte the file written straight to disk"* ]]
	[[ "$output" == *"staged out: ckpt-session.dat is byte for byte the file written straight to disk"* ]]
	[ "${lines[-1]}" = "the report of this run is in $TG_TOP/build/demo/report.html (open it in a browser)" ]
	grep -q '<b id="recommended">session</b>' build/demo/report.html
}
