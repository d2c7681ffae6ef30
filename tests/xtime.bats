#!/usr/bin/env bats
# Anchored calls in a default (aggregate) .cfg (tangram-cfg(5), XTIME):
# record locks, the calls that make a process, MPI-IO's shared file
# pointer calls and every call of a process without an MPI rank keep the
# start and duration the record streams give them, through trace-merge of
# .rec streams, of .cfg files and with --mpi, and trace-decode says so
# (#timing anchored=1); the other calls' times are rebuilt.  A version 12
# .cfg kept none, and says so however it is merged; a damaged XTIME
# section is refused with exit 2 and one line.  tests/mpi/locks.c and
# tests/mpi/shellout.c on 2 ranks under mpirun.mpich, traced.

bats_require_minimum_version 1.5.0

MODES="forked shared getlk"

setup_file() {
	export W=$BATS_FILE_TMPDIR
	command -v mpicc.mpich >/dev/null || return 0
	export UCX_TLS=${UCX_TLS:-sm,self}
	export MPIR_CVAR_POLLS_BEFORE_YIELD=${MPIR_CVAR_POLLS_BEFORE_YIELD:-1}
	mpicc.mpich -O2 -w -o "$W/locks" "$TG_TOP/tests/mpi/locks.c" || return 0
	mpicc.mpich -O2 -w -o "$W/shellout" "$TG_TOP/tests/mpi/shellout.c" || return 0
	local m
	for m in $MODES; do
		mkdir -p "$W/$m"
		(cd "$W/$m" && timeout 120 trace-run -o t -- mpirun.mpich -n 2 "$W/locks" "$m" \
			>/dev/null) || return 0
	done
	mkdir -p "$W/system"
	(cd "$W/system" && timeout 120 trace-run -o t -- mpirun.mpich -n 2 "$W/shellout" out \
		>/dev/null) || return 0
	touch "$W/mpi-ok"
}

setup() {
	[ -f "$W/mpi-ok" ] || skip "mpicc.mpich is missing, or tracing tests/mpi/locks.c failed"
	F=$TG_TOP/tests/fixtures/decode
	cd "$BATS_TEST_TMPDIR"
}

