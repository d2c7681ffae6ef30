#!/usr/bin/env bats
# The MPI-IO consistency model (conflict-check --model mpiio, MPI 4.1
# §14.6.1) on real MPI-IO programs (tests/conflict/mpiiosync.c) run on 2
# ranks under mpirun and traced with the shim: rank 0 writes 64 bytes,
# rank 1 reads them; sync-barrier-sync, a sync on the writer only, atomic
# mode, atomic mode switched off again, close-to-open, a write and a read
# in atomic mode with nothing between them; both ranks writing the same
# bytes in one collective call, and in independent calls; the size of the
# file asked for instead of its bytes read.  Each trace goes
# through hb-build and overlap-find -l mpiio into files; the tools under
# test are always given a file.  Then verify-io, which gives the MPI-IO
# layer's verdict beside the POSIX layer's.

bats_require_minimum_version 1.5.0

CASES="sbs writer-sync atomic atomic-off reopen atomic-race coll-same ind-same getsize"

setup_file() {
	export W=$BATS_FILE_TMPDIR
	command -v mpicc.mpich >/dev/null || return 0
	export UCX_TLS=${UCX_TLS:-sm,self}
	export MPIR_CVAR_POLLS_BEFORE_YIELD=${MPIR_CVAR_POLLS_BEFORE_YIELD:-1}
	mpicc.mpich -O2 -Wall -o "$W/mpiiosync" "$TG_TOP/tests/conflict/mpiiosync.c" || return 0
	for c in $CASES; do
		mkdir -p "$W/$c"
		(cd "$W/$c" && timeout 120 trace-run -o t -- mpirun.mpich -n 2 "$W/mpiiosync" "$c" \
			>/dev/null && trace-decode t/rank-*.rec > text && hb-build -o app.hb text &&
			overlap-find -l mpiio text > pairs && overlap-find text > posix-pairs) ||
			return 0
	done
	touch "$W/mpi-ok"
}

setup() {
	[ -f "$W/mpi-ok" ] || skip "mpicc.mpich is missing, or tracing mpiiosync failed"
	cd "$BATS_TEST_TMPDIR"
}

# check CASE [conflict-check options]: conflict-check --hb on the case's
# MPI-IO pairs
check() {
	local c=$1
	shift
	conflict-check --hb "$W/$c/app.hb" "$@" "$W/$c/pairs"
}

# seqs CASE RANK FUNC: the seqs of RANK's calls of FUNC, in order
seqs() {
	awk -F'\t' -v f="$3" '$8 == f { print $3 }' "$W/$1/text-$2"
}

# calls CASE: split the case's text by rank into text-0, text-1
calls() {
	awk -F'\t' -v d="$W/$1" '$1 ~ /^[0-9]+$/ { print > (d "/text-" $1) }' "$W/$1/text"
}

@test "sync-barrier-sync: correct under mpiio, ordered by the writer's first MPI_File_sync and the reader's second" {
	calls sbs
	s1=$(seqs sbs 0 MPI_File_sync | head -n 1)
	s2=$(seqs sbs 1 MPI_File_sync | tail -n 1)
	[ "$(seqs sbs 1 MPI_File_sync | wc -l)" -eq 2 ]
	run -0 --separate-stderr check sbs -v --model mpiio
	[ "${#lines[@]}" -eq 3 ]
	[[ ${lines[0]} == RAW-D$'\t'*$'\tposix=ok\tcommit=ok\tsession=conflict\tmpiio=ok\tsynchronized=yes\tcommit=0:'"$s1"$'\tsync1=0:'"$s1"$'\tsync2=1:'"$s2" ]]
	[[ ${lines[2]} =~ ^mpiio\ +\(all\ files\)\ +0\ +0\ +0\ +0$ ]]
	[ -z "$stderr" ]
	run -0 --separate-stderr check sbs --recommend
	[ "$output" = mpiio ]
}

