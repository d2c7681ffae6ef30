#!/usr/bin/env bats
# trace-compress, trace-merge and trace-decode of compressed traces
# (tangram-cfg(5)): argument checks first, then round trips -- decoding a
# compressed trace prints what decoding its streams prints, times aside,
# and exactly with -t lossless -- for the fixtures, trace-gen, the
# programs of tests/apps and tests/mpi; then merging (associativity, rank
# selection, different runs), the timing bounds, the sink pipeline, and
# damaged compressed traces, each rejected with exit 2 and one line naming
# the section and the byte, never a crash.

bats_require_minimum_version 1.5.0

setup_file() {
	export B=$BATS_FILE_TMPDIR/bin
	mkdir -p "$B"
	if command -v mpicc.mpich >/dev/null; then
		local p
		for p in ring coll comms waits persist types mpiio info anysrc uneven readfiles tmpnames; do
			mpicc.mpich -O2 -w -o "$B/$p" "$TG_TOP/tests/mpi/$p.c"
		done
		mpicc.mpich -O2 -w -o "$B/stencil" "$TG_TOP/tests/bench/stencil.c"
	fi
	# (a sanitized libcommon.a, make check SANITIZE=1, needs its runtime)
	gcc -O2 $([ "${SANITIZE:-}" = 1 ] && echo -fsanitize=address,undefined) -o "$B/rec-filter" "$TG_TOP/tests/bench/rec-filter.c" \
		"$TG_TOP/$TG_BUILD/libcommon.a" -ljansson -lz -lm
	export UCX_TLS=${UCX_TLS:-sm,self}
	export MPIR_CVAR_POLLS_BEFORE_YIELD=${MPIR_CVAR_POLLS_BEFORE_YIELD:-1}
}

setup() {
	F=$TG_TOP/tests/fixtures/decode
	GEN=$TG_TOP/$TG_BUILD/helpers/trace-gen
	APPS=$TG_TOP/build/apps
	SHIM=$TG_TOP/lib/libtangram.so
	CUSAGE='usage: trace-compress [-fh] [-e error] [-k bits] [-m samples] [-o file] [-t timing]'
	MUSAGE='usage: trace-merge [-fhq] [--mpi] [-e error] [-k bits] [-m samples] [-o file]'
	unset TANGRAM_DIR TANGRAM_SINK TANGRAM_LAYERS TANGRAM_EXCLUDE TANGRAM_FLUSH \
		TANGRAM_NESTED TANGRAM_INFO TANGRAM_CLOCK_SYNC
	cd "$BATS_TEST_TMPDIR"
}

need_mpi() {
	command -v mpicc.mpich >/dev/null || skip "mpicc.mpich is missing"
}

# notimes FILE...: trace-decode's output without the time columns (nor
# the #timing line that says a .cfg's times were rebuilt)
notimes() {
	trace-decode "$@" | grep -v $'^#timing\t' | cut -f1-3,6-
}

# same_as FILE.cfg FILE...: the compressed trace decodes like the streams,
# times aside
same_as() {
	local cfg=$1
	shift
	cmp <(notimes "$cfg") <(notimes "$@")
}

# exactly FILE.cfg FILE...: ... and with the same times
exactly() {
	local cfg=$1
	shift
	cmp <(trace-decode "$cfg") <(trace-decode "$@")
}

# meta FILE.cfg KEY: a value of the META section
meta() {
	python3 - "$1" "$2" <<'EOF'
import struct, sys, zlib
d = open(sys.argv[1], 'rb').read()
p = 12
while p < len(d):
    t, f, st, raw, crc = struct.unpack('<HHQQI', d[p:p + 24])
    pay = d[p + 24:p + 24 + st]
    if t == 1:
        pay = zlib.decompress(pay) if f & 1 else pay
        q, items = 0, []
        while q < len(pay):
            n = sh = 0
            while True:
                b = pay[q]; q += 1; n |= (b & 0x7f) << sh; sh += 7
                if b < 0x80:
                    break
            items.append(pay[q:q + n].decode()); q += n
        print(dict(zip(items[::2], items[1::2]))[sys.argv[2]])
    p += 24 + st
EOF
}

# section FILE.cfg NAME: the byte offset of the header of a section
section() {
	python3 - "$1" "$2" <<'EOF'
import struct, sys
names = ["END", "META", "STRINGS", "CST", "AGG", "GRAMMAR", "STREAMS", "STIME"]
d = open(sys.argv[1], 'rb').read()
p = 12
while p < len(d):
    t, f, st, raw, crc = struct.unpack('<HHQQI', d[p:p + 24])
    if names[t] == sys.argv[2]:
        print(p)
        break
    p += 24 + st
EOF
}

# corrupt FILE.cfg NAME OUT: rewrite section NAME with a payload damaged in
# a way its checksum does not catch (a count made huge)
corrupt() {
	python3 - "$1" "$2" "$3" <<'EOF'
import struct, sys, zlib
names = ["END", "META", "STRINGS", "CST", "AGG", "GRAMMAR", "STREAMS", "STIME"]
d = open(sys.argv[1], 'rb').read()
p = 12
while p < len(d):
    t, f, st, raw, crc = struct.unpack('<HHQQI', d[p:p + 24])
    if names[t] == sys.argv[2]:
        pay = d[p + 24:p + 24 + st]
        pay = zlib.decompress(pay) if f & 1 else pay
        pay = b'\xff\xff\xff\x7f' + pay[1:]
        z = zlib.compress(pay) if f & 1 else pay
        hdr = struct.pack('<HHQQI', t, f, len(z), len(pay), zlib.crc32(z))
        open(sys.argv[3], 'wb').write(d[:p] + hdr + z + d[p + 24 + st:])
        break
    p += 24 + st
EOF
}

# stime1 FILE.cfg: the first STIME payload in form 1 (tangram-cfg(5)):
# its mode, cluster and value counts, whether the values fill it, then its
# durations and its gaps
stime1() {
	python3 - "$1" <<'EOF'
import struct, sys, zlib
d = open(sys.argv[1], 'rb').read()
def uv(b, q):
    n = sh = 0
    while True:
        x = b[q]; q += 1; n |= (x & 0x7f) << sh; sh += 7
        if x < 0x80:
            return n, q
p = 12
while p < len(d):
    t, f, st, raw, crc = struct.unpack('<HHQQI', d[p:p + 24])
    if t == 7:
        pay = d[p + 24:p + 24 + st]
        pay = zlib.decompress(pay) if f & 1 else pay
        mode, q = uv(pay, 0)
        c, q = uv(pay, q)
        n = 0
        for i in range(c):
            k, q = uv(pay, q)
            n += k
        v = []
        for i in range(2 * n):
            x, q = uv(pay, q)
            v.append(x if i < n else (x >> 1) ^ -(x & 1))
        print('mode', mode, 'clusters', c, 'values', n, 'whole' if q == len(pay) else 'not whole')
        print('dur', *v[:n])
        print('gap', *v[n:])
        break
    p += 24 + st
EOF
}

# stime_damage FILE.cfg OUT short|long: the first STIME payload one byte
# shorter or longer, with a matching checksum
stime_damage() {
	python3 "$TG_TOP/tests/helpers/cfg-damage.py" "$1" "$2" 7 "$3"
}

# ---- arguments ----------------------------------------------------------

