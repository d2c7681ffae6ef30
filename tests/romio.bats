#!/usr/bin/env bats
# What ROMIO does inside an MPI-IO call, ordered by ROMIO's own
# communication: the tracer records the blocking communication and the
# communicator calls ROMIO makes through its library's PMPI_ entries
# (shim/pmpi.c), nested in the MPI-IO call, and hb-build orders the POSIX
# calls inside the MPI-IO call by them.  Real runs of tests/mpi/romio-inside.c
# on 3 ranks under mpirun; the tools under test are given files.

bats_require_minimum_version 1.5.0

MODES="prealloc gather pmpi"

setup_file() {
	export W=$BATS_FILE_TMPDIR
	command -v mpicc.mpich >/dev/null || return 0
	export UCX_TLS=${UCX_TLS:-sm,self}
	export MPIR_CVAR_POLLS_BEFORE_YIELD=${MPIR_CVAR_POLLS_BEFORE_YIELD:-1}
	mpicc.mpich -O2 -Wall -o "$W/romio-inside" "$TG_TOP/tests/mpi/romio-inside.c" || return 0
	local m
	for m in $MODES; do
		mkdir -p "$W/$m"
		(cd "$W/$m" &&
			timeout 120 mpirun.mpich -n 3 "$W/romio-inside" "$m" "$W/$m/plain" > plain.out &&
			timeout 120 trace-run -o t -- mpirun.mpich -n 3 "$W/romio-inside" "$m" \
				"$W/$m/data" > traced.out &&
			trace-decode t/rank-*.rec > text && hb-build -o app.hb text 2> hb.err &&
			overlap-find text > pairs) || return 0
	done
	touch "$W/mpi-ok"
}

setup() {
	[ -f "$W/mpi-ok" ] || skip "mpicc.mpich is missing, or tracing romio-inside failed"
	cd "$BATS_TEST_TMPDIR"
}

# nested MODE RANK FUNC CHILD: the seqs of RANK's CHILD records nested in
# its (last) FUNC call
nested() {
	awk -F'\t' -v r="$2" -v f="$3" -v c="$4" '
		$1 == r && $8 == c && $NF ~ /^parent=/ { s[++n] = $3; p[n] = substr($NF, 8) }
		$1 == r && $8 == f { want = $3 }
		END { for (i = 1; i <= n; i++) if (p[i] == want) print s[i] }' "$W/$1/text"
}

@test "the program prints the same traced and untraced; every graph built without a problem" {
	for m in $MODES; do
		[ "$(cat "$W/$m/plain.out")" = ok ]
		cmp "$W/$m/plain.out" "$W/$m/traced.out"
		[ ! -s "$W/$m/hb.err" ]
		run -0 hb-build -s "$W/$m/app.hb"
		[ "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "problems" { print $2 }')" = 0 ]
	done
}

@test "MPI_File_open: ROMIO's copy of the communicator is made inside it (MPI_Comm_dup, nested, with its #comm line)" {
	for r in 0 1 2; do
		[ -n "$(nested prealloc $r MPI_File_open MPI_Comm_dup)" ]
	done
	grep -q "^#comm	rank=0	id=c1	members=\[0,1,2\]" "$W/prealloc/text"
	# and the MPI-IO calls' collectives are on it
	[ -n "$(awk -F'\t' '$8 == "MPI_Barrier" && /comm=c1/ && $NF ~ /^parent=/' "$W/prealloc/text")" ]
}

