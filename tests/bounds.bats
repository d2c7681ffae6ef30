#!/usr/bin/env bats
# Resource bounds: a 64 KiB path, as many open descriptors as the limit
# allows (up to 100,000), 10,000 communicators -- traced, decoded and
# analysed without a crash, with the right answers and bounded memory
# (peak resident sizes, from the programs themselves and GNU time).

bats_require_minimum_version 1.5.0

setup() {
	T=$BATS_TEST_TMPDIR/w
	SHIM=$TG_TOP/lib/libtangram.so
	APP=$TG_TOP/build/apps/bounds
	unset TANGRAM_DIR TANGRAM_SINK TANGRAM_LAYERS TANGRAM_EXCLUDE \
		TANGRAM_FLUSH TANGRAM_NESTED TANGRAM_SKIP TANGRAM_OFF
	ulimit -c 0
	mkdir "$T"
	cd "$T"
}

# Peak resident KiB of "$@" (GNU time) in $peak; its status and output as run's.
peak_of() {
	run --separate-stderr /usr/bin/time -f 'peak %M' -o "$T/time.out" "$@"
	peak=$(awk '/^peak/ { print $2 }' "$T/time.out")
}

# The VmHWM line a program printed on stderr ($stderr), in KiB.
hwm() {
	printf '%s\n' "$stderr" | awk '/^VmHWM/ { print $2 }'
}

@test "a 64 KiB path: the deep file is not taken for /f, a cut path ends in a hash, the tools agree" {
	run -0 --separate-stderr "$APP" path
	want=$output
	rm -rf d*
	run -0 --separate-stderr env TANGRAM_DIR="$T/trace" LD_PRELOAD="$SHIM" "$APP" path
	[ "$output" = "$want" ]
	rm -rf d*
	run -0 --separate-stderr trace-decode trace/*.rec
	[ -z "$stderr" ]
	printf '%s\n' "$output" > t.txt
	# the file written at the end of the 64 KiB path (cwd too deep for
	# getcwd): named by its directory's identity, never "/f"
	run -0 awk -F'\t' '$8 == "open" && $10 ~ /"\/f"$/' t.txt
	[ -z "$output" ]
	run -0 awk -F'\t' '$8 == "open" && $10 ~ /^path="\/#dir-[0-9a-f]+-[0-9a-f]+\/f"$/' t.txt
	[ "${#lines[@]}" -eq 1 ]
	# the 64 KiB path string: cut, ending in /#HASH, at most 4095 bytes
	run -0 awk -F'\t' '$8 == "open" && $10 ~ /^path="\/d+\/.*\/#[0-9a-f]+"$/ { print length($10) }' t.txt
	[ "${#lines[@]}" -eq 1 ]
	[ "${lines[0]}" -le 4102 ]
	[ "${lines[0]}" -gt 3000 ]
	run -0 --separate-stderr overlap-find t.txt
	[ -z "$stderr" ]
	printf '%s\n' "$output" > t.overlap
	run -0 --separate-stderr conflict-check t.overlap
	[ -z "$stderr" ]
}

@test "as many open descriptors as allowed (up to 100,000): every open traced, overlap-find and trace-report small" {
	run -0 --separate-stderr env TANGRAM_DIR="$T/trace" LD_PRELOAD="$SHIM" "$APP" fds 100000
	n=$(printf '%s\n' "$stderr" | awk '/^descriptors/ { print $2 }')
	echo "descriptors: $n, traced VmHWM $(hwm) KiB"
	[ "$n" -gt 1000 ]
	[ "$(hwm)" -lt 65536 ]
	peak_of trace-decode trace/*.rec
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > t.txt
	# (and the one that failed with EMFILE)
	[ "$(awk -F'\t' '$8 == "open" && $9 != -1' t.txt | grep -c many)" -eq "$n" ]
	[ "$(awk -F'\t' '$8 == "pwrite"' t.txt | wc -l)" -eq "$n" ]
	# (the timeout only guards against a hang)
	peak_of timeout 30 overlap-find -a t.txt
	echo "overlap-find: peak $peak KiB"
	[ "$status" -eq 0 ]
	[ "$peak" -lt 262144 ]
	[ "$(printf '%s\n' "$output" | grep -c '^access')" -eq "$n" ]
	[ "$(printf '%s\n' "$output" | grep -c '^pair')" -eq 0 ]
	# the report of a run of many files: a short list of cells a file
	# (before: 110 KB a file, 2 GB for 20,000)
	peak_of timeout 60 trace-report -o r.html trace/*.rec
	echo "trace-report: peak $peak KiB"
	[ "$status" -eq 0 ]
	[ "$peak" -lt 262144 ]
	grep -q 'Offset against time' r.html
}

@test "10,000 communicators (MPI_Comm_dup/free on 2 ranks): ids reused, the tools' memory bounded" {
	command -v mpicc.mpich >/dev/null || skip "mpicc.mpich is missing"
	export UCX_TLS=${UCX_TLS:-sm,self} MPIR_CVAR_POLLS_BEFORE_YIELD=${MPIR_CVAR_POLLS_BEFORE_YIELD:-1}
	mpicc.mpich -O2 -Wall -o commdup "$TG_TOP/tests/bounds/commdup.c"
	run -0 --separate-stderr trace-run -o t -- mpirun.mpich -n 2 ./commdup 10000
	[ "$output" = "10000 communicators, sum 2" ]
	for k in $(hwm); do
		[ "$k" -lt 131072 ]
	done
	peak_of trace-decode t/rank-0.rec t/rank-1.rec
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	printf '%s\n' "$output" > t.txt
	[ "$(grep -c '^#comm' t.txt)" -eq 20000 ]
	[ "$(cut -f8 t.txt | grep -cx MPI_Comm_free)" -eq 20000 ]
	# a freed communicator's id is given again: two ids in all per rank
	[ "$(awk -F'\t' '/^#comm/ { print $2, $3 }' t.txt | sort -u | wc -l)" -le 4 ]
	peak_of hb-build -q -o t.hb t.txt
	echo "hb-build: peak $peak KiB"
	[ "$status" -eq 0 ]
	[ "$peak" -lt 131072 ]
	peak_of overlap-find -l mpiio t.txt
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > t.overlap
	peak_of conflict-check --hb t.hb t.overlap
	[ "$status" -eq 0 ]
}