# anchors CFG REC...: how the times of the .cfg's calls compare with the
# streams' (both decoded to files first): "anchored E O others R", E the
# anchored calls with the streams' start and end, O those without, R the
# other calls whose times are not the streams' (rebuilt)
anchors() {
	local cfg=$1
	shift
	trace-decode "$@" > rec.txt
	trace-decode "$cfg" > cfg.txt
	awk -F'\t' '
	function anchored() {
		return $1 ~ /^p/ || $8 ~ /^(flock|lockf|lockf64|fork|vfork|system|popen|posix_spawnp?|exec[lv]p?e?|fexecve|execveat|wait|waitpid|wait3|wait4|waitid|pclose)$/ ||
		       ($8 ~ /^fcntl(64)?$/ && $0 ~ /\tcmd=F_(OFD_)?SETLKW?\t/) ||
		       $8 ~ /^MPI_File_.*(shared|ordered)/
	}
	FNR == NR { if ($0 !~ /^#/) t[$1 FS $2 FS $3 FS $8] = $4 FS $5; next }
	/^#/ { next }
	{
		# (keyed by the function too: the images of a process an
		# exec made have seqs of their own)
		same = t[$1 FS $2 FS $3 FS $8] == $4 FS $5
		if (anchored()) { if (same) e++; else o++ }
		else if (!same) r++
	}
	END { printf "anchored %d %d others %d\n", e, o, r }' rec.txt cfg.txt
}

# section FILE.cfg NAME: the byte offset of the header of a section
section() {
	python3 - "$1" "$2" <<'EOF'
import struct, sys
names = ["END", "META", "STRINGS", "CST", "AGG", "GRAMMAR", "STREAMS", "STIME", "XTIME"]
d = open(sys.argv[1], 'rb').read()
p = 12
while p < len(d):
    t, f, st, raw, crc = struct.unpack('<HHQQI', d[p:p + 24])
    if t < len(names) and names[t] == sys.argv[2]:
        print(p)
        break
    p += 24 + st
EOF
}

# xtime_damage FILE.cfg OUT short|long|far: the first XTIME payload a byte
# shorter, a byte longer, or naming a call past the stream's last, with a
# matching checksum
xtime_damage() {
	python3 "$TG_TOP/tests/helpers/cfg-damage.py" "$1" "$2" 8 "$3"
}

# ---- the anchored calls keep their times ---------------------------------------

@test "locks, a fork and its child: the default .cfg gives them the streams' times, and says so" {
	run -0 --separate-stderr trace-merge -o d.cfg "$W"/forked/t/*.rec
	run -0 --separate-stderr trace-decode d.cfg
	[ "${lines[0]}" = $'#timing\tmode=aggregate\tanchored=1' ]
	# flock on both ranks, rank 0's fork, and everything the child did
	[ "$(grep -c $'^0\t.*\tflock\t' <<<"$output")" -eq 2 ]
	grep -q $'^p[0-9]*\t.*\tflock\t' <<<"$output"
	run -0 anchors d.cfg "$W"/forked/t/*.rec
	read -r _ e o _ r <<<"$output"
	[ "$o" -eq 0 ]
	[ "$e" -ge 7 ]
	[ "$r" -gt 100 ]
}

@test "MPI_File_write_shared, _ordered and ROMIO's fcntl locks keep their times; F_GETFL does not" {
	run -0 --separate-stderr trace-merge -o d.cfg "$W"/shared/t/*.rec
	run -0 anchors d.cfg "$W"/shared/t/*.rec
	read -r _ e o _ r <<<"$output"
	[ "$o" -eq 0 ]
	[ "$e" -ge 20 ]
	[ "$r" -gt 100 ]
	grep -q $'\tMPI_File_write_shared\t' cfg.txt
	grep -q $'\tMPI_File_write_ordered\t' cfg.txt
	# a command that takes no lock is rebuilt like the rest
	[ "$(awk -F'\t' 'FNR == NR { if ($8 == "fcntl" && /cmd=F_GETFL/) t[$1 FS $2 FS $3] = $4 FS $5; next }
		$8 == "fcntl" && /cmd=F_GETFL/ && t[$1 FS $2 FS $3] != $4 FS $5' rec.txt cfg.txt | wc -l)" -gt 0 ]
}

@test "F_GETLK asks, takes no lock: rebuilt; F_SETLKW and F_SETLK: exact" {
	run -0 --separate-stderr trace-merge -o d.cfg "$W"/getlk/t/*.rec
	run -0 anchors d.cfg "$W"/getlk/t/*.rec
	read -r _ e o _ r <<<"$output"
	[ "$o" -eq 0 ]
	[ "$e" -ge 16 ]
	grep -q 'cmd=F_GETLK' cfg.txt
}

@test "system(): the call and the shell it started (no rank) keep their times" {
	run -0 --separate-stderr trace-merge -o d.cfg "$W"/system/t/*.rec
	run -0 anchors d.cfg "$W"/system/t/*.rec
	read -r _ e o _ r <<<"$output"
	[ "$o" -eq 0 ]
	grep -q $'^0\t.*\tsystem\t' cfg.txt
	# the child's calls: all of them exact
	[ "$(grep -c $'^p[0-9]' cfg.txt)" -gt 0 ]
	[ "$e" -gt "$(grep -c $'^p[0-9]' cfg.txt)" ]
}

@test "merging .cfg files keeps the anchored times, and so does trace-merge --mpi" {
	run -0 --separate-stderr trace-merge -o a.cfg "$W"/forked/t/pid-*.rec "$W"/forked/t/rank-0.rec
	run -0 --separate-stderr trace-merge -o b.cfg "$W"/forked/t/rank-1.rec
	run -0 --separate-stderr trace-merge -o ab.cfg a.cfg b.cfg
	run -0 anchors ab.cfg "$W"/forked/t/*.rec
	read -r _ e o _ r <<<"$output"
	[ "$o" -eq 0 ]
	[ "$e" -ge 7 ]
	[ "$(head -n 1 cfg.txt)" = $'#timing\tmode=aggregate\tanchored=1' ]
	run -0 --separate-stderr timeout 120 mpirun.mpich -n 2 trace-merge --mpi -o m.cfg \
		"$W"/shared/t/*.rec
	run -0 anchors m.cfg "$W"/shared/t/*.rec
	read -r _ e o _ r <<<"$output"
	[ "$o" -eq 0 ]
	[ "$e" -ge 20 ]
	[ "$(head -n 1 cfg.txt)" = $'#timing\tmode=aggregate\tanchored=1' ]
	# the serial merge writes the same bytes
	run -0 --separate-stderr trace-merge -o s.cfg "$W"/shared/t/*.rec
	cmp m.cfg s.cfg
}

@test "-t lossless keeps every time and has no XTIME; a program without anchored calls has none either" {
	run -0 --separate-stderr trace-merge -t lossless -o l.cfg "$W"/forked/t/*.rec
	cmp <(trace-decode l.cfg) <(trace-decode "$W"/forked/t/*.rec)
	[ -z "$(section l.cfg XTIME)" ]
	# rank 1 of shellout makes no such call: no section, no column
	run -0 --separate-stderr trace-merge -o d.cfg "$W"/system/t/rank-1.rec
	[ "$(od -An -tu1 -j8 -N2 d.cfg | tr -s ' ')" = " 13 0" ]
	[ -z "$(section d.cfg XTIME)" ]
}

# ---- version 12 ---------------------------------------------------------------------

@test "a version 12 .cfg decodes without anchored=1, and a merge keeps it unanchored" {
	run -0 --separate-stderr trace-decode "$F/forked-v12.cfg"
	[ "${lines[0]}" = $'#timing\tmode=aggregate' ]
	[ "$(grep -vc '^#' <<<"$output")" -eq 732 ]
	[ -z "$stderr" ]
	run -0 --separate-stderr trace-merge -o m.cfg "$F/forked-v12.cfg"
	[ "$(od -An -tu1 -j8 -N2 m.cfg | tr -s ' ')" = " 13 0" ]
	run -0 --separate-stderr trace-decode m.cfg
	[ "${lines[0]}" = $'#timing\tmode=aggregate' ]
	# with streams that kept theirs: still not, unless only those are chosen
	run -0 --separate-stderr trace-merge -f -o mixed.cfg "$F/forked-v12.cfg" "$W"/shared/t/rank-1.rec
	run -0 --separate-stderr trace-decode mixed.cfg
	[ "${lines[0]}" = $'#timing\tmode=aggregate' ]
	run -0 --separate-stderr trace-merge -o new.cfg "$W"/shared/t/rank-1.rec
	run -0 --separate-stderr trace-decode new.cfg
	[ "${lines[0]}" = $'#timing\tmode=aggregate\tanchored=1' ]
}

# ---- damage -------------------------------------------------------------------------

@test "an XTIME section a byte short, a byte long, past the last call or cut: exit 2, one line" {
	trace-merge -o d.cfg "$W"/forked/t/*.rec
	at=$(section d.cfg XTIME)
	[ -n "$at" ]
	for how in short long far; do
		xtime_damage d.cfg x.cfg $how
		run -2 --separate-stderr trace-decode x.cfg
		[ -z "$output" ]
		[ "$stderr" = "trace-decode: x.cfg: corrupt section XTIME at byte $at (anchored times of stream 0)" ]
		run -2 --separate-stderr trace-merge -o y.cfg x.cfg
		[ "$stderr" = "trace-merge: x.cfg: corrupt section XTIME at byte $at (anchored times of stream 0)" ]
	done
	head -c $((at + 30)) d.cfg > cut.cfg
	run -2 --separate-stderr trace-decode cut.cfg
	[ -z "$output" ]
	[ "$stderr" = "trace-decode: cut.cfg: truncated section XTIME at byte $at" ]
}

# A rebuilt time may run past the exact one of the anchored call that
# came after it: rank 0's open, rebuilt after its own fork, put the child
# (whose every call is exact) first, and the child's read through the
# descriptor it inherited was untracked: a race judged session from the
# .cfg (a flock a fork shares; tests/mpi/forkread.c too).  A rebuilt call
# now ends before the next anchored call starts, and a process's calls
# are placed among the others' by the earliest start of them and the
# calls after them.
@test "a rebuilt call ends before the anchored call after it, and the .cfg's verdict of a forked child sharing a flock is the streams' (a race)" {
	trace-merge -o d.cfg "$W"/forked/t/*.rec
	trace-decode d.cfg > cfg.txt
	run -0 awk -F'\t' '$1 == "0" && $8 == "fork" { f = $3; t = $4 } END { print f, t }' cfg.txt
	read -r fseq ft <<<"$output"
	[ -n "$fseq" ]
	# (its main thread's: another thread's calls are written later)
	run -0 awk -F'\t' -v f="$fseq" -v t="$ft" \
		'$1 == "0" && $2 == "0" && $3 ~ /^[0-9]+$/ && $3 + 0 < f + 0 && $5 + 0 > t + 0 { n++ } END { print n + 0 }' cfg.txt
	[ "$output" -eq 0 ]
	run -1 --separate-stderr "$TG_TOP/pipelines/verify-io" "$W"/forked/t
	want=$output
	run -1 --separate-stderr "$TG_TOP/pipelines/verify-io" d.cfg
	[ "$(grep 'recommended' <<<"$output")" = "$(grep 'recommended' <<<"$want")" ]
	grep -qx 'POSIX layer: recommended consistency: posix (no model makes this run correct)' <<<"$output"
}

# A wait for a child (waitpid, pclose) keeps its times: rebuilt, its end
# came before the exact end of the child it waited for, whose calls were
# then not before what its parent did next (a race judged from the .cfg
# where the streams said session: tests/mpi/pclosewait.c).
@test "a pclose keeps its times: a command's write before the pclose and a barrier is session from the .cfg as from the streams" {
	mpicc.mpich -O2 -Wall -o pclosewait "$TG_TOP/tests/mpi/pclosewait.c"
	run -0 timeout 120 trace-run -o t -- mpirun.mpich -n 2 ./pclosewait "$PWD/data"
	[ "$output" = "500 bytes" ]
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" t
	grep -qx 'POSIX layer: recommended consistency: session' <<<"$output"
	trace-merge -o d.cfg t/*.rec
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" d.cfg
	grep -qx 'POSIX layer: recommended consistency: session' <<<"$output"
	run -0 anchors d.cfg t/*.rec
	read -r _ e o _ r <<<"$output"
	[ "$o" -eq 0 ]
}

# Between two anchored calls, rebuilt starts (pressed before the next)
# went out of the program's order: an MPI_File_open before the
# MPI_File_delete and the barrier made first, and a file split in two.
# A call's start is no earlier than that of any call of its thread at its
# depth or above decoded before it.
# (A stream without anchored calls is rebuilt as before: rank 1 of
# forked.)
@test "a rank's calls at depth 0 start in the order of their seqs in a default .cfg with anchors" {
	for m in shared:0,1 forked:0; do
		local ranks=${m#*:}
		m=${m%%:*}
		trace-merge -o d.cfg "$W"/$m/t/*.rec
		trace-decode d.cfg > cfg.txt
		run -0 awk -F'\t' -v r=",$ranks," 'index(r, "," $1 ",") && $6 == "0" { print $1, $2, $3, $4 }' cfg.txt
		run -0 awk '{ k = $1 " " $2; print k, $3, $4 }' <<<"$output"
		sort -k1,1n -k2,2n -k3,3n <<<"$output" > bys
		run -0 awk '{ k = $1 " " $2; if (k == pk && $4 + 0 < pt + 0) n++; pk = k; pt = $4 } END { print n + 0 }' bys
		[ "$output" -eq 0 ] || { echo "$m: $output out of order"; false; }
	done
}

# A lone stream has no other process to be ordered with: a process
# without a rank merged alone keeps no times beyond aggregate's (a
# serial program's default .cfg was as large as a lossless one), and
# says so; merged with another, all of its calls keep theirs.
@test "a process without a rank merged alone keeps no anchors; merged with another, it does" {
	local p
	p=$(ls "$W"/system/t/pid-*.rec | head -n 1)
	trace-merge -o one.cfg "$p"
	run -0 trace-decode one.cfg
	[ "${lines[0]}" = $'#timing\tmode=aggregate' ]
	trace-merge -t lossless -o ll.cfg "$p"
	[ "$(stat -c %s one.cfg)" -lt "$(stat -c %s ll.cfg)" ]
	trace-merge -o two.cfg "$p" "$W"/system/t/rank-0.rec
	run -0 trace-decode two.cfg
	[ "${lines[0]}" = $'#timing\tmode=aggregate\tanchored=1' ]
}