@test "trace-compress --bogus" { run -2 --separate-stderr trace-compress --bogus; [ -z "$output" ]; [ "${stderr_lines[-2]}" = "$CUSAGE" ]; }
@test "trace-compress -x" { run -2 --separate-stderr trace-compress -x; [ -z "$output" ]; [ "${stderr_lines[-2]}" = "$CUSAGE" ]; }
@test "trace-compress two files" { run -2 --separate-stderr trace-compress "$F/good.rec" "$F/good.rec"; [ -z "$output" ]; [ "${stderr_lines[0]}" = "$CUSAGE" ]; }
@test "trace-compress -h" { run -0 --separate-stderr trace-compress -h; [ "${lines[0]}" = "$CUSAGE" ]; [ -z "$stderr" ]; }
@test "trace-compress -t bogus" { run -2 --separate-stderr trace-compress -t bogus "$F/good.rec"; [ -z "$output" ]; [ "$stderr" = "trace-compress: option -t: unknown timing 'bogus' (aggregate, lossless, binned, hist, cfg)" ]; }
@test "trace-compress -e 0" { run -2 --separate-stderr trace-compress -e 0 "$F/good.rec"; [ -z "$output" ]; [ "$stderr" = "trace-compress: option -e: '0' is not a relative error in [0.000001, 10]" ]; }
@test "trace-compress -e 5%" { run -2 --separate-stderr trace-compress -e 5% "$F/good.rec"; [ -z "$output" ]; [ "$stderr" = "trace-compress: option -e: '5%' is not a relative error in [0.000001, 10]" ]; }
@test "trace-compress -k 13" { run -2 --separate-stderr trace-compress -k 13 "$F/good.rec"; [ -z "$output" ]; [ "$stderr" = "trace-compress: option -k: '13' is not a number in [1, 12]" ]; }
@test "trace-compress -m 0" { run -2 --separate-stderr trace-compress -m 0 "$F/good.rec"; [ -z "$output" ]; [ "$stderr" = "trace-compress: option -m: '0' is not a number in [1, 1048576]" ]; }
@test "trace-compress missing file" { run -2 --separate-stderr trace-compress x; [ -z "$output" ]; [ "$stderr" = "trace-compress: cannot open 'x': No such file or directory" ]; }
@test "trace-compress bad magic" { run -2 --separate-stderr trace-compress "$F/badmagic.rec"; [ -z "$output" ]; [ "$stderr" = "trace-compress: $F/badmagic.rec: not a Tangram record stream (bad magic)" ]; }
@test "trace-compress of a .cfg" { trace-compress -o a.cfg "$F/good.rec"; run -2 --separate-stderr trace-compress a.cfg; [ -z "$output" ]; [ "$stderr" = "trace-compress: a.cfg: not a Tangram record stream (bad magic)" ]; }
@test "trace-compress to a full disk" { run -2 --separate-stderr bash -c 'trace-compress "$1" > /dev/full' - "$F/good.rec"; [ "$stderr" = "trace-compress: write error on standard output: No space left on device" ]; }
@test "trace-merge without files" { run -2 --separate-stderr trace-merge; [ -z "$output" ]; [ "${stderr_lines[0]}" = "$MUSAGE" ]; }
@test "trace-merge --bogus" { run -2 --separate-stderr trace-merge --bogus "$F/good.rec"; [ -z "$output" ]; [ "${stderr_lines[-2]}" = "$MUSAGE" ]; }
@test "trace-merge -h" { run -0 --separate-stderr trace-merge -h; [ "${lines[0]}" = "$MUSAGE" ]; [ -z "$stderr" ]; }
@test "trace-merge --help" { run -0 --separate-stderr trace-merge --help; [ "${lines[0]}" = "$MUSAGE" ]; [ -z "$stderr" ]; }
@test "trace-merge - -" { run -2 --separate-stderr trace-merge - -; [ -z "$output" ]; [ "$stderr" = "trace-merge: standard input named twice" ]; }
@test "trace-merge -t bogus" { run -2 --separate-stderr trace-merge -t bogus "$F/good.rec"; [ "$stderr" = "trace-merge: option -t: unknown timing 'bogus' (aggregate, lossless, binned, hist, cfg)" ]; }
@test "trace-merge of a directory: its .rec streams in name order; one without any: one line, exit 2" {
	mkdir d empty
	cp "$F/good.rec" d/b.rec
	cp "$F/good.rec" d/a.rec
	touch d/notes.txt
	run -0 --separate-stderr trace-merge -f -o dir.cfg d
	run -0 --separate-stderr trace-merge -f -o files.cfg d/a.rec d/b.rec
	cmp dir.cfg files.cfg
	run -2 --separate-stderr trace-merge -o x.cfg empty
	[ "$stderr" = "trace-merge: no .rec streams in 'empty'" ]
	[ ! -e x.cfg ]
}
@test "trace-decode -r bogus" { run -2 --separate-stderr trace-decode -r x "$F/good.rec"; [ -z "$output" ]; [ "$stderr" = "trace-decode: option -r: 'x' is not a number in [0, 2147483647]" ]; }
@test "trace-decode -r 5-2" { run -2 --separate-stderr trace-decode -r 5-2 "$F/good.rec"; [ -z "$output" ]; [ "$stderr" = "trace-decode: option -r: '2' is not a number in [5, 2147483647]" ]; }

# ---- round trips: fixtures ------------------------------------------------

@test "good.rec: aggregate timing decodes the same lines, times aside" {
	run -0 --separate-stderr trace-compress "$F/good.rec"
	[ -z "$stderr" ]
	trace-compress "$F/good.rec" > g.cfg
	same_as g.cfg "$F/good.rec"
	run -0 --separate-stderr trace-decode g.cfg
	# the times are rebuilt, which the first line says (hb-build orders
	# no lock epochs by them), but for the anchored calls' (XTIME)
	[ "${lines[0]}" = $'#timing\tmode=aggregate\tanchored=1' ]
	[ "${#lines[@]}" -eq 18 ]
	[ -z "$stderr" ]
}

@test "good.rec: lossless timing decodes to its golden text exactly" {
	trace-compress -t lossless "$F/good.rec" > g.cfg
	run -0 --separate-stderr trace-decode g.cfg
	[ "$output" = "$(cat "$F/good.txt")" ]
	[ -z "$stderr" ]
}

@test "good.rec: lossless times in STIME form 1, each gap from the previous call's end" {
	# 14 calls, each its own signature: one cluster each, in record order
	trace-compress -t lossless "$F/good.rec" > g.cfg
	run -0 stime1 g.cfg
	[ "${lines[0]}" = "mode 9 clusters 14 values 14 whole" ]
	[ "${lines[1]}" = "dur 5000 3000 2000 800 200 1500 4000 2500 6000 2000 3000 1000 700 1200" ]
	# thread 1's read (15500) is its first call; fwrite made the nested
	# write (depth 1) stored before it, so its gap is from that one's start
	[ "${lines[2]}" = "gap 1000 1000 1000 1000 200 800 15500 2500 7500 1500 -500 1000 1000 1300" ]
}

@test "lossless STIME form 0, written before form 1, decodes and merges exactly" {
	run -0 --separate-stderr trace-decode "$F/v1.cfg"
	[ "$output" = "$(cat "$F/good.txt")" ]
	trace-compress -t lossless "$F/good.rec" > g.cfg
	trace-merge -f -t lossless "$F/v1.cfg" g.cfg > m.cfg
	exactly m.cfg "$F/good.rec" "$F/good.rec"
}

@test "lossless STIME form 1 a byte short or a byte long: exit 2, one line" {
	trace-compress -t lossless "$F/good.rec" > g.cfg
	at=$(section g.cfg STIME)
	for how in short long; do
		stime_damage g.cfg d.cfg $how
		run -2 --separate-stderr trace-decode d.cfg
		[ -z "$output" ]
		[ "$stderr" = "trace-decode: d.cfg: corrupt section STIME at byte $at (times of stream 0)" ]
	done
}

@test "good.rec: --json of the .cfg is the --json of the stream" {
	trace-compress -t lossless "$F/good.rec" > g.cfg
	cmp <(trace-decode --json g.cfg) <(trace-decode --json "$F/good.rec")
}

@test "-o, standard input and - give the same bytes as standard output" {
	trace-compress "$F/good.rec" > a.cfg
	trace-compress -o b.cfg "$F/good.rec"
	trace-compress < "$F/good.rec" > c.cfg
	trace-compress - < "$F/good.rec" > d.cfg
	cmp a.cfg b.cfg
	cmp a.cfg c.cfg
	cmp a.cfg d.cfg
}

@test "header-only.rec: a trace with no records" {
	trace-compress -t lossless "$F/header-only.rec" > h.cfg
	exactly h.cfg "$F/header-only.rec"
}

@test "a damaged stream: compressed up to the damage, exit 2" {
	run -2 --separate-stderr trace-compress -t lossless -o t.cfg "$F/truncated.rec"
	[ "$stderr" = "trace-compress: $F/truncated.rec: truncated frame at byte 228" ]
	run -0 --separate-stderr trace-decode t.cfg
	[ "$output" = "$(head -n 7 "$F/good.txt")" ]
}

@test "a .cfg decodes among .rec files, in the order named" {
	trace-compress -t lossless "$F/good.rec" > g.cfg
	cmp <(trace-decode "$F/good.rec" g.cfg "$F/good.rec") \
		<(trace-decode "$F/good.rec" "$F/good.rec" "$F/good.rec")
	cmp <(trace-decode - < g.cfg) <(trace-decode "$F/good.rec")
}

# ---- round trips: trace-gen -----------------------------------------------

@test "trace-gen: every timing mode round-trips, lossless exactly" {
	for args in "-s 1 -n 1000" "-s 7 -n 5000 -t 4 -r 3" "-s 3 -n 20000 -t 2" "-s 11 -n 3000 -t 16"; do
		"$GEN" $args -o g.rec
		for t in aggregate binned hist cfg; do
			trace-compress -t $t g.rec > g.cfg
			same_as g.cfg g.rec
		done
		trace-compress -t lossless g.rec > g.cfg
		exactly g.cfg g.rec
	done
}

@test "trace-gen -p mpi: 8 ranks merge and round-trip" {
	for r in 0 1 2 3 4 5 6 7; do
		"$GEN" -p mpi -s $((r + 1)) -r $r -w 8 -n 3000 -o rank-$r.rec
	done
	trace-merge -t lossless rank-*.rec > l.cfg
	exactly l.cfg rank-*.rec
	trace-merge rank-*.rec > a.cfg
	same_as a.cfg rank-*.rec
	[ "$(meta a.cfg streams)" = 8 ]
	[ "$(meta a.cfg ranks)" = 0-7 ]
}

