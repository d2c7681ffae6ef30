#!/usr/bin/env bats
# Advisory record locks, from the tracer to the verdict: tests/mpi/locks.c
# run on 2 ranks under mpirun.mpich, traced; its fcntl, lockf and flock
# records (trace-decode), the #lock lines of overlap-find, and the verdict
# of conflict-check and verify-io: accesses guarded by locks are ordered
# by them, the same accesses without locks (or with a lock one side did
# not take) are a race.  Then MPICH's own locks: ROMIO's shared file
# pointer (MPI_File_write_shared, MPI_File_write_ordered) and data sieving
# (a noncontiguous MPI_File_write_at).  The tools are always given files.

bats_require_minimum_version 1.5.0

MODES="sieve getlk cur lockf flock half race forked handoff shared ds"
LOCKFILE_MODES="file fsync reopen flock byte replace cmd half shared own cmdbare"

setup_file() {
	export W=$BATS_FILE_TMPDIR
	command -v mpicc.mpich >/dev/null || return 0
	export UCX_TLS=${UCX_TLS:-sm,self}
	export MPIR_CVAR_POLLS_BEFORE_YIELD=${MPIR_CVAR_POLLS_BEFORE_YIELD:-1}
	mpicc.mpich -O2 -Wall -o "$W/locks" "$TG_TOP/tests/mpi/locks.c" || return 0
	local m
	for m in $MODES; do
		mkdir -p "$W/$m"
		(cd "$W/$m" && timeout 120 trace-run -o t -- mpirun.mpich -n 2 "$W/locks" "$m" \
			>/dev/null && trace-decode t/rank-*.rec > text &&
			overlap-find text > pairs && overlap-find --all-pairs text > allpairs &&
			hb-build text > app.hb) || return 0
	done
	mpicc.mpich -O2 -Wall -o "$W/lockfile" "$TG_TOP/tests/mpi/lockfile.c" || return 0
	for m in $LOCKFILE_MODES; do
		mkdir -p "$W/lf-$m"
		(cd "$W/lf-$m" && timeout 120 trace-run -o t -- mpirun.mpich -n 3 "$W/lockfile" "$m" \
			>out) || return 0
	done
	touch "$W/mpi-ok"
}

setup() {
	[ -f "$W/mpi-ok" ] || skip "mpicc.mpich is missing, or tracing tests/mpi/locks.c failed"
	cd "$BATS_TEST_TMPDIR"
}

# records MODE FUNC: the records of FUNC on rank 0 of MODE, from func on
# ("func ret args", tab-separated), in $output
records() {
	run -0 awk -F'\t' -v f="$2" -v OFS='\t' \
		'$1 == "0" && $8 == f { s = $8; for (i = 9; i <= NF; i++) s = s OFS $i; print s }' \
		"$W/$1/text"
}

# locks MODE: the #lock lines of MODE's rank 0 without seq and times
locks() {
	run -0 awk -F'\t' -v OFS='\t' \
		'$1 == "#lock" && $3 == "rank=0" { print $7, $8, $9, $10, $11, $12 }' \
		"$W/$1/pairs"
}

# fileno MODE PATTERN: the number overlap-find gave the file of MODE whose
# path matches the awk PATTERN (MPICH's shared memory files come first)
fileno() {
	awk -F'\t' -v p="$2" '$1 == "#file" && $3 ~ p { sub(/^file=/, "", $2); print $2; exit }' \
		"$W/$1/pairs"
}

# ---- the tracer -------------------------------------------------------------------

@test "fcntl records the struct flock of its lock commands, F_GETLK's answer; other commands have none" {
	records sieve fcntl
	[ "$(grep -c $'^fcntl\t0\tfd=[0-9]*\tcmd=F_SETLKW\targ=0\tlock={F_WRLCK,SEEK_SET,0,64}$' <<<"$output")" -eq 4 ]
	[ "$(grep -c $'^fcntl\t0\tfd=[0-9]*\tcmd=F_SETLK\targ=0\tlock={F_UNLCK,SEEK_SET,0,64}$' <<<"$output")" -eq 4 ]
	grep -q $'cmd=F_GETFL\targ=0\tlock=-' <<<"$output"
	records getlk fcntl
	grep -Eq $'^fcntl\t0\tfd=[0-9]+\tcmd=F_GETLK\targ=0\tlock=\\{(F_UNLCK,SEEK_SET,0,64|F_WRLCK,SEEK_SET,0,64,pid:[0-9]+)\\}$' <<<"$output"
	records cur fcntl
	[ "$(grep -c 'lock={F_WRLCK,SEEK_CUR,-32,64}' <<<"$output")" -eq 4 ]
}