@test "writer-only sync (write; sync; barrier; read): not enough under mpiio, the writer's sync makes it commit-safe" {
	run -0 --separate-stderr check writer-sync -v --model mpiio
	[[ ${lines[0]} == RAW-D$'\t'*$'\tposix=ok\tcommit=ok\tsession=conflict\tmpiio=conflict\tsynchronized=yes\tcommit=0:'[0-9]* ]]
	[[ ${lines[0]} != *sync1=* ]]
	[[ ${lines[-1]} =~ ^mpiio\ +\(all\ files\)\ +0\ +0\ +0\ +1$ ]]
	run -0 --separate-stderr check writer-sync --recommend
	[ "$output" = commit ]
	[ -z "$stderr" ]
	# still properly ordered: no race
	run -0 check writer-sync --fail-on-unsynchronized
}

@test "atomic mode (set_atomicity 1, write, barrier, read): correct under mpiio with no sync; switched off again it is not" {
	run -0 --separate-stderr check atomic -v --model mpiio
	[[ ${lines[0]} == RAW-D$'\t'*$'\tposix=ok\tcommit=conflict\tsession=conflict\tmpiio=ok\tsynchronized=yes\tatomic=yes' ]]
	run -0 check atomic --recommend
	[ "$output" = mpiio ]
	run -0 --separate-stderr check atomic-off -v --model mpiio
	[[ ${lines[0]} == RAW-D$'\t'*$'\tposix=ok\tcommit=conflict\tsession=conflict\tmpiio=conflict\tsynchronized=yes' ]]
	run -0 check atomic-off --recommend
	[ "$output" = posix ]
}

@test "atomic mode, a write and a read with nothing between them: not ordered, yet correct under mpiio and not a race" {
	run -0 --separate-stderr check atomic-race -v --model mpiio
	run -0 grep -c $'\tsynchronized=no\t' <<< "$output"
	[ "$output" = 1 ]
	run -0 --separate-stderr check atomic-race -v --model mpiio
	[[ $output == *RAW-D$'\t'*$'\tposix=conflict\tcommit=conflict\tsession=conflict\tmpiio=ok\tsynchronized=no\tatomic=yes'* ]]
	run -0 --separate-stderr check atomic-race --recommend --fail-on-unsynchronized
	[ "$output" = mpiio ]
	[ -z "$stderr" ]
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" "$W/atomic-race/t"
	[[ $output == *"MPI-IO layer: recommended consistency: mpiio"* ]]
}

@test "two ranks' overlapping writes in one collective call: a race, and said to be the parts of one call; independent ones of one range are said to be that" {
	run -0 --separate-stderr check coll-same --recommend
	[ "$output" = posix ]
	[ "${#stderr_lines[@]}" -eq 2 ]
	[[ ${stderr_lines[0]} == *"1 conflicting pair is not synchronized: no model makes this run correct" ]]
	[[ ${stderr_lines[1]} == *"1 of them are the parts of different ranks in collective calls"*"harmless only when the ranks write the same bytes" ]]
	# verify-io gives no barrier advice where no message can order the
	# pairs: two parts of one call (until 2026-12-04 it did)
	run -1 --separate-stderr "$TG_TOP/pipelines/verify-io" "$W/coll-same/t"
	[[ $stderr == *"1 of them are the parts of different ranks in collective calls"* ]]
	[[ $stderr != *"it takes a barrier"* ]]
	run -0 --separate-stderr check ind-same --recommend
	[ "${#stderr_lines[@]}" -eq 2 ]
	[[ ${stderr_lines[0]} == *"1 conflicting pair is not synchronized: no model makes this run correct" ]]
	[[ ${stderr_lines[1]} == *"1 of them are writes of one range by two processes in the same function, not ordered"*"harmless only when they write the same bytes" ]]
}

@test "MPI_File_get_size after another rank's write: a look at the file's last byte (S), ordered by sync-barrier-sync; the POSIX layer (ROMIO's lseek) needs commit" {
	run -0 --separate-stderr check getsize -v --model mpiio
	[[ ${lines[0]} == RAW-D$'\t'*$'\t0:'*$' MPI_File_write_at W [0,64)\t1:'*$' MPI_File_get_size S [63,64)\tposix=ok\tcommit=ok\tsession=conflict\tmpiio=ok\tsynchronized=yes\t'* ]]
	overlap-find -a "$W/getsize/text" > of
	[ "$(grep -c $'^access\t0\t1\t[0-9]*\t[0-9.]*\t[0-9.]*\tS\tlseek\t63\t64$' of)" -eq 1 ]
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" "$W/getsize/t"
	[[ $output == *"POSIX layer: recommended consistency: commit"* ]]
	[[ $output == *"MPI-IO layer: recommended consistency: mpiio"* ]]
}