@test "prealloc: one rank's writes inside MPI_File_preallocate happen before the others' writes, by ROMIO's barrier inside it" {
	local r w0 w1 b p=prealloc
	# the rank that preallocated: pwrite calls inside its preallocate
	for r in 0 1 2; do
		[ -n "$(nested $p $r MPI_File_preallocate pwrite)" ] && break
	done
	w0=$(nested $p $r MPI_File_preallocate pwrite | tail -n 1)
	b=$(nested $p $r MPI_File_preallocate MPI_Barrier)
	[ -n "$w0" ] && [ -n "$b" ] && [ "$b" -gt "$w0" ]
	o=$(( (r + 1) % 3 ))
	w1=$(nested $p $o MPI_File_write_at_all pwrite)
	[ -n "$w1" ]
	run -0 --separate-stderr hb-query "$W/$p/app.hb" "$r:$w0" "$o:$w1" "$o:$w1" "$r:$w0"
	[ "$output" = "$(printf '%s\n' yes no)" ]
	# so every pair of the POSIX layer is ordered: posix is enough, and
	# nothing is "not synchronized" (before: 2 pairs, no model)
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" "$W/$p/t"
	[ -z "$stderr" ]
	[ "${lines[-2]}" = "POSIX layer: recommended consistency: posix" ]
	[ "${lines[-1]}" = "MPI-IO layer: recommended consistency: mpiio" ]
}

@test "gather: the reads inside MPI_File_read_at_all come after ROMIO's MPI_Allgather, so after the other ranks' writes; MPI-IO's rules still call it a race" {
	local a r w g n=0 p=gather
	# the reads cross (each rank its neighbour's block): ROMIO reads for
	# all in one aggregator, after gathering every rank's offsets
	for a in 0 1 2; do
		for w in $(nested $p $a MPI_File_read_at_all pread); do
			g=$(nested $p $a MPI_File_read_at_all MPI_Allgather | head -n 1)
			[ -n "$g" ] && [ "$w" -gt "$g" ]
			for r in 0 1 2; do
				[ "$r" = "$a" ] && continue
				run -0 --separate-stderr hb-query "$W/$p/app.hb" \
					"$r:$(nested $p $r MPI_File_write_at pwrite)" "$a:$w"
				[ "$output" = yes ]
				n=$((n + 1))
			done
		done
	done
	[ "$n" -ge 2 ]
	run -0 --separate-stderr conflict-check --hb "$W/$p/app.hb" --model posix "$W/$p/pairs"
	[ "${lines[-1]}" = "posix    (all files)                                    0       0       0       0" ]
	# the MPI-IO layer: no sync-barrier-sync, not ordered by the standard
	run -1 --separate-stderr "$TG_TOP/pipelines/verify-io" "$W/$p/t"
	[ "${lines[-2]}" = "POSIX layer: recommended consistency: posix" ]
	[ "${lines[-1]}" = "MPI-IO layer: recommended consistency: posix (no model makes this run correct)" ]
	[ "${stderr_lines[0]}" = "verify-io: MPI-IO layer: 3 conflicting pairs are not synchronized: no model makes this run correct" ]
}

@test "pmpi: the program's own PMPI_ calls outside MPI-IO calls go to the library untraced" {
	# its PMPI_Barrier between the syncs is not in the trace: every
	# MPI_Barrier recorded is ROMIO's, inside an MPI-IO call
	[ "$(awk -F'\t' '$8 == "MPI_Barrier"' "$W/pmpi/text" | wc -l)" -eq 3 ]
	[ -z "$(awk -F'\t' '$8 == "MPI_Barrier" && $6 == 0' "$W/pmpi/text")" ]
}

@test "linked with -ltangram-mpi: ROMIO's communication inside the MPI-IO calls is recorded the same way" {
	mpicc.mpich -O2 -o linked "$TG_TOP/tests/mpi/romio-inside.c" -L"$TG_TOP/lib" -ltangram-mpi \
		-Wl,-rpath,"$TG_TOP/lib"
	run -0 env TANGRAM_DIR=t timeout 120 mpirun.mpich -n 3 ./linked prealloc "$PWD/data"
	[ "$output" = ok ]
	trace-decode t/rank-*.rec > text
	local r p
	for r in 0 1 2; do
		p=$(awk -F'\t' -v r=$r '$1 == r && $8 == "MPI_File_preallocate" { print $3 }' text)
		[ -n "$p" ]
		grep -q "^$r	0	[0-9]*	[^	]*	[^	]*	1	mpi	MPI_Barrier	0	comm=c[0-9]*	parent=$p\$" text
	done
}