@test "lockf and flock are traced: the command, the length, the operation" {
	records lockf lockf
	[ "${#lines[@]}" -eq 8 ]
	[[ ${lines[0]} =~ ^lockf$'\t'0$'\t'fd=[0-9]+$'\t'cmd=1$'\t'len=64$ ]]
	[[ ${lines[1]} =~ ^lockf$'\t'0$'\t'fd=[0-9]+$'\t'cmd=0$'\t'len=64$ ]]
	records flock flock
	[ "${#lines[@]}" -eq 8 ]
	[[ ${lines[0]} =~ ^flock$'\t'0$'\t'fd=[0-9]+$'\t'operation=2$ ]]
	[[ ${lines[1]} =~ ^flock$'\t'0$'\t'fd=[0-9]+$'\t'operation=8$ ]]
}

@test "trace-decode --json gives the struct flock as an object" {
	run -0 --separate-stderr trace-decode --json "$W/sieve/t/rank-0.rec"
	grep -q '"lock":{"type":1,"whence":0,"start":0,"len":64,"pid":0}' <<<"$output"
	grep -q '"cmd":"F_GETFL","arg":0,"lock":null' <<<"$output"
}

# ---- overlap-find -----------------------------------------------------------------

@test "overlap-find: a #lock line per lock and unlock, SEEK_CUR and lockf resolved against the position, flock the whole file" {
	locks sieve
	[ "${#lines[@]}" -eq 8 ]
	[ "${lines[0]}" = $'kind=lock\ttype=W\tclass=posix\tstart=0\tend=64\tfunc=fcntl' ]
	[ "${lines[1]}" = $'kind=unlock\ttype=-\tclass=posix\tstart=0\tend=64\tfunc=fcntl' ]
	locks cur
	[ "${lines[0]}" = $'kind=lock\ttype=W\tclass=posix\tstart=0\tend=64\tfunc=fcntl' ]
	locks lockf
	[ "${lines[0]}" = $'kind=lock\ttype=W\tclass=posix\tstart=0\tend=64\tfunc=lockf' ]
	[ "${lines[1]}" = $'kind=unlock\ttype=-\tclass=posix\tstart=0\tend=64\tfunc=lockf' ]
	locks flock
	[ "${lines[0]}" = $'kind=lock\ttype=W\tclass=flock\tstart=0\tend=-\tfunc=flock' ]
	[ "${lines[1]}" = $'kind=unlock\ttype=-\tclass=flock\tstart=0\tend=-\tfunc=flock' ]
	# F_GETLK changes no lock
	locks getlk
	[ "${#lines[@]}" -eq 8 ]
}

# ---- the verdict ------------------------------------------------------------------

@test "read-modify-write under fcntl, lockf or flock locks: every pair between the ranks is synchronised, by the locks" {
	local m
	for m in sieve cur lockf flock; do
		# every pair (overlap-find leaves out those through a rewrite)
		run -0 --separate-stderr conflict-check -v --hb "$W/$m/app.hb" --model all "$W/$m/allpairs"
		[ -z "$stderr" ]
		[ "$(grep -c $'^[RW]AW-D\t.*\tposix=ok\tcommit=ok\tsession=ok\tsynchronized=yes\tunlock=[01]:[0-9]*\tlock=[01]:[0-9]*$' <<<"$output")" -ge 28 ]
		! grep -q 'synchronized=no' <<<"$output" || false
		[[ ${lines[-1]} =~ ^session\ +\(all\ files\)\ +12\ +0\ +12\ +0$ ]]
		# the pairs left out change no verdict
		run -0 --separate-stderr conflict-check --hb "$W/$m/app.hb" --model all "$W/$m/pairs"
		! grep -q 'synchronized=no' <<<"$output" || false
		[[ ${lines[-1]} =~ ^session\ +\(all\ files\)\ +[1-9][0-9]*\ +0\ +[1-9][0-9]*\ +0$ ]]
	done
}

