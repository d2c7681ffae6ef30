#!/usr/bin/env bats
# Pairs summed per call pair: a real MPI program (tests/mpi/ncoll.c) on 2
# ranks writes one noncontiguous view of 1000 blocks with one collective
# MPI_File_write_at_all from every rank, then syncs, barriers, syncs and
# reads it back collectively.  overlap-find -l mpiio writes one pair line
# per two calls (with pieces= and bytes=), --all-pairs one per two pieces;
# conflict-check judges both the same.  The tools under test are always
# given a file.

bats_require_minimum_version 1.5.0

setup_file() {
	export W=$BATS_FILE_TMPDIR
	command -v mpicc.mpich >/dev/null || return 0
	export UCX_TLS=${UCX_TLS:-sm,self}
	export MPIR_CVAR_POLLS_BEFORE_YIELD=${MPIR_CVAR_POLLS_BEFORE_YIELD:-1}
	mpicc.mpich -O2 -Wall -o "$W/ncoll" "$TG_TOP/tests/mpi/ncoll.c" || return 0
	(cd "$W" && timeout 120 trace-run -o t -- mpirun.mpich -n 2 "$W/ncoll" "$W/n.dat" 1000 \
		>/dev/null && trace-decode t/rank-*.rec > text && hb-build -o app.hb text) ||
		return 0
	touch "$W/mpi-ok"
}

setup() {
	[ -f "$W/mpi-ok" ] || skip "mpicc.mpich is missing, or tracing ncoll failed"
	cd "$BATS_TEST_TMPDIR"
}

# callpairs FILE: the distinct two calls (rank seq rank seq) of FILE's pairs
callpairs() {
	awk -F'\t' '$1 == "pair" { print $3, $4, $11, $12 }' "$1" | sort -u
}

# verdicts FILE: conflict-check -v's lines of FILE without the byte ranges
# and the pieces, one per distinct line
verdicts() {
	conflict-check --hb "$W/app.hb" -v --model all "$1" |
		awk -F'\t' -v OFS='\t' '/^(RAW|WAW)-/ {
			sub(/ \[[0-9]+,[0-9]+\)$/, "", $3); sub(/ \[[0-9]+,[0-9]+\)$/, "", $4)
			sub(/\tpieces=.*/, ""); print }' | sort -u
}

@test "overlap-find -l mpiio: one line per two calls, as many as the full list has call pairs, with its pieces and bytes summed" {
	run -0 --separate-stderr overlap-find -l mpiio "$W/text"
	printf '%s\n' "$output" > pairs
	[ -z "$stderr" ]
	run -0 --separate-stderr overlap-find --all-pairs -l mpiio "$W/text"
	printf '%s\n' "$output" > all
	# each rank's write with the other's, with its own read and with the
	# other's read: 5 call pairs of 1000 pieces of 8 bytes
	[ "$(grep -c '^pair' all)" -eq 5000 ]
	[ "$(grep -c '^pair' pairs)" -eq 5 ]
	[ "$(callpairs pairs)" = "$(callpairs all)" ]
	[ "$(grep -c $'\tpieces=1000\tbytes=8000$' pairs)" -eq 5 ]
	# the pieces and the bytes are those of the full list
	[ "$(awk -F'\t' '$1 == "pair" { split($19, p, "="); n += p[2] } END { print n }' pairs)" -eq 5000 ]
	[ "$(awk -F'\t' '$1 == "pair" { split($20, b, "="); n += b[2] } END { print n }' pairs)" = \
	  "$(awk -F'\t' '$1 == "pair" { lo = $9 > $17 ? $9 : $17; hi = $10 < $18 ? $10 : $18
		n += hi - lo } END { print n }' all)" ]
	# the events are the same
	[ "$(grep '^#' pairs)" = "$(grep '^#' all)" ]
}

@test "conflict-check: the same verdicts from the summed pairs as from every piece" {
	overlap-find -l mpiio "$W/text" > pairs
	overlap-find --all-pairs -l mpiio "$W/text" > all
	verdicts pairs > v.pairs
	verdicts all > v.all
	[ "$(wc -l < v.pairs)" -eq 5 ]
	diff v.all v.pairs
	# the WAW-D pair of the collective write is a race, the reads are
	# ordered by sync-barrier-sync
	grep -q $'^WAW-D\t.*\tsynchronized=no$' v.pairs
	[ "$(grep -c $'^RAW-D\t.*\tmpiio=ok\tsynchronized=yes\t.*\tsync1=' v.pairs)" -eq 2 ]
	run -1 --separate-stderr conflict-check --hb "$W/app.hb" --recommend --fail-on-unsynchronized all
	[ "$output" = posix ]
	run -1 --separate-stderr conflict-check --hb "$W/app.hb" --recommend --fail-on-unsynchronized pairs
	[ "$output" = posix ]
	[ "${stderr_lines[0]}" = "conflict-check: 1 conflicting pair is not synchronized: no model makes this run correct" ]
	# the two ranks' parts of the one MPI_File_write_at_all
	[[ ${stderr_lines[1]} == "conflict-check: 1 of them are the parts of different ranks in collective calls"* ]]
	[ "${#stderr_lines[@]}" -eq 2 ]
}

