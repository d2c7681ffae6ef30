#!/usr/bin/env bats
# tests/run-tests (make check): its closing line counts passed, failed and
# skipped tests, and its status says whether any failed.

bats_require_minimum_version 1.5.0

setup() {
	cd "$BATS_TEST_TMPDIR"
	# "@test" would be read as a test of this file: built from two parts
	t=@test
	printf '%s\n' "$t \"passes\" { true; }" "$t \"is skipped\" { skip 'not here'; }" \
		"$t \"fails\" { false; }" "$t \"passes too\" { true; }" > mixed.bats
	printf '%s\n' "$t \"passes\" { true; }" "$t \"is skipped\" { skip; }" > clean.bats
}

@test "a failure, a skip and two passes: '2 passed, 1 failed, 1 skipped', status 1" {
	run -1 --separate-stderr "$TG_TOP/tests/run-tests" "$PWD/mixed.bats"
	[ "${lines[-1]}" = "2 passed, 1 failed, 1 skipped" ]
	[[ $output == *"FAIL: not ok 3 fails"* ]]
}

@test "a skip and no failure: status 0, the skip counted apart from the passes" {
	run -0 --separate-stderr "$TG_TOP/tests/run-tests" "$PWD/clean.bats" "$PWD/clean.bats"
	[ "${lines[-1]}" = "2 passed, 0 failed, 2 skipped" ]
}