@test "identical grammars are stored once: 32 ranks cost what 16 do" {
	for w in 16 32; do
		mkdir w$w
		for r in $(seq 0 $((w - 1))); do
			"$GEN" -p mpi -s 5 -r $r -w $w -n 2000 -o w$w/rank-$r.rec
		done
		trace-merge -f -o w$w.cfg w$w/rank-*.rec
		same_as w$w.cfg w$w/rank-*.rec
	done
	[ "$(meta w32.cfg grammars)" -le 6 ]
	# everything but the 16 more stream headers is the same
	[ $(stat -c %s w32.cfg) -lt $(($(stat -c %s w16.cfg) + 16 * 12)) ]
}

@test "a loop costs the same at 10 and 10000 iterations" {
	need_mpi
	trace-run -o t10 -l mpi -- mpirun.mpich -n 2 "$B/stencil" 10 > /dev/null
	trace-run -o t1k -l mpi -- mpirun.mpich -n 2 "$B/stencil" 10000 > /dev/null
	trace-merge -o s10.cfg t10/rank-*.rec
	trace-merge -o s1k.cfg t1k/rank-*.rec
	same_as s1k.cfg t1k/rank-*.rec
	a=$(stat -c %s s10.cfg) b=$(stat -c %s s1k.cfg)
	[ $b -lt $((a + a / 10)) ]
	[ "$(meta s1k.cfg calls)" -gt 180000 ]
}

# Each MPI_File_open of ROMIO allocates buffers for its own collectives
# at addresses it had not used, so a buffer the loop names again came after
# a larger id each time, and a code relative to the largest id changed at
# every checkpoint: 16 checkpoints cost 2.2 times 2 (5,067 to 11,276
# bytes).  A buffer named lately is coded by its place among the recent
# ones now (tangram-cfg(5), BUF).
@test "a loop that checkpoints through MPI-IO: 16 checkpoints cost little more than 2" {
	need_mpi
	trace-run -o c2 -- mpirun.mpich -n 2 "$B/stencil" 200 100 > /dev/null
	trace-run -o c16 -- mpirun.mpich -n 2 "$B/stencil" 1600 100 > /dev/null
	[ "$(stat -c %s stencil.ck.1)" -eq $((2 * 1024 * 8)) ]
	trace-merge -o c2.cfg c2/rank-*.rec
	trace-merge -o c16.cfg c16/rank-*.rec
	trace-merge -t lossless -o l16.cfg c16/rank-*.rec
	exactly l16.cfg c16/rank-*.rec
	same_as c16.cfg c16/rank-*.rec
	[ "$(notimes c16.cfg | grep -c $'\tMPI_File_write_at_all\t')" -eq 32 ]
	a=$(stat -c %s c2.cfg) b=$(stat -c %s c16.cfg)
	echo "2 checkpoints $a, 16 checkpoints $b bytes"
	[ $b -lt $((a + a / 4)) ]
}

# stencil_traced N: the stencil on N ranks, 10 iterations, traced into tN/;
# the program's own calls of each stream (rec-filter) in appN/
stencil_traced() {
	local f
	trace-run -o "t$1" -- mpirun.mpich -n "$1" "$B/stencil" 10 > /dev/null
	mkdir "app$1"
	for f in "t$1"/rank-*.rec; do "$B/rec-filter" "$f" "app$1/${f##*/}"; done
}

@test "default traces are flat: the MPI library adds next to nothing from 2 to 4 ranks, losslessly" {
	need_mpi
	for n in 2 4; do
		stencil_traced $n
		trace-merge -o all$n.cfg t$n/rank-*.rec
		trace-merge -o app$n.cfg app$n/rank-*.rec
		trace-merge -t lossless -o l$n.cfg t$n/rank-*.rec
		exactly l$n.cfg t$n/rank-*.rec
		for r in $(seq 0 $((n - 1))); do
			cmp <(trace-decode -r $r l$n.cfg) <(trace-decode t$n/rank-$r.rec)
			cmp <(notimes -r $r all$n.cfg) <(notimes t$n/rank-$r.rec)
		done
	done
	a2=$(stat -c %s all2.cfg) a4=$(stat -c %s all4.cfg)
	p2=$(stat -c %s app2.cfg) p4=$(stat -c %s app4.cfg)
	# the whole trace grows as the program's own calls (a 2x1 grid
	# becomes a 2x2 one) within 5 % + 32 bytes per added rank
	[ $((a4 - a2)) -le $((p4 - p2 + a2 / 20 + 2 * 32)) ]
}

# merged_both DIR RANK...: DIR's streams merged unified (u.cfg) and apart
# (p.cfg, TANGRAM_UNIFY=0); u.cfg decodes as the streams, and as each of
# the RANKs' streams alone
merged_both() {
	local d=$1 r
	shift
	trace-merge -o u.cfg "$d"/rank-*.rec
	TANGRAM_UNIFY=0 trace-merge -o p.cfg "$d"/rank-*.rec
	same_as u.cfg "$d"/rank-*.rec
	for r in "$@"; do
		cmp <(notimes -r "$r" u.cfg) <(notimes "$d/rank-$r.rec")
	done
}

# A 3x3 grid has all nine classes of ranks (corners, edges, the middle):
# each sends to MPI_PROC_NULL in other directions, and before the streams
# were unified each class had signatures and rules of its own.
@test "unified streams: the nine classes of a 3x3 stencil share their loop; each rank decodes as its stream" {
	need_mpi
	trace-run -o t9 -- mpirun.mpich -n 9 "$B/stencil" 10 > /dev/null
	merged_both t9 0 1 4 8
	u=$(stat -c %s u.cfg) p=$(stat -c %s p.cfg)
	echo "unified $u, apart $p"
	[ $((u * 100)) -le $((p * 97)) ]
	# times other than means are kept per signature: those streams stay
	# as they are, and exactly so
	trace-merge -t lossless -o l.cfg t9/rank-*.rec
	exactly l.cfg t9/rank-*.rec
}

# Before the loop, each class of a stencil's ranks makes its first
# exchange (new requests, new buffers) and Sequitur cuts it into rules of
# its own per stream, in other places; the rules are cut alike before
# they are unified (cfgreshape.c).  A 4x4 grid has nine classes, a 2x2
# one four: the program's own calls must not grow by more than 32 bytes
# per added rank (before the cut: 36 to 43).
@test "unified streams: a stencil's first exchange is shared too: 4 to 16 ranks add under 32 bytes a rank" {
	need_mpi
	stencil_traced 4
	stencil_traced 16
	trace-merge -o a4.cfg app4/rank-*.rec
	same_as a4.cfg app4/rank-*.rec
	merged_both app16 0 1 5 15
	a4=$(stat -c %s a4.cfg) a16=$(stat -c %s u.cfg)
	echo "own calls: 4 ranks $a4, 16 ranks $a16 bytes"
	[ $((a16 - a4)) -le $((12 * 32)) ]
	[ "$a16" -lt "$(stat -c %s p.cfg)" ]
}