@test "without the graph the locks order the pair too; --json says ordered_by lock" {
	run -0 --separate-stderr conflict-check --model all "$W/sieve/allpairs"
	[[ ${lines[-1]} =~ ^session\ +\(all\ files\)\ +12\ +0\ +12\ +0$ ]]
	[[ ${lines[-3]} =~ ^commit\ +\(all\ files\)\ +12\ +0\ +12\ +0$ ]]
	run -0 --separate-stderr conflict-check --json "$W/sieve/allpairs"
	grep -q '"procs":"D".*"conflict":{"posix":false,"commit":false,"session":false},"ordered_by":"lock","synchronized":true,"unlock_seq":[0-9]*,"lock_seq":[0-9]*}' <<<"$output"
}

@test "verify-io: the lock-guarded runs are correct; without locks, or with one rank not locking, they are a race" {
	local m
	for m in sieve lockf flock; do
		run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" "$W/$m/t"
		[[ ${lines[2]} =~ ^posix\ +\(all\ files\)\ +0\ +0\ +0\ +0$ ]]
	done
	# without locks the read-modify-writes of the two ranks interleave as
	# the run went: how many reads follow the other's write (RAW-D) varies
	# from run to run; the writes over the other rank's writes (WAW-D) do not
	for m in race half; do
		run -0 --separate-stderr conflict-check --hb "$W/$m/app.hb" --model all "$W/$m/allpairs"
		[[ $(grep '^posix  *(all files)' <<<"$output") =~ ^posix\ +\(all\ files\)\ +0\ +16\ +0\ +([0-9]+)$ ]]
		[ "${BASH_REMATCH[1]}" -gt 0 ]
		# (verify-io's pairs leave out those through a rewrite: fewer)
		run -1 --separate-stderr "$TG_TOP/pipelines/verify-io" "$W/$m/t"
		[[ ${lines[3]} =~ ^posix\ +\(all\ files\)\ +0\ +([0-9]+)\ +0\ +([0-9]+)$ ]]
		waw=${BASH_REMATCH[1]} raw=${BASH_REMATCH[2]}
		[ "$waw" -gt 0 ] && [ "$raw" -gt 0 ]
		[[ $stderr == *"$((waw + raw)) conflicting pairs are not synchronized"* ]]
	done
}

# A flock is the open file description's: a child that forked with it
# takes it again at once, and writes while its parent, holding it too,
# reads.  Until 2026-12-05 the two holds were taken to exclude each
# other (the release of one before the grant of the other, by the
# clocks, though both were held at once): session; a race now.
@test "verify-io: two holds of one flock a fork shares, held at once, order nothing: a race" {
	run -1 --separate-stderr "$TG_TOP/pipelines/verify-io" "$W/forked/t"
	[[ $stderr == *"POSIX layer: 1 conflicting pair is not synchronized"* ]]
}

# A lock's handoff orders what its holder did before the release before
# what the next holder does after the grant, locked or not: rank 1 writes
# under the lock, rank 0 takes and releases it 0.2 s later and reads the
# bytes without it.  Until 2026-12-05 only two accesses both made under
# the locks were ordered by them: a race; now ordered, and nothing commits
# between: posix.
@test "verify-io: a write before a lock's release and a read after another rank's later grant of it are ordered (posix), the read unlocked" {
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" "$W/handoff/t"
	grep -qx 'POSIX layer: recommended consistency: posix' <<<"$output"
	[[ $output == *"posix    (all files)                                    0       0       0       0"* ]]
	[[ $output == *"commit   (all files)                                    0       0       0       1"* ]]
}