@test "conflict-check: the table counts the pair lines, -v and --json give their pieces and bytes" {
	overlap-find -l mpiio "$W/text" > pairs
	run -0 --separate-stderr conflict-check --hb "$W/app.hb" -v --model session pairs
	[ "${#lines[@]}" -eq 8 ]
	[[ ${lines[0]} == *$'\tpieces=1000\tbytes=8000' ]]
	[[ ${lines[-1]} =~ ^session\ +\(all\ files\)\ +0\ +1\ +2\ +2$ ]]
	run -0 --separate-stderr conflict-check --hb "$W/app.hb" --json pairs
	[ "$(printf '%s\n' "${lines[0]}" | jq -c '[.pieces, .bytes]')" = '[1000,8000]' ]
	[ "$(printf '%s\n' "${lines[-1]}" | jq -c '.summary[0] | [.pieces, .bytes, .conflicts.posix["WAW-D"]]')" = '[5000,40000,1]' ]
}

@test "verify-io -l mpiio: the table of the collective counts its call pairs" {
	run -1 --separate-stderr "$TG_TOP/pipelines/verify-io" -l mpiio "$W/t"
	[[ $output =~ session\ +\(all\ files\)\ +0\ +1\ +2\ +2 ]]
	[[ $output == *"MPI-IO layer: recommended consistency: posix"* ]]
}

@test "overlap-find: calls of one piece each make the same lines with and without --all-pairs" {
	run -0 overlap-find "$W/text"
	printf '%s\n' "$output" > posix
	run -0 overlap-find --all-pairs "$W/text"
	[ "$output" = "$(cat posix)" ]
	! grep -q 'pieces=' posix || false
}

@test "conflict-check: a malformed pieces field is an error" {
	printf '#overlap\tversion=1\tlayer=mpiio\n#file\tfile=0\tpath="/f"\n' > head
	line=$'pair\t0\t0\t1\t1.0\t1.1\tW\tMPI_File_write\t0\t100\t1\t1\t2.0\t2.1\tW\tMPI_File_write\t0\t100'
	for tail in $'\tpieces=0\tbytes=0' $'\tpieces=2' $'\tpieces=2\tbytes=-1' $'\tbytes=2\tpieces=x'; do
		{ cat head; printf '%s%s\n' "$line" "$tail"; } > bad
		run -2 --separate-stderr conflict-check bad
		[ "$stderr" = "conflict-check: bad:3: malformed pair line" ]
	done
	{ cat head; printf '%s\tpieces=2\tbytes=150\n' "$line"; } > good
	run -0 --separate-stderr conflict-check -v --model posix good
	[[ ${lines[0]} == *$'\tpieces=2\tbytes=150' ]]
}

@test "overlap-find --all-pairs: listed in the usage" {
	run -0 overlap-find -h
	[[ $output == *"[--all-pairs]"* ]]
}

@test "verify-io: overlap-find once per layer, the layer not needed to find the layers piped to conflict-check, not written to disk" {
	mkdir d
	cp "$TG_TOP/pipelines/verify-io" d/
	for p in trace-decode hb-build conflict-check; do
		ln -s "$TG_TOP/bin/$p" d/$p
	done
	# an overlap-find that says where its output goes
	printf '#!/bin/sh\nif [ -p /dev/stdout ]; then w=pipe; else w=file; fi\necho "$2 $w" >> "%s/runs"\nexec "%s" "$@"\n' \
		"$PWD" "$TG_TOP/bin/overlap-find" > d/overlap-find
	chmod +x d/overlap-find
	PATH=/usr/bin:/bin run -1 --separate-stderr d/verify-io "$W/t"
	[ "$(sort runs)" = $'mpiio file\nposix pipe' ]
	[[ $output == *"POSIX layer: recommended consistency: "* ]]
	[[ $output == *"MPI-IO layer: recommended consistency: posix"* ]]
}

@test "conflict-check --sites: the pairs summed by file, kind and the two functions, after the table" {
	overlap-find -l mpiio "$W/text" > pairs
	run -0 --separate-stderr conflict-check --hb "$W/app.hb" --sites --model session pairs
	[ "${#lines[@]}" -eq 6 ]
	[ "${lines[3]}" = "site	WAW-D	$W/n.dat	MPI_File_write_at_all	MPI_File_write_at_all	pairs=1	pieces=1000	bytes=8000	unsynchronized=1	posix=1	commit=1	session=1	mpiio=1" ]
	[ "${lines[4]}" = "site	RAW-S	$W/n.dat	MPI_File_write_at_all	MPI_File_read_at_all	pairs=2	pieces=2000	bytes=16000	unsynchronized=0	posix=0	commit=0	session=2	mpiio=0" ]
	[ "${lines[5]}" = "site	RAW-D	$W/n.dat	MPI_File_write_at_all	MPI_File_read_at_all	pairs=2	pieces=2000	bytes=16000	unsynchronized=0	posix=0	commit=0	session=2	mpiio=0" ]
	# the same sums from every piece, but for the pairs
	overlap-find --all-pairs -l mpiio "$W/text" > all
	run -0 --separate-stderr conflict-check --hb "$W/app.hb" --sites --model session all
	[[ ${lines[3]} == *$'\tpairs=1000\tpieces=1000\tbytes=8000\tunsynchronized=1000\t'* ]]
	run -0 --separate-stderr conflict-check --hb "$W/app.hb" --sites --json pairs
	[ "$(printf '%s\n' "${lines[-1]}" | jq -c '[.sites[] | [.kind, .procs, .pairs, .pieces, .bytes]]')" = \
	  '[["WAW","D",1,1000,8000],["RAW","S",2,2000,16000],["RAW","D",2,2000,16000]]' ]
}