# The ranks of an uneven decomposition write other byte counts: a UINT
# argument (and the return value) differs, in a signature tagged so that
# it names a local value (tangram-cfg(5), version 4).
@test "unified streams: ranks that write other byte counts share their loop; each rank decodes as its stream" {
	need_mpi
	trace-run -o t -- mpirun.mpich -n 4 "$B/uneven" "$PWD/u" > /dev/null
	mkdir app
	for f in t/rank-*.rec; do "$B/rec-filter" "$f" app/${f##*/}; done
	merged_both app 0 1 2 3
	[ "$(stat -c %s u.cfg)" -lt "$(stat -c %s p.cfg)" ]
	# the 19 writes of the loop of ranks 1 to 3: one signature, one mean
	run -0 trace-decode u.cfg
	[ "$(printf '%s\n' "$output" | awk -F'\t' '$8 == "write" && $1 > 0 { printf "%.9f\n", $5 - $4 }' |
		sort | uniq -c | awk '$1 >= 19' | wc -l)" -eq 1 ]
	trace-merge -t lossless -o l.cfg app/rank-*.rec
	exactly l.cfg app/rank-*.rec
}

# A string whose last digits are the process's rank is coded as a template
# (the rank left out), so that "out.3" of rank 3 and "out.5" of rank 5 are
# one signature.  Digits that equal the rank by chance made the signature
# the rank's own: rank 3 of an Open MPI program stats ".../openmpi3/..."
# as every rank does (120 signatures of its own at 8 ranks).  Such a
# template, reached by one rank only, is put back as the string where
# another rank has that signature: one signature, one mean.
@test "a rank whose number ends a path by chance shares the other ranks' signatures" {
	need_mpi
	mkdir lib3
	for f in a b c d e f; do echo $f > lib3/$f.txt; done
	trace-run -o t -- mpirun.mpich -n 4 "$B/readfiles" lib3/{a,b,c,d,e,f}.txt > /dev/null
	trace-merge -o d.cfg t/rank-*.rec
	same_as d.cfg t/rank-*.rec
	run -0 trace-decode d.cfg
	# rank 3's open of each file has rank 1's signature: its mean
	opens() {
		printf '%s\n' "$output" | awk -F'\t' -v r=$1 '$1 == r && $8 == "open" && $10 ~ /lib3/ { printf "%s %.9f\n", $10, $5 - $4 }'
	}
	[ "$(opens 3 | wc -l)" -eq 6 ]
	[ "$(opens 3)" = "$(opens 1)" ]
	# ranks of other numbers keep their templates
	mkdir lib9
	for f in a b c d e f; do echo $f > lib9/$f.txt; done
	trace-run -o t9 -- mpirun.mpich -n 4 "$B/readfiles" lib9/{a,b,c,d,e,f}.txt > /dev/null
	trace-merge -o d9.cfg t9/rank-*.rec
	# (two runs: their MPI start-ups differ by up to 130 bytes either way,
	# from 3.5 KB, so the sizes agree within 5 %; the opens above show the
	# signatures shared)
	[ "$(stat -c %s d.cfg)" -le "$(( $(stat -c %s d9.cfg) * 105 / 100 ))" ]
}

# ---- round trips: programs ------------------------------------------------

@test "tests/apps programs round-trip in every timing mode" {
	for a in posix_basic stdio_basic fortified "forker exit" "threads 3000 4" execer nested offsets; do
		d=t-${a%% *}
		rm -rf "$d"
		(TANGRAM_DIR=$PWD/$d LD_PRELOAD=$SHIM exec $APPS/$a) > /dev/null 2>&1 || true
		for f in "$d"/*.rec; do
			for t in aggregate binned hist cfg; do
				trace-compress -t $t "$f" > x.cfg
				same_as x.cfg "$f"
			done
			trace-compress -t lossless "$f" > x.cfg
			exactly x.cfg "$f"
		done
		trace-merge -f -t lossless "$d"/*.rec > m.cfg
		exactly m.cfg "$d"/*.rec
	done
}

@test "tests/mpi programs round-trip, merged" {
	need_mpi
	for np_p in "4 ring" "4 coll" "4 comms" "2 waits" "2 persist" "2 types" "4 mpiio" "4 anysrc"; do
		p=${np_p#* }
		trace-run -o t-$p -- mpirun.mpich -n ${np_p%% *} "$B/$p" > /dev/null
		trace-merge -t lossless t-$p/rank-*.rec > l.cfg
		exactly l.cfg t-$p/rank-*.rec
		trace-merge t-$p/rank-*.rec > a.cfg
		same_as a.cfg t-$p/rank-*.rec
	done
}

@test "MPI_Info and clock records round-trip" {
	need_mpi
	TANGRAM_INFO=1 TANGRAM_CLOCK_SYNC=1 trace-run -o t -- mpirun.mpich -n 2 "$B/info" > /dev/null
	grep -q '^#clock' <(trace-decode t/rank-*.rec)
	grep -q '^#info' <(trace-decode t/rank-*.rec)
	trace-merge -t lossless t/rank-*.rec > l.cfg
	exactly l.cfg t/rank-*.rec
	trace-merge -t hist t/rank-*.rec > h.cfg
	same_as h.cfg t/rank-*.rec
}

@test "TANGRAM_SINK='|trace-compress -o t/rank-%r.cfg' compresses each rank online" {
	need_mpi
	mkdir t
	# (env -u: a sanitized trace-compress will not start with the tracer
	# preloaded, which the sink inherits)
	TANGRAM_SINK="|tee t/rank-%r.rec | env -u LD_PRELOAD trace-compress -t lossless -o t/rank-%r.cfg" \
		run -0 --separate-stderr mpirun.mpich -n 4 env LD_PRELOAD="$SHIM" "$B/ring"
	[ -z "$stderr" ]
	[ "$(ls t | tr '\n' ' ')" = "rank-0.cfg rank-0.rec rank-1.cfg rank-1.rec rank-2.cfg rank-2.rec rank-3.cfg rank-3.rec " ]
	for r in 0 1 2 3; do
		exactly t/rank-$r.cfg t/rank-$r.rec
	done
	trace-merge t/rank-*.cfg > all.cfg
	same_as all.cfg t/rank-*.rec
}

# ---- merging ----------------------------------------------------------------

@test "merging is associative: (a+b)+c decodes as a+(b+c)" {
	for r in 0 1 2; do "$GEN" -p mpi -s $((r + 3)) -r $r -w 3 -n 2000 -o r$r.rec; done
	for t in lossless aggregate; do
		trace-merge -t $t r0.rec r1.rec > ab.cfg
		trace-merge -t $t ab.cfg r2.rec > ab_c.cfg
		trace-merge -t $t r1.rec r2.rec > bc.cfg
		trace-merge -t $t r0.rec bc.cfg > a_bc.cfg
		trace-merge -t $t r0.rec r1.rec r2.rec > abc.cfg
		if [ $t = lossless ]; then
			exactly ab_c.cfg a_bc.cfg
			exactly abc.cfg r0.rec r1.rec r2.rec
		else
			same_as ab_c.cfg a_bc.cfg
		fi
		same_as ab_c.cfg r0.rec r1.rec r2.rec
	done
}

@test ".rec and .cfg inputs mix, in any timing" {
	for r in 0 1 2 3; do "$GEN" -s $((r + 20)) -n 2000 -t 2 -r $r -w 4 -o r$r.rec; done
	trace-compress -t binned r1.rec > r1.cfg
	trace-compress -t lossless r2.rec > r2.cfg
	trace-compress -t cfg r3.rec > r3.cfg
	trace-merge -t hist r0.rec r1.cfg r2.cfg r3.cfg > m.cfg
	same_as m.cfg r0.rec r1.rec r2.rec r3.rec
	[ "$(meta m.cfg timing)" = lossless,binned,hist,cfg ]
	# the lossless stream keeps its times exactly
	cmp <(trace-decode --rank 2 m.cfg) <(trace-decode r2.rec)
}

@test "--rank and --ranks decode only the ranks asked for" {
	for r in 0 1 2 3 4 5 6 7; do "$GEN" -p mpi -s $((r + 1)) -r $r -w 8 -n 500 -o r$r.rec; done
	trace-merge -t lossless r?.rec > m.cfg
	cmp <(trace-decode --rank 3 m.cfg) <(trace-decode r3.rec)
	cmp <(trace-decode --ranks 2-5 m.cfg) <(trace-decode r2.rec r3.rec r4.rec r5.rec)
	cmp <(trace-decode -r 0,6-7 m.cfg) <(trace-decode r0.rec r6.rec r7.rec)
	cmp <(trace-decode -r 0,6-7 r?.rec) <(trace-decode r0.rec r6.rec r7.rec)
	# a rank no stream has is a typo, not a run without calls
	run -2 --separate-stderr trace-decode --rank 9 m.cfg
	[ -z "$output" ] && [ "$stderr" = "trace-decode: option -r: no stream of the input has a rank in '9'" ]
	run -0 --separate-stderr trace-decode -r 7-9 m.cfg
	cmp <(printf '%s\n' "$output") <(trace-decode r7.rec)
}

@test "traces of different runs are refused without -f" {
	need_mpi
	trace-run -o run1 -- mpirun.mpich -n 2 "$B/ring" > /dev/null
	sleep 1.5
	trace-run -o run2 -- mpirun.mpich -n 2 "$B/ring" > /dev/null
	run -2 --separate-stderr trace-merge -o x.cfg run1/rank-0.rec run2/rank-1.rec
	[[ "$stderr" == "trace-merge: not one run: 'run2/rank-1.rec' starts "*" s after everything before it ended (-f merges them anyway)" ]]
	run -2 --separate-stderr trace-merge -o x.cfg run1/rank-0.rec run2/rank-0.rec
	[ "$stderr" = "trace-merge: not one run: 'run1/rank-0.rec' and 'run2/rank-0.rec' both hold rank 0 (-f merges them anyway)" ]
	run -0 --separate-stderr trace-merge -f -o x.cfg run1/rank-0.rec run2/rank-1.rec
	same_as x.cfg run1/rank-0.rec run2/rank-1.rec
	run -0 --separate-stderr trace-merge -o x.cfg run2/rank-*.rec
	[ -z "$stderr" ]
}

@test "the same stream twice is refused without -f" {
	"$GEN" -s 3 -n 100 -r 0 -w 2 -o a.rec
	run -2 --separate-stderr trace-merge a.rec a.rec
	[ -z "$output" ]
	[ "$stderr" = "trace-merge: not one run: 'a.rec' and 'a.rec' both hold rank 0 (-f merges them anyway)" ]
	"$GEN" -s 3 -n 100 -o p.rec
	run -2 --separate-stderr trace-merge p.rec p.rec
	[ "$stderr" = "trace-merge: not one run: 'p.rec' and 'p.rec' hold the same process (-f merges them anyway)" ]
}

@test "a bad input is reported and the others are merged" {
	"$GEN" -s 3 -n 100 -r 0 -w 2 -o a.rec
	"$GEN" -s 4 -n 100 -r 1 -w 2 -o b.rec
	run -2 --separate-stderr trace-merge -o m.cfg a.rec nosuch "$F/truncated.rec" b.rec
	[ "${stderr_lines[0]}" = "trace-merge: cannot open 'nosuch': No such file or directory" ]
	[ "${stderr_lines[1]}" = "trace-merge: $F/truncated.rec: truncated frame at byte 228" ]
	same_as m.cfg a.rec "$F/truncated.rec" b.rec
}

@test "no progress when standard error is not a terminal, or with -q" {
	"$GEN" -s 3 -n 100 -r 0 -w 2 -o a.rec
	run -0 --separate-stderr trace-merge -o m.cfg a.rec
	[ -z "$stderr" ]
	command -v script > /dev/null || skip "script(1) is missing"
	run -0 script -qec "trace-merge -q -o m.cfg a.rec" /dev/null
	[ -z "$output" ]
	run -0 script -qec "trace-merge -o m.cfg a.rec" /dev/null
	[[ "$output" == *"trace-merge: 0/1 a.rec, 0 records"* ]]
}

# ---- timing bounds ------------------------------------------------------------

# within_bound EXACT GOT E: every decoded duration within E of the exact
# one, every start within E times its distance from the previous decoded
# start of its thread (trace-compress(1), -t)
within_bound() {
	python3 - "$@" <<'EOF'
import sys
ns = lambda s: int(s.replace('.', ''))
rows = lambda p: [l.split('\t') for l in open(p) if not l.startswith('#')]
exact, got, e = rows(sys.argv[1]), rows(sys.argv[2]), float(sys.argv[3])
assert len(exact) == len(got)
prev = {}
for a, b in zip(exact, got):
    assert a[:3] == b[:3] and a[5:] == b[5:], (a, b)
    t, d = ns(a[3]), ns(a[4]) - ns(a[3])
    t2, d2 = ns(b[3]), ns(b[4]) - ns(b[3])
    assert abs(d2 - d) <= e * d + 1, ('duration', a, b)
    p = prev.get(a[1], 0)
    assert abs(t2 - t) <= e * abs(t - p) + 1, ('start', a, b, p)
    prev[a[1]] = t2
EOF
}

@test "binned, hist and cfg times are within the error bound" {
	"$GEN" -s 5 -n 20000 -t 3 -o g.rec
	trace-decode g.rec > exact.txt
	for t in binned hist cfg; do
		trace-compress -t $t -e 0.05 -k 3 -m 20 g.rec > g.cfg
		trace-decode g.cfg > $t.txt
		within_bound exact.txt $t.txt 0.05
	done
}

@test "binned, hist and cfg times of an MPI rank are within the bound too: MPI_Init's nested calls come first, its gap is negative (the encoder went on from below time zero, the decoder from zero)" {
	need_mpi
	trace-run -o t -- mpirun.mpich -n 2 "$B/ring" > /dev/null
	trace-decode t/rank-0.rec > exact.txt
	for e in 0.1 0.5; do
		for t in binned hist cfg; do
			trace-compress -t $t -e $e t/rank-0.rec > r.cfg
			trace-decode r.cfg > $t.txt
			within_bound exact.txt $t.txt $e
		done
	done
}

@test "aggregate durations are the means of their signatures" {
	"$GEN" -s 5 -n 5000 -t 2 -o g.rec
	trace-compress g.rec > g.cfg
	same_as g.cfg g.rec
	# the sum of the means over all calls is the sum of the durations
	sum() { awk -F'\t' '!/^#/ { split($4, s, "."); split($5, e, "."); t += (e[1] - s[1]) * 1e9 + e[2] - s[2] } END { printf "%d\n", t }'; }
	a=$(trace-decode g.rec | sum) b=$(trace-decode g.cfg | sum)
	[ $((a > b ? a - b : b - a)) -le 5000 ]
}

# ---- damaged compressed traces ----------------------------------------------------

@test "truncated .cfg files: exit 2, the section and the byte named" {
	trace-merge -t lossless "$F/good.rec" > g.cfg
	size=$(stat -c %s g.cfg)
	cst=$(section g.cfg CST)
	head -c $((cst + 30)) g.cfg > t1.cfg
	run -2 --separate-stderr trace-decode t1.cfg
	[ -z "$output" ]
	[ "$stderr" = "trace-decode: t1.cfg: truncated section CST at byte $cst" ]
	head -c $((cst + 10)) g.cfg > t2.cfg
	run -2 --separate-stderr trace-decode t2.cfg
	[ "$stderr" = "trace-decode: t2.cfg: truncated section header at byte $cst" ]
	head -c $((size - 24)) g.cfg > t3.cfg
	run -2 --separate-stderr trace-decode t3.cfg
	[ "$stderr" = "trace-decode: t3.cfg: truncated file: no END section at byte $((size - 24))" ]
	head -c 10 g.cfg > t4.cfg
	run -2 --separate-stderr trace-decode t4.cfg
	[ "$stderr" = "trace-decode: t4.cfg: truncated header at byte 10" ]
}

@test "corrupt .cfg files: exit 2, the section and the byte named" {
	trace-merge -t lossless "$F/good.rec" > g.cfg
	gram=$(section g.cfg GRAMMAR)
	python3 -c "import sys; d = bytearray(open('g.cfg', 'rb').read()); d[$gram + 30] ^= 1; open('f.cfg', 'wb').write(d)"
	run -2 --separate-stderr trace-decode f.cfg
	[ -z "$output" ]
	[ "$stderr" = "trace-decode: f.cfg: corrupt section GRAMMAR at byte $gram (checksum)" ]
	for s in STRINGS CST GRAMMAR STREAMS; do
		corrupt g.cfg $s c.cfg
		at=$(section c.cfg $s)
		run -2 --separate-stderr trace-decode c.cfg
		[ -z "$output" ]
		[[ "$stderr" == "trace-decode: c.cfg: corrupt section $s at byte $at ("* ]]
		[ "${#stderr_lines[@]}" -eq 1 ]
		run -2 --separate-stderr trace-merge -o x.cfg c.cfg
		[[ "$stderr" == "trace-merge: c.cfg: corrupt section $s at byte $at ("* ]]
	done
	printf '\211TGCFG\r\n\016\000\000\000' > v.cfg
	run -2 --separate-stderr trace-decode v.cfg
	[ "$stderr" = "trace-decode: v.cfg: unsupported compressed trace version 14" ]
	printf '\211TGCFG\r\n\000\000\000\000' > v.cfg
	run -2 --separate-stderr trace-decode v.cfg
	[ "$stderr" = "trace-decode: v.cfg: unsupported compressed trace version 0" ]
}

# v1.cfg: good.rec compressed with lossless times by the version 1 writer;
# v1-mpi.cfg: a 4-rank stencil with the MPI library's calls (local values,
# foreign seqs), aggregate times, and its decoding by that writer's reader
@test "a version 2 .cfg (no local values in integers) is still read" {
	run -0 --separate-stderr trace-decode "$F/v2.cfg"
	diff <(printf '%s\n' "$output" | grep -v $'^#timing\t') "$F/good.txt"
	run -0 --separate-stderr trace-decode "$F/v2-mpi.cfg"
	diff <(printf '%s\n' "$output" | grep -v $'^#timing\t') <(zcat "$F/v1-mpi.txt.gz")
	[ "$(od -An -tu1 -j8 -N2 "$F/v2-mpi.cfg" | tr -s ' ')" = " 2 0" ]
}

@test "a version 1 .cfg (row headers) is still read, and merged into version 13" {
	run -0 --separate-stderr trace-decode "$F/v1.cfg"
	diff <(printf '%s\n' "$output" | grep -v $'^#timing\t') "$F/good.txt"
	zcat "$F/v1-mpi.txt.gz" > want.txt
	run -0 --separate-stderr trace-decode "$F/v1-mpi.cfg"
	diff <(printf '%s\n' "$output" | grep -v $'^#timing\t') want.txt
	grep -q '^#proc' want.txt
	# the ranks' rules kept apart, the means of each signature stay
	TANGRAM_UNIFY=0 run -0 trace-merge -q -o m.cfg "$F/v1-mpi.cfg"
	[ "$(od -An -tu1 -j8 -N2 m.cfg | tr -s ' ')" = " 13 0" ]
	run -0 --separate-stderr trace-decode m.cfg
	diff <(printf '%s\n' "$output" | grep -v $'^#timing\t') want.txt
	# unified, a signature's mean is that of all the calls it stands for
	run -0 trace-merge -q -o u.cfg "$F/v1-mpi.cfg"
	diff <(notimes u.cfg) <(cut -f1-3,6- want.txt)
	# as the version 3 writer unified it (local values in integers, no
	# offsets or arrays among them)
	[ "$(od -An -tu1 -j8 -N2 "$F/v3-mpi.cfg" | tr -s ' ')" = " 3 0" ]
	diff <(notimes "$F/v3-mpi.cfg") <(cut -f1-3,6- want.txt)
}

@test "a version 4 .cfg (local values in offsets, arrays and byte counts) is read as it was written" {
	run -0 --separate-stderr trace-decode "$F/v4-mpi.cfg"
	diff <(printf '%s\n' "$output" | grep -v $'^#timing\t') <(zcat "$F/v4-mpi.txt.gz")
	[ "$(od -An -tu1 -j8 -N2 "$F/v4-mpi.cfg" | tr -s ' ')" = " 4 0" ]
	# merged again (-f: it holds two runs), each stream decodes as before
	run -0 trace-merge -f -q -o m.cfg "$F/v4-mpi.cfg"
	diff <(notimes m.cfg) <(zcat "$F/v4-mpi.txt.gz" | cut -f1-3,6-)
}

# nsigs FILE.cfg FUNC: how many signatures of the CST are calls of FUNC
nsigs() {
	python3 - "$1" "$(awk -v f="$2" '$3 == f { print $1 }' "$TG_TOP/libcommon/calls.tab")" <<'PY'
import struct, sys, zlib
def uv(b, o):
    r = s = 0
    while True:
        c = b[o]; o += 1; r |= (c & 127) << s; s += 7
        if c < 128: return r, o
d = open(sys.argv[1], 'rb').read(); fid = int(sys.argv[2]); p = 12
while p < len(d):
    t, f, st, raw, crc = struct.unpack('<HHQQI', d[p:p + 24])
    if t == 3:
        pay = zlib.decompress(d[p + 24:p + 24 + st]) if f & 1 else d[p + 24:p + 24 + st]
        n, o = uv(pay, 0); c = 0
        for i in range(n):
            k, o = uv(pay, o); w = []
            for j in range(k):
                x, o = uv(pay, o); w.append(x >> 1 ^ -(x & 1))
            c += len(w) > 1 and w[0] == 1 and w[1] == fid
        print(c)
    p += 24 + st
PY
}

# Each rank of tests/mpi/tmpnames.c names its scratch files with mkstemp:
# the same calls with other strings.  Unified, the strings that differ
# are the streams' local values (tangram-cfg(5), version 11), and the
# ranks share the signatures: as many at 4 ranks as at 2.
@test "random names: ranks that name their files with mkstemp share signatures, the names local values" {
	need_mpi
	for n in 2 4; do
		mkdir sc$n
		trace-run -o t$n -- mpirun.mpich -n $n "$B/tmpnames" sc$n 3 > /dev/null
		[ -z "$(ls sc$n)" ]
		trace-merge -o u$n.cfg t$n/rank-*.rec
		TANGRAM_UNIFY=0 trace-merge -o p$n.cfg t$n/rank-*.rec
		same_as u$n.cfg t$n/rank-*.rec
		for r in 0 $((n - 1)); do
			cmp <(notimes -r $r u$n.cfg) <(notimes t$n/rank-$r.rec)
		done
		[ "$(grep -c $'\tmkstemp\t.*template=".*/sc'$n'/scratch-' <(trace-decode u$n.cfg))" -eq $((3 * n)) ]
	done
	[ "$(od -An -tu1 -j8 -N2 u4.cfg | tr -s ' ')" = " 13 0" ]
	echo "mkstemp signatures: unified $(nsigs u2.cfg mkstemp) $(nsigs u4.cfg mkstemp), apart $(nsigs p2.cfg mkstemp) $(nsigs p4.cfg mkstemp)"
	[ "$(nsigs u4.cfg mkstemp)" -eq "$(nsigs u2.cfg mkstemp)" ]
	[ "$(nsigs p4.cfg mkstemp)" -ge $(($(nsigs u4.cfg mkstemp) + 12)) ]
	[ "$(stat -c %s u4.cfg)" -lt "$(stat -c %s p4.cfg)" ]
	# merged again, into one string table: each file's names stay its own
	trace-merge -f -o m.cfg u2.cfg u4.cfg
	cmp <(notimes m.cfg) <(notimes t2/rank-*.rec t4/rank-*.rec)
	trace-merge -f -o m.cfg u4.cfg p2.cfg
	cmp <(notimes m.cfg) <(notimes t4/rank-*.rec t2/rank-*.rec)
	trace-merge -f -o m.cfg t2/rank-0.rec u4.cfg t2/rank-1.rec
	cmp <(notimes m.cfg) <(notimes t2/rank-0.rec t4/rank-*.rec t2/rank-1.rec)
}

# A version 10 writer kept each rank's random names (UCX's shared-memory
# segments) as strings in signatures of that rank's own.
@test "a version 10 .cfg is read as it was written; merged again, its random names become local values" {
	run -0 --separate-stderr trace-decode "$F/v10-mpi.cfg"
	diff <(printf '%s\n' "$output" | grep -v $'^#timing\t') <(zcat "$F/v10-mpi.txt.gz")
	[ "$(od -An -tu1 -j8 -N2 "$F/v10-mpi.cfg" | tr -s ' ')" = " 10 0" ]
	run -0 trace-merge -q -o m.cfg "$F/v10-mpi.cfg"
	diff <(notimes m.cfg) <(zcat "$F/v10-mpi.txt.gz" | cut -f1-3,6-)
	echo "version 10: $(stat -c %s "$F/v10-mpi.cfg") bytes, merged again $(stat -c %s m.cfg)"
	[ "$(stat -c %s m.cfg)" -lt "$(stat -c %s "$F/v10-mpi.cfg")" ]
	[ "$(nsigs m.cfg unlink)" -lt "$(nsigs "$F/v10-mpi.cfg" unlink)" ]
}

@test "version 2 STREAMS: a damaged column is refused with one line" {
	trace-compress -t lossless "$F/good.rec" > g.cfg
	at=$(section g.cfg STREAMS)
	# the first column's byte count made larger than the section
	python3 - g.cfg c.cfg "$at" <<'PY'
import struct, sys, zlib
d = bytearray(open(sys.argv[1], 'rb').read()); at = int(sys.argv[3])
t, f, st, raw, crc = struct.unpack('<HHQQI', d[at:at + 24])
pay = bytearray(zlib.decompress(d[at + 24:at + 24 + st]) if f & 1 else d[at + 24:at + 24 + st])
assert pay[0] == 1 and pay[1] >= 22
pay[2] += 1		# column 0 claims one more byte than it has
z = zlib.compress(bytes(pay))
d[at:at + 24 + st] = struct.pack('<HHQQI', t, 1, len(z), len(pay), zlib.crc32(z)) + z
open(sys.argv[2], 'wb').write(d)
PY
	run -2 --separate-stderr trace-decode c.cfg
	[ -z "$output" ]
	[[ "$stderr" == "trace-decode: c.cfg: corrupt section STREAMS at byte $at ("* ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
}

# The rules a unified group gets from Sequitur may have the body of a rule
# some other streams reach: shared, that rule would be reached by streams
# whose values it was not given (it was: "signature 471 does not decode").
@test "unified streams: 16 synthetic MPI ranks merge in one step and in two, and decode as their streams" {
	for r in $(seq 0 15); do "$GEN" -p mpi -s $((r + 1)) -r $r -w 16 -n 100000 -o r$r.rec; done
	trace-merge -o u.cfg r*.rec
	same_as u.cfg r*.rec
	trace-merge -o h1.cfg r[0-7].rec
	trace-merge -o h2.cfg r1[0-5].rec r[89].rec
	trace-merge -o u2.cfg h1.cfg h2.cfg
	same_as u2.cfg r[0-7].rec r1[0-5].rec r[89].rec
	TANGRAM_UNIFY=0 trace-merge -o p.cfg r*.rec
	[ "$(stat -c %s u.cfg)" -lt "$(stat -c %s p.cfg)" ]
}

# drop_locals IN OUT: every stream of IN without local values
drop_locals() {
	python3 - "$1" "$2" "$(section "$1" STREAMS)" <<'PY'
import struct, sys, zlib
def uv(b, o):
    r = s = 0
    while True:
        c = b[o]; o += 1; r |= (c & 127) << s; s += 7
        if c < 128: return r, o
d = bytearray(open(sys.argv[1], 'rb').read()); at = int(sys.argv[3])
t, f, st, raw, crc = struct.unpack('<HHQQI', d[at:at + 24])
pay = zlib.decompress(d[at + 24:at + 24 + st]) if f & 1 else bytes(d[at + 24:at + 24 + st])
n, o = uv(pay, 0); k, o = uv(pay, o)
out = bytearray(pay[:o])
for i in range(k):
    ln, q = uv(pay, o)
    col = pay[q:q + ln] if i != 19 else bytes(n)	# column 19: local
    out += bytes([len(col)]) if len(col) < 128 else bytes([len(col) & 127 | 128, len(col) >> 7])
    out += col; o = q + ln
z = zlib.compress(bytes(out))
d[at:at + 24 + st] = struct.pack('<HHQQI', t, 1, len(z), len(out), zlib.crc32(z)) + z
open(sys.argv[2], 'wb').write(d)
PY
}

@test "unified streams: a signature that names a local value the stream lacks is refused with one line" {
	for r in 0 1 2; do "$GEN" -p mpi -s $((r + 3)) -r $r -w 3 -n 2000 -o r$r.rec; done
	trace-merge -o u.cfg r0.rec r1.rec r2.rec
	TANGRAM_UNIFY=0 trace-merge -o p.cfg r0.rec r1.rec r2.rec
	drop_locals p.cfg p0.cfg
	run -0 trace-decode p0.cfg
	drop_locals u.cfg u0.cfg
	run -2 --separate-stderr trace-decode u0.cfg
	[[ "$stderr" == "trace-decode: u0.cfg: corrupt trace: stream "*"does not decode here"* ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
	# version 4: offsets (LOFF), array elements and tagged sizes that
	# name local values the streams no longer have
	drop_locals "$F/v4-mpi.cfg" v0.cfg
	run -2 --separate-stderr trace-decode v0.cfg
	[[ "$stderr" == "trace-decode: v0.cfg: corrupt trace: stream "*"does not decode here"* ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
}

# string_locals FILE.cfg OUT.cfg [HEX]: FILE with the STREAMS column that
# says which local values are strings (the 24th) left out, or, given HEX,
# each stream's entry in it those bytes
string_locals() {
	python3 - "$1" "$2" "$(section "$1" STREAMS)" "${3:-}" <<'PY'
import struct, sys, zlib
def uv(b, o):
    r = s = 0
    while True:
        c = b[o]; o += 1; r |= (c & 127) << s; s += 7
        if c < 128: return r, o
def var(x):
    out = bytearray()
    while True:
        if x < 128: return bytes(out + bytes([x]))
        out.append(x & 127 | 128); x >>= 7
d = bytearray(open(sys.argv[1], 'rb').read()); at = int(sys.argv[3])
t, f, st, raw, crc = struct.unpack('<HHQQI', d[at:at + 24])
pay = zlib.decompress(d[at + 24:at + 24 + st]) if f & 1 else bytes(d[at + 24:at + 24 + st])
n, o = uv(pay, 0); k, o = uv(pay, o)
assert k == 24
out = bytearray(var(n) + var(k if sys.argv[4] else 23))
for i in range(k):
    ln, q = uv(pay, o)
    col = pay[q:q + ln] if i != 23 else bytes.fromhex(sys.argv[4]) * n
    if i != 23 or sys.argv[4]:
        out += var(len(col)) + col
    o = q + ln
z = zlib.compress(bytes(out))
d[at:at + 24 + st] = struct.pack('<HHQQI', t, 1, len(z), len(out), zlib.crc32(z)) + z
open(sys.argv[2], 'wb').write(d)
PY
}

@test "string local values: a damaged list of them is refused with one line" {
	trace-merge -q -o m.cfg "$F/v10-mpi.cfg"
	string_locals m.cfg same.cfg 00
	# no local value a string: the names the signatures take from them
	run -2 --separate-stderr trace-decode same.cfg
	[[ "$stderr" == "trace-decode: same.cfg: corrupt trace: stream "*"does not decode here"* ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
	string_locals m.cfg less.cfg
	run -2 --separate-stderr trace-decode less.cfg
	[[ "$stderr" == "trace-decode: less.cfg: corrupt trace: stream "*"does not decode here"* ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
	at=$(section m.cfg STREAMS)
	# an index past the stream's local values
	string_locals m.cfg far.cfg 01c801
	run -2 --separate-stderr trace-decode far.cfg
	[[ "$stderr" == "trace-decode: far.cfg: corrupt section STREAMS at byte $at (bad string local value index at payload byte "*")" ]]
	run -2 --separate-stderr trace-merge -o x.cfg far.cfg
	[[ "$stderr" == "trace-merge: far.cfg: corrupt section STREAMS at byte $at (bad string local value index at payload byte "*")" ]]
	# the same index twice
	string_locals m.cfg twice.cfg 020000
	run -2 --separate-stderr trace-decode twice.cfg
	[[ "$stderr" == "trace-decode: twice.cfg: corrupt section STREAMS at byte $at (bad string local value index at payload byte "*")" ]]
}

@test "a damaged .cfg among good inputs: the others are decoded" {
	trace-compress -t lossless "$F/good.rec" > g.cfg
	head -c 100 g.cfg > bad.cfg
	run -2 --separate-stderr trace-decode g.cfg bad.cfg "$F/good.rec"
	[ "${#lines[@]}" -eq 34 ]
	[[ "$stderr" == "trace-decode: bad.cfg: truncated "* ]]
}

@test "every truncation and many corruptions are rejected cleanly" {
	for r in 0 1; do "$GEN" -p mpi -s $((r + 1)) -r $r -w 2 -n 300 -o r$r.rec; done
	for t in hist cfg; do
	trace-merge -t $t -m 10 r0.rec r1.rec > g.cfg
	run -0 python3 - g.cfg <<'EOF'
import random, struct, subprocess, sys, zlib
d = open(sys.argv[1], 'rb').read()
random.seed(1)
def check(data, what):
    open('fz.cfg', 'wb').write(data)
    r = subprocess.run(['trace-decode', 'fz.cfg'], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, timeout=30)
    err = r.stderr.decode(errors='replace')
    ok = r.returncode in (0, 2) and 'Sanitizer' not in err and 'runtime error' not in err
    assert ok and (r.returncode == 0 or len(err.splitlines()) == 1), (what, r.returncode, err)
for k in range(0, len(d), max(1, len(d) // 150)):
    check(d[:k], 'cut at %d' % k)
secs, p = [], 12
while p < len(d):
    t, f, st, raw, crc = struct.unpack('<HHQQI', d[p:p + 24])
    if t:
        secs.append((p, t, f, st))
    p += 24 + st
for i in range(150):
    p, t, f, st = random.choice(secs)
    pay = bytearray(zlib.decompress(d[p + 24:p + 24 + st]) if f & 1 else d[p + 24:p + 24 + st])
    for _ in range(random.randint(1, 3)):
        pay[random.randrange(len(pay))] = random.randrange(256)
    z = zlib.compress(bytes(pay)) if f & 1 else bytes(pay)
    hdr = struct.pack('<HHQQI', t, f, len(z), len(pay), zlib.crc32(z))
    check(d[:p] + hdr + z + d[p + 24 + st:], 'section %d, try %d' % (t, i))
EOF
	done
}

valgrind_ok() {
	command -v valgrind > /dev/null || skip "valgrind is not installed"
	[ "$TG_BUILD" = build/opt ] || skip "valgrind runs on the unsanitized build"
	! grep -q __asan_init "$(command -v trace-decode)" ||
		skip "bin/trace-decode is the sanitized build"
}

@test "valgrind: compress, merge, decode and damaged .cfg, no memory error" {
	valgrind_ok
	"$GEN" -p mpi -s 2 -r 0 -w 2 -n 300 -o a.rec
	"$GEN" -p mpi -s 3 -r 1 -w 2 -n 300 -o b.rec
	run -0 --separate-stderr valgrind -q --error-exitcode=99 --leak-check=full \
		trace-compress -t hist -m 5 -o a.cfg a.rec
	[ -z "$stderr" ]
	run -0 --separate-stderr valgrind -q --error-exitcode=99 --leak-check=full \
		trace-merge -t binned -o m.cfg a.cfg b.rec
	[ -z "$stderr" ]
	run -0 --separate-stderr valgrind -q --error-exitcode=99 --leak-check=full \
		trace-decode m.cfg
	[ -z "$stderr" ]
	run -0 --separate-stderr valgrind -q --error-exitcode=99 --leak-check=full \
		trace-merge -t cfg -o m2.cfg a.cfg b.rec
	[ -z "$stderr" ]
	run -0 --separate-stderr valgrind -q --error-exitcode=99 --leak-check=full \
		trace-decode m2.cfg
	[ -z "$stderr" ]
	corrupt m.cfg CST c.cfg
	head -c 300 m.cfg > t.cfg
	for f in c.cfg t.cfg; do
		run -2 --separate-stderr valgrind -q --error-exitcode=99 --leak-check=full \
			trace-decode $f
		[ "${#stderr_lines[@]}" -eq 1 ]
	done
}

# ---- trace-merge --mpi --------------------------------------------------------------
# The merge over MPI ranks (trace-merge-mpi, which trace-merge --mpi runs)
# writes the file the serial merge writes, byte for byte, on any number of
# ranks; a bad input exits 2 with one line and never hangs.

need_mpirun() {
	command -v mpirun.mpich >/dev/null || skip "mpirun.mpich is missing"
	command -v trace-merge-mpi >/dev/null || skip "trace-merge-mpi is not built"
}

# mpimerge NP ARGS...: trace-merge --mpi ARGS on NP ranks, killed after 60 s
mpimerge() {
	local np=$1
	shift
	timeout 60 mpirun.mpich -n "$np" trace-merge --mpi "$@"
}

# gen8: the streams of 8 ranks of one run, r0.rec to r7.rec
gen8() {
	local r
	for r in 0 1 2 3 4 5 6 7; do
		"$GEN" -p mpi -s $((r + 1)) -r $r -w 8 -n 2000 -o r$r.rec
	done
}

@test "trace-merge-mpi -h: trace-merge's usage, word for word the SYNOPSIS of trace-merge-mpi(1) after mpirun" {
	need_mpirun
	command -v mandoc >/dev/null || skip "mandoc is missing (make deps installs it)"
	run -0 --separate-stderr timeout 60 trace-merge-mpi -h
	[ "${lines[0]}" = "$MUSAGE" ]
	syn=$(mandoc -T utf8 "$TG_TOP/man/trace-merge-mpi.1" | col -b |
		sed -n '/^SYNOPSIS/,/^DESCRIPTION/{/^[A-Z]/d;p}' | tr -s ' \t\n' '   ')
	use=$(tr -s ' \n' '  ' <<< "${output#usage: }")
	[ "${syn% }" = " mpirun.mpich -n P ${use% }" ] ||
		{ echo "SYNOPSIS: $syn"; false; }
}

@test "trace-merge links no MPI; trace-merge-mpi does" {
	need_mpirun
	[ -z "$(ldd "$(command -v trace-merge)" | grep libmpi)" ]
	ldd "$(command -v trace-merge-mpi)" | grep -q 'libmpi'
}

@test "--mpi on 1 to 4 ranks writes the serial merge, byte for byte" {
	need_mpirun
	gen8
	for t in aggregate lossless hist; do
		trace-merge -t $t -o s.cfg r?.rec
		for np in 1 2 3 4; do
			rm -f p.cfg
			run -0 --separate-stderr mpimerge $np -t $t r?.rec -o p.cfg
			[ -z "$stderr" ]
			cmp <(trace-decode p.cfg) <(trace-decode s.cfg)
			cmp p.cfg s.cfg
		done
	done
	same_as p.cfg r?.rec
	# to standard output, through mpirun
	mpimerge 3 r?.rec > o.cfg
	trace-merge r?.rec | cmp - o.cfg
}

@test "--mpi merges a traced MPI program's streams as the serial merge does" {
	need_mpi
	need_mpirun
	trace-run -o t -l mpi -- mpirun.mpich -n 8 "$B/stencil" 20 > /dev/null
	trace-merge -o s.cfg t/rank-*.rec
	for np in 2 4; do
		run -0 --separate-stderr mpimerge $np -o p.cfg t/rank-*.rec
		[ -z "$stderr" ]
		cmp p.cfg s.cfg
	done
	same_as p.cfg t/rank-*.rec
	[ "$(meta p.cfg ranks)" = 0-7 ]
}

@test "--mpi: .rec and .cfg inputs mix, merged traces among them" {
	need_mpirun
	gen8
	trace-compress -t binned r1.rec > r1.cfg
	trace-compress -t lossless r2.rec > r2.cfg
	trace-merge -t lossless r3.rec r4.rec > r34.cfg
	trace-merge -t hist r6.rec r7.rec > r67.cfg
	set -- r0.rec r1.cfg r2.cfg r34.cfg r5.rec r67.cfg
	trace-merge -t hist -o s.cfg "$@"
	for np in 2 3 4; do
		mpimerge $np -t hist -o p.cfg "$@"
		cmp p.cfg s.cfg
	done
	same_as p.cfg r?.rec
	cmp <(trace-decode --rank 2 p.cfg) <(trace-decode r2.rec)
}

@test "--mpi on more ranks than inputs: the ranks without any add nothing" {
	need_mpirun
	gen8
	trace-merge -o s.cfg r0.rec r1.rec
	run -0 --separate-stderr mpimerge 4 -o p.cfg r0.rec r1.rec
	[ -z "$stderr" ]
	cmp p.cfg s.cfg
	trace-merge -t lossless -o s1.cfg r5.rec
	mpimerge 3 -t lossless -o p1.cfg r5.rec
	cmp p1.cfg s1.cfg
	exactly p1.cfg r5.rec
}

@test "--mpi takes the serial options: -e -k -m -q, and -f for other runs" {
	need_mpirun
	gen8
	trace-merge -t hist -e 0.05 -k 3 -m 20 -q -o s.cfg r?.rec
	mpimerge 3 -t hist -e 0.05 -k 3 -m 20 -q -o p.cfg r?.rec
	cmp p.cfg s.cfg
	trace-merge -t binned -e 0.2 -o s.cfg r?.rec
	mpimerge 2 -t binned -e 0.2 -o p.cfg r?.rec
	cmp p.cfg s.cfg
	# the same rank twice is another run: refused at rank 0, with names
	run -2 --separate-stderr mpimerge 2 -o x.cfg r0.rec r1.rec r0.rec
	[ -z "$output" ]
	[ "$stderr" = "trace-merge: not one run: 'r0.rec' and 'r0.rec' both hold rank 0 (-f merges them anyway)" ]
	[ ! -e x.cfg ]
	trace-merge -f -o s.cfg r0.rec r1.rec r0.rec
	run -0 --separate-stderr mpimerge 2 -f -o x.cfg r0.rec r1.rec r0.rec
	[ -z "$stderr" ]
	cmp x.cfg s.cfg
}

@test "--mpi: a missing or damaged input on any rank: one line, exit 2, the rest merged" {
	need_mpirun
	gen8
	# missing, on the last of 3 ranks; as the serial merge, the others merged
	trace-merge -o s.cfg r0.rec r1.rec r2.rec nosuch 2> /dev/null || true
	run -2 --separate-stderr mpimerge 3 -o p.cfg r0.rec r1.rec r2.rec nosuch
	[ -z "$output" ]
	[ "$stderr" = "trace-merge: cannot open 'nosuch': No such file or directory" ]
	cmp p.cfg s.cfg
	# a truncated stream on rank 1 of 2
	run -2 --separate-stderr mpimerge 2 -o p.cfg r0.rec r1.rec "$F/truncated.rec" r3.rec
	[ "$stderr" = "trace-merge: $F/truncated.rec: truncated frame at byte 228" ]
	# a corrupt compressed trace on rank 3 of 4
	trace-merge -t lossless -o m.cfg r4.rec r5.rec
	corrupt m.cfg CST c.cfg
	at=$(section c.cfg CST)
	run -2 --separate-stderr mpimerge 4 -o p.cfg r0.rec r1.rec r2.rec c.cfg
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == "trace-merge: c.cfg: corrupt section CST at byte $at ("* ]]
	same_as p.cfg r0.rec r1.rec r2.rec
}

@test "--mpi without mpirun is a job of one rank" {
	need_mpirun
	gen8
	trace-merge -o s.cfg r?.rec
	run -0 --separate-stderr trace-merge --mpi -o p.cfg r?.rec
	[ -z "$stderr" ]
	cmp p.cfg s.cfg
}

@test "--mpi: bad usage is reported once; standard input is refused" {
	need_mpirun
	gen8
	run -2 --separate-stderr mpimerge 3 -t bogus r0.rec
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == "trace-merge: option -t: unknown timing 'bogus' ("* ]]
	run -2 --separate-stderr mpimerge 2
	[ "${stderr_lines[0]}" = "$MUSAGE" ]
	[ "${#stderr_lines[@]}" -eq 2 ]
	run -0 --separate-stderr mpimerge 2 -h
	[ "${lines[0]}" = "$MUSAGE" ]
	[ "${#lines[@]}" -eq 2 ]
	run -2 --separate-stderr trace-merge --mpi -o x.cfg - < r0.rec
	[ "$stderr" = "trace-merge: --mpi cannot read standard input: name files" ]
}

@test "--mpi without trace-merge-mpi: one line, exit 2; found in PATH" {
	need_mpirun
	gen8
	mkdir lone
	cp "$(command -v trace-merge)" lone/
	run -2 --separate-stderr env PATH=/usr/bin:/bin lone/trace-merge --mpi -o x.cfg r0.rec
	[ -z "$output" ]
	[ "$stderr" = "trace-merge: --mpi: trace-merge-mpi is not installed (not next to trace-merge, nor in PATH)" ]
	[ ! -e x.cfg ]
	# not next to it, but in PATH
	helper=$(dirname "$(command -v trace-merge-mpi)")
	run -0 --separate-stderr env PATH="$helper:/usr/bin:/bin" lone/trace-merge --mpi -o x.cfg r0.rec
	[ -z "$stderr" ]
	trace-merge -o s.cfg r0.rec
	cmp x.cfg s.cfg
}

@test "--mpi started by another MPI's mpirun (each process alone) is refused" {
	need_mpirun
	gen8
	# Open MPI's mpirun starts an MPICH program as one job per process
	OMPI_COMM_WORLD_SIZE=4 OMPI_COMM_WORLD_RANK=0 \
		run -2 --separate-stderr trace-merge --mpi -o x.cfg r?.rec
	[ "$stderr" = "trace-merge: --mpi: started as one of 4 processes, but MPI sees 1: another MPI's mpirun? (use mpirun.mpich)" ]
	[ ! -e x.cfg ]
	OMPI_COMM_WORLD_SIZE=4 OMPI_COMM_WORLD_RANK=2 \
		run -2 --separate-stderr trace-merge --mpi -o x.cfg r?.rec
	[ -z "$stderr" ]
}