@test "overlap-find: MPI_File_set_atomicity turns a handle's mode into atomic/nonatomic events, naming its collective open, and its close ends it" {
	run -0 --separate-stderr awk -F'\t' '$1 == "#event" && $6 ~ /atomic$/ { print $3, $6, $7 }' "$W/atomic/pairs"
	[ "$output" = "rank=0 kind=atomic func=MPI_File_set_atomicity
rank=0 kind=nonatomic func=MPI_File_close
rank=1 kind=atomic func=MPI_File_set_atomicity
rank=1 kind=nonatomic func=MPI_File_close" ]
	run -0 --separate-stderr awk -F'\t' '$1 == "#event" && $6 ~ /atomic$/ { print $3, $6, $7 }' "$W/atomic-off/pairs"
	[ "$output" = "rank=0 kind=atomic func=MPI_File_set_atomicity
rank=0 kind=nonatomic func=MPI_File_set_atomicity
rank=1 kind=atomic func=MPI_File_set_atomicity
rank=1 kind=nonatomic func=MPI_File_set_atomicity" ]
	# the two ranks' handles are of one collective open: one open= id
	run -0 awk -F'\t' '$1 == "#event" && $6 == "kind=atomic" { print $8 }' "$W/atomic/pairs"
	[ "${#lines[@]}" -eq 2 ] && [[ ${lines[0]} == open=[0-9]* ]] && [ "${lines[0]}" = "${lines[1]}" ]
}

@test "close, barrier, open: the close and the open are the syncs; session suffices" {
	run -0 --separate-stderr check reopen -v --model all
	[[ ${lines[0]} == RAW-D$'\t'*$'\tposix=ok\tcommit=ok\tsession=ok\tmpiio=ok\tsynchronized=yes\tcommit=0:'*$'\tclose=0:'*$'\topen=1:'*$'\tsync1=0:'*$'\tsync2=1:'* ]]
	run -0 check reopen --recommend
	[ "$output" = session ]
}

@test "a process's own MPI-IO pair is in program order under mpiio, no sync needed (by the clocks too)" {
	run -0 --separate-stderr conflict-check -v --model all "$TG_TOP/tests/conflict/mpiio-own.overlap"
	[ "${lines[0]}" = $'RAW-S\t/d/own\t0:2 MPI_File_write_at W [0,100)\t0:4 MPI_File_read_at R [0,100)\tposix=ok\tcommit=conflict\tsession=conflict\tmpiio=ok\tsynchronized=yes' ]
	run -0 conflict-check --strict --recommend "$TG_TOP/tests/conflict/mpiio-own.overlap"
	[ "$output" = mpiio ]
}

@test "--model all shows mpiio for MPI-IO pairs only; --model mpiio of POSIX pairs: one line, exit 2" {
	run -0 check sbs --model all
	[ "$(printf '%s\n' "$output" | grep -c '^mpiio ')" -eq 1 ]
	run -0 conflict-check --hb "$W/sbs/app.hb" --model all -v "$W/sbs/posix-pairs"
	[[ $output != *mpiio* ]]
	run -2 --separate-stderr conflict-check --model mpiio "$W/sbs/posix-pairs"
	[ -z "$output" ]
	[ "$stderr" = "conflict-check: $W/sbs/posix-pairs: model mpiio judges MPI-IO pairs (overlap-find -l mpiio), not layer posix" ]
	run -2 --separate-stderr conflict-check --model eventual "$W/sbs/pairs"
	[ "$stderr" = "conflict-check: option --model: unknown model 'eventual' (posix, commit, session, mpiio, all)" ]
}

@test "--json: the mpiio verdict, the syncs' seqs, atomic mode" {
	run -0 --separate-stderr check sbs --json
	[ "$(printf '%s\n' "${lines[0]}" | jq -c '[.conflict.mpiio, .sync1_seq > 0, .sync2_seq > 0, .atomic]')" = '[false,true,true,null]' ]
	[ "$(printf '%s\n' "${lines[1]}" | jq -c '.summary[0].conflicts.mpiio["RAW-D"]')" = 0 ]
	run -0 --separate-stderr check atomic --json
	[ "$(printf '%s\n' "${lines[0]}" | jq -c '[.conflict.mpiio, .conflict.commit, .atomic]')" = '[false,true,true]' ]
	run -0 --separate-stderr check writer-sync --json
	[ "$(printf '%s\n' "${lines[0]}" | jq -c '[.conflict.mpiio, .sync1_seq]')" = '[true,null]' ]
}

@test "verify-io: the POSIX layer's verdict and the MPI-IO layer's, each named" {
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" "$W/sbs/t"
	[ "${lines[0]}" = "POSIX layer (POSIX and stdio calls):" ]
	[[ $output == *$'\n\nMPI-IO layer (MPI_File calls):\nmodel '* ]]
	[ "${lines[-3]}" = "ordered by: happens-before (hb-build)" ]
	[[ ${lines[-2]} == "POSIX layer: recommended consistency: "* ]]
	[ "${lines[-1]}" = "MPI-IO layer: recommended consistency: mpiio" ]
	[[ ${lines[-4]} =~ ^mpiio\ +\(all\ files\)\ +0\ +0\ +0\ +0$ ]]
	[ -z "$stderr" ]
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" "$W/writer-sync/t"
	[ "${lines[-1]}" = "MPI-IO layer: recommended consistency: commit" ]
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" "$W/atomic/t"
	[ "${lines[-1]}" = "MPI-IO layer: recommended consistency: mpiio" ]
	# -l: one layer only
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" -l mpiio "$W/reopen/t"
	[ "${lines[0]}" = "MPI-IO layer (MPI_File calls):" ]
	[[ $output != *"POSIX layer"* ]]
	[ "${lines[-1]}" = "MPI-IO layer: recommended consistency: session" ]
}

@test "a nonblocking or split write lasts until its completion (#done): a read after a barrier that comes before MPI_Wait, MPI_Request_free or the split end is a race; after MPI_Wait and sync-barrier-sync it is not" {
	mpicc.mpich -O2 -Wall -o nbpend "$TG_TOP/tests/mpi/nbpend.c"
	for m in wait race freed split; do
		rm -rf t
		run -0 timeout 120 trace-run -o t -- mpirun.mpich -n 2 ./nbpend $m "$PWD/nb-$m.dat"
		[ "$(sort <<<"$output" | head -n 1)" = "0: 4096" ]
		trace-decode t/rank-*.rec > text
		overlap-find -l mpiio text > pairs
		# the write's call and the call that completed it
		w=$(awk -F'\t' '$1 == 0 && $8 ~ /^MPI_File_(iwrite_at|write_at_all_begin)$/ { print $3 }' text)
		case $m in
		freed) e=$(awk -F'\t' '$1 == 0 && $3 >= s { s = $3 + 1 } END { print s }' text) ;;	# its end
		split) e=$(awk -F'\t' '$1 == 0 && $8 == "MPI_File_write_at_all_end" { print $3 }' text) ;;
		*) e=$(awk -F'\t' '$1 == 0 && $8 == "MPI_Wait" { print $3 }' text) ;;
		esac
		grep -q "^#done"$'\t'"rank=0"$'\t'"seq=$w"$'\t'"end=$e"$'\t' pairs
		if [ $m = wait ]; then
			run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" t
			[ "${lines[-1]}" = "MPI-IO layer: recommended consistency: mpiio" ]
		else
			# (the read may have found nothing: it read where it asked)
			run -1 --separate-stderr "$TG_TOP/pipelines/verify-io" -l mpiio t
			[[ $stderr == *"MPI-IO layer: 1 conflicting pair is not synchronized"* ]]
		fi
	done
}