# A lock orders through its handoffs whatever bytes it covers: ranks add
# one to a counter under a lock on a separate lock file (fcntl or flock)
# or on a byte of the file far from the counter (SQLite's way), with no
# MPI call between (tests/mpi/lockfile.c).  Until 2026-12-05 a lock
# ordered only accesses over its bytes, and all five were races; the
# model is then what the holder did before its release: nothing (posix),
# an fsync (commit), a close, the next holder opening after its grant
# (session); a name removed and made again under the lock (replace) is
# ordered with the other ranks' opens of it too, and so are shell
# commands flock(1) runs holding the lock, through system() (cmd).  A
# lock one side does not take, read locks, two lock files, or commands
# run without flock(1) order nothing.
@test "verify-io: a lock file, or a lock on other bytes, orders through its handoffs (flock(1)'s too): posix, commit after an fsync, session after a close; one side's lock, read locks or two lock files: a race" {
	local m want
	for m in file:posix fsync:commit reopen:session flock:posix byte:posix replace:session cmd:session; do
		want=${m#*:} m=${m%%:*}
		grep -qx '9 of 9' "$W/lf-$m/out"
		run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" "$W/lf-$m/t"
		grep -qx "POSIX layer: recommended consistency: $want" <<<"$output" ||
			{ echo "$m: $output"; false; }
	done
	for m in half shared own cmdbare; do
		run -1 --separate-stderr "$TG_TOP/pipelines/verify-io" "$W/lf-$m/t"
		grep -qx 'POSIX layer: recommended consistency: posix (no model makes this run correct)' <<<"$output" ||
			{ echo "$m: $output"; false; }
	done
}

# The same from the default .cfg, whose rebuilt times do not order two
# ranks' lock calls but which keeps theirs (#timing anchored=1): the
# streams' verdicts, and no line about a handoff it could not order.
@test "verify-io of a default .cfg: a lock file's handoffs judged as from the streams" {
	local m
	for m in $LOCKFILE_MODES; do
		trace-merge "$W"/lf-$m/t/*.rec > $m.cfg
		run --separate-stderr "$TG_TOP/pipelines/verify-io" "$W/lf-$m/t"
		local want=$output st=$status
		run --separate-stderr "$TG_TOP/pipelines/verify-io" $m.cfg
		[ "$status" -eq "$st" ]
		[ "$(grep recommended <<<"$output")" = "$(grep recommended <<<"$want")" ] ||
			{ echo "$m: $output"; false; }
		[[ $stderr != *"handoff of a record lock"* ]]
	done
}

@test "ROMIO's shared file pointer (write_shared, write_ordered): its hidden file is read and written under locks, and no pair is a race" {
	f=$(fileno shared shfp)
	[ -n "$f" ]
	run -0 grep -c $'^pair\t'"$f"$'\t' "$W/shared/allpairs"
	[ "$output" -gt 100 ]
	run -0 grep -c $'^#lock\tfile='"$f"$'\t' "$W/shared/pairs"
	[ "$output" -gt 10 ]
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" "$W/shared/t"
	[[ ${lines[2]} =~ ^posix\ +\(all\ files\)\ +0\ +0\ +0\ +0$ ]]
	[ -z "$stderr" ]
}

@test "ROMIO's data sieving (romio_ds_write enable): the read-modify-writes of a noncontiguous write are ordered by their locks" {
	run -0 grep -c $'^pair\t'"$(fileno ds '/f"$')"$'\t' "$W/ds/allpairs"
	[ "$output" -gt 10 ]
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" "$W/ds/t"
	[[ ${lines[2]} =~ ^posix\ +\(all\ files\)\ +0\ +0\ +0\ +0$ ]]
	[ -z "$stderr" ]
}

# ---- bad input --------------------------------------------------------------------

# Two threads of one process take turns at a lock (ROMIO's shared file
# pointer under MPI_File_write_shared from three threads): thread A's
# lock call (seq 1) began first but waited; thread B's (seq 2) was granted
# and released (seq 4) before A's was.  Replayed by seq, B's lock and
# unlock ended A's hold before A's write: the write was under no lock,
# and the pair with the other rank's locked read was left to the clocks
# (commit and session conflict).  By when each took effect, A's hold
# covers its write and orders the pair.
@test "conflict-check: a process's lock events in the order they took effect: a thread's lock granted after another thread's unlock holds over its write" {
	{
		printf '#overlap\tversion=1\tlayer=posix\n#file\tfile=0\tpath="/d/f"\n'
		lk() {
			printf '#lock\tfile=0\trank=%s\tseq=%s\tt=%s\ttend=%s\tkind=%s\ttype=%s\tclass=posix\tstart=0\tend=8\tfunc=fcntl\n' "$@"
		}
		lk 0 1 0.100000000 0.400000000 lock W
		lk 0 2 0.110000000 0.120000000 lock W
		lk 0 4 0.200000000 0.210000000 unlock -
		lk 0 6 0.500000000 0.510000000 unlock -
		lk 1 1 0.600000000 0.610000000 lock W
		lk 1 3 0.700000000 0.710000000 unlock -
		printf 'pair\t0\t0\t5\t0.410000000\t0.420000000\tW\tpwrite\t0\t8\t1\t2\t0.620000000\t0.630000000\tR\tpread\t0\t8\n'
	} > turns
	run -0 --separate-stderr conflict-check -v turns
	[ "${lines[0]}" = $'RAW-D\t/d/f\t0:5 pwrite W [0,8)\t1:2 pread R [0,8)\tposix=ok\tcommit=ok\tsession=ok\tsynchronized=yes\tunlock=0:6\tlock=1:1' ]
}

# Two ranks' write locks on one byte held at once by the clocks: they
# cannot have been (an fcntl lock is its process's, a flock its open file
# description's, and two ranks share none), so the clocks are off, as
# times trace-merge rebuilt from aggregate timing are: the first granted
# went first.  Such holds ordered nothing, and ROMIO's shared file pointer
# (write_ordered's locked reads and writes) came out commit conflicts,
# or races, from one run's .cfg in twenty.
@test "conflict-check: two ranks' locks held at once by the clocks excluded each other all the same: the first granted went first" {
	for c in posix flock; do
		{
			printf '#overlap\tversion=1\tlayer=posix\n#file\tfile=0\tpath="/d/f"\n'
			lk() {
				printf '#lock\tfile=0\trank=%s\tseq=%s\tt=%s\ttend=%s\tkind=%s\ttype=%s\tclass=%s\tstart=0\tend=8\tfunc=fcntl\n' "$@" "$c"
			}
			lk 0 1 0.100000000 0.110000000 lock W
			lk 0 3 0.500000000 0.510000000 unlock -
			lk 1 1 0.300000000 0.310000000 lock W
			lk 1 3 0.700000000 0.710000000 unlock -
			printf 'pair\t0\t0\t2\t0.200000000\t0.210000000\tW\tpwrite\t0\t8\t1\t2\t0.600000000\t0.610000000\tR\tpread\t0\t8\n'
		} > skew
		run -0 --separate-stderr conflict-check -v skew
		[ "${lines[0]}" = $'RAW-D\t/d/f\t0:2 pwrite W [0,8)\t1:2 pread R [0,8)\tposix=ok\tcommit=ok\tsession=ok\tsynchronized=yes\tunlock=0:3\tlock=1:1' ]
	done
}

# Times rebuilt from a .cfg (#timing): a lock's handoff orders two
# processes' accesses only when its direction is known, from the graph or
# from times the .cfg kept for the lock calls (#timing anchored=1).  In a
# .cfg without them (of version 12) the clocks could put one rank's hold
# after another's that came before it: a race was judged posix (an
# unlocked write of one rank, an unlocked read of another that had held
# the lock before).  Such a handoff now orders nothing, and a line says so.
@test "conflict-check: a lock's handoff by times rebuilt from a .cfg that kept no anchors orders nothing, and says so" {
	trace-merge "$W"/lf-file/t/rank-*.rec > app.cfg
	trace-decode app.cfg > text0
	sed 's/\tanchored=1//' text0 > text
	grep -q '^#timing' text
	overlap-find text > pairs
	grep -qx $'#timing\trebuilt=1' pairs
	hb-build text > app.hb
	run -1 --separate-stderr conflict-check --hb app.hb --fail-on-unsynchronized pairs
	[[ $stderr == *" pairs nothing else orders may be ordered by the handoff of a record lock, whose direction times rebuilt from a .cfg of an older version (#timing without anchored=1) do not keep: taken as unordered; merge again, or judge the .rec streams"* ]]
}

# A lock's grant is its call's end, an unlock its call's start; times
# rebuilt from a .cfg can put a contended lock's end after its own
# unlock's start, and the hold then ran from the grant to the close,
# over an unlocked write after the unlock: a race judged session.
@test "conflict-check: with times rebuilt, a process's lock calls and closes in their seq order: a write after the unlock is not under the lock" {
	{
		printf '#overlap\tversion=1\tlayer=posix\n#timing\trebuilt=1\tanchored=1\n#file\tfile=0\tpath="/d/f"\n'
		printf '#event\tkind=close\tfile=0\trank=1\tseq=9\tt=0.900000000\n'
		lk() {
			printf '#lock\tfile=0\trank=%s\tseq=%s\tt=%s\ttend=%s\tkind=%s\ttype=%s\tclass=posix\tstart=0\tend=8\tfunc=fcntl\n' "$@"
		}
		lk 0 1 0.700000000 0.710000000 lock W
		lk 0 3 0.800000000 0.810000000 unlock -
		lk 1 1 0.300000000 0.500000000 lock W
		lk 1 2 0.400000000 0.410000000 unlock -
		printf 'pair\t0\t1\t3\t0.600000000\t0.610000000\tW\tpwrite\t0\t8\t0\t2\t0.750000000\t0.760000000\tR\tpread\t0\t8\n'
	} > swallow
	run -0 --separate-stderr conflict-check -v swallow
	[[ ${lines[0]} == $'RAW-D\t/d/f\t1:3 pwrite W [0,8)\t0:2 pread R [0,8)\tposix=ok\tcommit=conflict\tsession=conflict\t'* ]]
	[[ ${lines[0]} != *unlock=* ]]
}

@test "conflict-check: a malformed #lock line, or one after the pairs, is one line and exit 2" {
	printf '#overlap\tversion=1\tlayer=posix\n#file\tfile=0\tpath="/d/f"\n#lock\tfile=0\trank=0\tseq=x\tt=0.1\ttend=0.2\tkind=lock\ttype=W\tclass=posix\tstart=0\tend=64\tfunc=fcntl\n' > bad
	run -2 --separate-stderr conflict-check bad
	[ "$stderr" = "conflict-check: bad:3: malformed #lock line" ]
	printf '#overlap\tversion=1\tlayer=posix\n#file\tfile=0\tpath="/d/f"\n#lock\tfile=0\trank=0\tseq=1\tt=0.1\ttend=0.2\tkind=lock\ttype=X\tclass=posix\tstart=0\tend=64\tfunc=fcntl\n' > bad
	run -2 --separate-stderr conflict-check bad
	[ "$stderr" = "conflict-check: bad:3: malformed #lock line" ]
	printf '#overlap\tversion=1\tlayer=posix\n#file\tfile=0\tpath="/d/f"\n#lock\tfile=0\trank=0\tseq=1\tt=0.1\ttend=0.2\tkind=lock\ttype=W\tclass=posix\tstart=9\tend=4\tfunc=fcntl\n' > bad
	run -2 --separate-stderr conflict-check bad
	[ "$stderr" = "conflict-check: bad:3: malformed #lock line" ]
	{ printf '#overlap\tversion=1\tlayer=posix\n#file\tfile=0\tpath="/d/f"\n'
	  printf 'pair\t0\t0\t2\t0.1\t0.2\tW\tpwrite\t0\t10\t1\t2\t0.3\t0.4\tW\tpwrite\t0\t10\n'
	  printf '#lock\tfile=0\trank=0\tseq=1\tt=0.1\ttend=0.2\tkind=lock\ttype=W\tclass=posix\tstart=0\tend=-\tfunc=fcntl\n'; } > late
	run -2 --separate-stderr conflict-check late
	[ "$stderr" = "conflict-check: late:4: #lock line after the pairs" ]
}
