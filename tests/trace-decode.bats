#!/usr/bin/env bats
# trace-decode: argument checks first, then behaviour on the fixtures of
# tests/fixtures/decode (good.txt is the golden text of good.rec) and on
# trace-gen output.  Damaged inputs: the records before the damage, one
# line on stderr naming the file and the byte, exit 2, never a crash.

bats_require_minimum_version 1.5.0

setup() {
	F=$TG_TOP/tests/fixtures/decode
	GEN=$TG_TOP/$TG_BUILD/helpers/trace-gen
	USAGE='usage: trace-decode [-hjt] [-l layers] [-r ranks] [file ...]'
	cd "$BATS_TEST_TMPDIR"
}

# ---- arguments ----------------------------------------------------------

@test "--bogus" { run -2 --separate-stderr trace-decode --bogus; [ -z "$output" ]; [ "${stderr_lines[-1]}" = "$USAGE" ]; }
@test "-x" { run -2 --separate-stderr trace-decode -x; [ -z "$output" ]; [ "${stderr_lines[-1]}" = "$USAGE" ]; }
@test "-l without its argument" { run -2 --separate-stderr trace-decode -l; [ -z "$output" ]; [ "${stderr_lines[-1]}" = "$USAGE" ]; }
@test "-l bogus" { run -2 --separate-stderr trace-decode -l bogus "$F/good.rec"; [ -z "$output" ]; [ "$stderr" = "trace-decode: option -l: unknown layer 'bogus' (posix, stdio, mpi, mpiio, hdf5)" ]; }
@test "-h" { run -0 --separate-stderr trace-decode -h; [ "$output" = "$USAGE" ]; [ -z "$stderr" ]; }
@test "--help" { run -0 --separate-stderr trace-decode --help; [ "$output" = "$USAGE" ]; [ -z "$stderr" ]; }
@test "missing file" { run -2 --separate-stderr trace-decode x; [ -z "$output" ]; [ "$stderr" = "trace-decode: cannot open 'x': No such file or directory" ]; }

@test "-r of a rank no stream has: one line, exit 2, nothing printed" {
	run -2 --separate-stderr trace-decode -r 9 -r 3 "$F/good.rec"
	[ -z "$output" ] && [ "$stderr" = "trace-decode: option -r: no stream of the input has a rank in '9,3'" ]
}

@test "a missing file does not stop the others" {
	run -2 --separate-stderr trace-decode x "$F/good.rec"
	[ "$output" = "$(cat "$F/good.txt")" ]
	[ "$stderr" = "trace-decode: cannot open 'x': No such file or directory" ]
}

# ---- good input ---------------------------------------------------------

@test "good.rec decodes to its golden text" {
	run -0 --separate-stderr trace-decode "$F/good.rec"
	[ "$output" = "$(cat "$F/good.txt")" ]
	[ -z "$stderr" ]
	[ "${#lines[@]}" -eq 17 ]
}

@test "good.rec: one #proc line, 14 calls, one #rank, one #excluded" {
	run -0 --separate-stderr trace-decode "$F/good.rec"
	[ "$(printf '%s\n' "${lines[@]}" | grep -c '^#proc')" -eq 1 ]
	[ "$(printf '%s\n' "${lines[@]}" | grep -vc '^#')" -eq 14 ]
	[ "$(printf '%s\n' "${lines[@]}" | grep -c '^#rank')" -eq 1 ]
	[ "$(printf '%s\n' "${lines[@]}" | grep -c '^#excluded')" -eq 1 ]
}

@test "header-only.rec: the #proc line only" {
	run -0 --separate-stderr trace-decode "$F/header-only.rec"
	[ "$output" = "$(head -n 1 "$F/good.txt")" ]
	[ -z "$stderr" ]
}

@test "standard input when no file is named" {
	run -0 --separate-stderr trace-decode < "$F/good.rec"
	[ "$output" = "$(cat "$F/good.txt")" ]
	[ -z "$stderr" ]
}

@test "standard input as -" {
	run -0 --separate-stderr trace-decode - < "$F/good.rec"
	[ "$output" = "$(cat "$F/good.txt")" ]
	[ -z "$stderr" ]
}

@test "a fifo is read once (process substitution)" {
	run -0 --separate-stderr trace-decode <(cat "$F/good.rec")
	[ "$output" = "$(cat "$F/good.txt")" ]
	[ -z "$stderr" ]
}

@test "a file twice prints it twice" {
	run -0 --separate-stderr trace-decode "$F/good.rec" "$F/good.rec"
	[ "${#lines[@]}" -eq 34 ]
	[ -z "$stderr" ]
}

# ---- damaged input -------------------------------------------------------

@test "truncated.rec: 6 records, then truncated frame at byte 228" {
	run -2 --separate-stderr trace-decode "$F/truncated.rec"
	[ "$output" = "$(head -n 7 "$F/good.txt")" ]
	[ "$stderr" = "trace-decode: $F/truncated.rec: truncated frame at byte 228" ]
}

@test "badlen.rec: 9 records, then corrupt frame length at byte 342" {
	run -2 --separate-stderr trace-decode "$F/badlen.rec"
	[ "$output" = "$(head -n 10 "$F/good.txt")" ]
	[ "$stderr" = "trace-decode: $F/badlen.rec: corrupt frame length at byte 342" ]
}

@test "unknown-badlen.rec: a record of an unknown function, then damage: one line, exit 2" {
	run -2 --separate-stderr trace-decode "$F/unknown-badlen.rec"
	[ "$stderr" = "trace-decode: $F/unknown-badlen.rec: corrupt frame length at byte 342" ]
	run -2 --separate-stderr trace-compress -o k.cfg "$F/unknown-badlen.rec"
	[ "$stderr" = "trace-compress: $F/unknown-badlen.rec: corrupt frame length at byte 342" ]
	run -2 --separate-stderr trace-merge "$F/unknown-badlen.rec"
	[ "${#stderr_lines[@]}" -eq 1 ]
}

@test "nonewline.rec: 3 records, then no closing newline at byte 164" {
	run -2 --separate-stderr trace-decode "$F/nonewline.rec"
	[ "$output" = "$(head -n 4 "$F/good.txt")" ]
	[ "$stderr" = "trace-decode: $F/nonewline.rec: corrupt frame (no closing newline) at byte 164" ]
}

@test "badmagic.rec: not a Tangram record stream" {
	run -2 --separate-stderr trace-decode "$F/badmagic.rec"
	[ -z "$output" ]
	[ "$stderr" = "trace-decode: $F/badmagic.rec: not a Tangram record stream (bad magic)" ]
}

@test "empty.rec: not a Tangram record stream" {
	run -2 --separate-stderr trace-decode "$F/empty.rec"
	[ -z "$output" ]
	[ "$stderr" = "trace-decode: $F/empty.rec: not a Tangram record stream (bad magic)" ]
}

@test "damage on standard input is reported as standard input" {
	run -2 --separate-stderr trace-decode < "$F/truncated.rec"
	[ "$output" = "$(head -n 7 "$F/good.txt")" ]
	[ "$stderr" = "trace-decode: standard input: truncated frame at byte 228" ]
}

@test "a damaged file among good ones: the others are decoded whole" {
	run -2 --separate-stderr trace-decode "$F/good.rec" "$F/badlen.rec" "$F/good.rec"
	[ "${#lines[@]}" -eq $((17 + 10 + 17)) ]
	[ "${lines[17]}" = "${lines[0]}" ]
	[ "$stderr" = "trace-decode: $F/badlen.rec: corrupt frame length at byte 342" ]
}

@test "a directory: one error line, exit 2" {
	run -2 --separate-stderr trace-decode "$BATS_TEST_TMPDIR"
	[ -z "$output" ]
	[ "$stderr" = "trace-decode: $BATS_TEST_TMPDIR: Is a directory" ]
}

@test "a full disk is an error, not a silent truncation" {
	run -2 --separate-stderr bash -c 'trace-decode "$1" > /dev/full' - "$F/good.rec"
	[ -z "$output" ]
	[ "$stderr" = "trace-decode: write error on standard output: No space left on device" ]
}

# ---- JSON and layers -------------------------------------------------------

@test "--json: valid JSON on every line, as many lines as the text" {
	run -0 --separate-stderr trace-decode --json "$F/good.rec"
	[ -z "$stderr" ]
	[ "${#lines[@]}" -eq 17 ]
	run -0 python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin]' <<< "$output"
}

@test "-j is --json" {
	run -0 --separate-stderr trace-decode --json "$F/good.rec"
	json=$output
	run -0 --separate-stderr trace-decode -j "$F/good.rec"
	[ "$output" = "$json" ]
}

@test "--json: the fields of a call" {
	run -0 --separate-stderr trace-decode --json "$F/good.rec"
	run -0 python3 -c '
import json, sys
recs = [json.loads(l) for l in sys.stdin]
assert recs[0]["def"] == "proc" and recs[0]["argv"] == ["./app", "-n", "2"], recs[0]
w = [r for r in recs if r.get("func") == "writev"][0]
assert w["args"] == {"fd": 3, "iov": [100, 200], "iovcnt": 2}, w
assert w["ret"] == 300 and w["layer"] == "posix" and w["tstart_ns"] == 11000, w
o = [r for r in recs if r.get("func") == "open"][1]
assert o["errno"] == "ENOENT" and o["ret"] == -1, o
n = [r for r in recs if r.get("func") == "write"][0]
assert n["depth"] == 1 and n["parent"] == 9, n
' <<< "$output"
}

@test "--json on damaged input: valid JSON up to the damage" {
	run -2 --separate-stderr trace-decode --json "$F/truncated.rec"
	[ "${#lines[@]}" -eq 7 ]
	[ "$stderr" = "trace-decode: $F/truncated.rec: truncated frame at byte 228" ]
	run -0 python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin]' <<< "$output"
}

@test "-l stdio keeps only stdio calls (and the # lines)" {
	run -0 --separate-stderr trace-decode -l stdio "$F/good.rec"
	[ -z "$stderr" ]
	[ "$output" = "$(awk -F'\t' '/^#/ || $7 == "stdio"' "$F/good.txt")" ]
	[ "$(printf '%s\n' "${lines[@]}" | grep -vc '^#')" -eq 3 ]
}

@test "-l posix,stdio keeps everything" {
	run -0 --separate-stderr trace-decode -l posix,stdio "$F/good.rec"
	[ "$output" = "$(cat "$F/good.txt")" ]
}

@test "-l mpi keeps no call of good.rec" {
	run -0 --separate-stderr trace-decode -l mpi "$F/good.rec"
	[ "$(printf '%s\n' "${lines[@]}" | grep -vc '^#')" -eq 0 ]
}

# ---- trace-gen output -------------------------------------------------------

@test "trace-gen -s 1 -n 1000 decodes to exactly 1000 call lines" {
	"$GEN" -s 1 -n 1000 -o g.rec
	run -0 --separate-stderr trace-decode g.rec
	[ -z "$stderr" ]
	[ "$(printf '%s\n' "${lines[@]}" | grep -vc '^#')" -eq 1000 ]
}

@test "trace-gen with 4 threads and a rank: exactly -n calls, valid JSON" {
	"$GEN" -s 7 -n 5000 -t 4 -r 3 -o g.rec
	run -0 --separate-stderr trace-decode g.rec
	[ -z "$stderr" ]
	[ "$(printf '%s\n' "${lines[@]}" | grep -vc '^#')" -eq 5000 ]
	[ "$(printf '%s\n' "${lines[@]}" | grep -v '^#' | cut -f2 | sort -u | tr '\n' ' ')" = "0 1 2 3 " ]
	run -0 --separate-stderr trace-decode --json g.rec
	run -0 python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin]' <<< "$output"
}

@test "trace-gen is deterministic: same seed, same bytes; other seed, others" {
	"$GEN" -s 5 -n 2000 -t 2 -o a.rec
	"$GEN" -s 5 -n 2000 -t 2 > b.rec
	"$GEN" -s 6 -n 2000 -t 2 -o c.rec
	cmp a.rec b.rec
	! cmp -s a.rec c.rec || false
}

@test "two trace-gen files decoded together share a time axis" {
	"$GEN" -s 1 -n 200 -r 0 -w 2 -o a.rec
	"$GEN" -s 2 -n 200 -r 1 -w 2 -o b.rec
	run -0 --separate-stderr trace-decode a.rec
	printf '%s\n' "$output" > a.txt
	run -0 --separate-stderr trace-decode b.rec
	printf '%s\n' "$output" > b.txt
	run -0 --separate-stderr trace-decode a.rec b.rec
	printf '%s\n' "$output" > ab.txt
	[ -z "$stderr" ]
	# alone, each file starts at its own zero; together, at the earlier one
	run -0 python3 - a.txt b.txt ab.txt <<'EOF'
import sys
def parse(lines):
    base = int(lines[0].split("clock_base=")[1].split("\t")[0])
    ns = lambda t: int(t.replace(".", ""))
    return base, [(ns(f[3]), ns(f[4])) for f in (l.split("\t") for l in lines[1:]) if not f[0].startswith("#")]
a, b, ab = (open(p).read().splitlines() for p in sys.argv[1:])
(ba, ta), (bb, tb) = parse(a), parse(b)
assert ba != bb, "the two files should have different clock bases"
zero = min(ba, bb)
(_, tab_a), (_, tab_b) = parse(ab[:len(a)]), parse(ab[len(a):])
for alone, together, base in ((ta, tab_a, ba), (tb, tab_b, bb)):
    shift = base - zero
    assert len(alone) == 200 and together == [(s + shift, e + shift) for s, e in alone], base
EOF
}

# ---- under valgrind ---------------------------------------------------------

valgrind_ok() {
	command -v valgrind > /dev/null || skip "valgrind is not installed"
	[ "$TG_BUILD" = build/opt ] || skip "valgrind runs on the unsanitized build"
	! grep -q __asan_init "$(command -v trace-decode)" ||
		skip "bin/trace-decode is the sanitized build"
}

@test "valgrind: damaged inputs exit 2, no memory error" {
	valgrind_ok
	for f in truncated badlen nonewline badmagic empty; do
		run -2 --separate-stderr valgrind -q --error-exitcode=99 --leak-check=full \
			trace-decode "$F/$f.rec"
		[ "${#stderr_lines[@]}" -eq 1 ]
	done
}

@test "valgrind: good.rec and --json exit 0, no memory error" {
	valgrind_ok
	run -0 --separate-stderr valgrind -q --error-exitcode=99 --leak-check=full \
		trace-decode "$F/good.rec"
	[ -z "$stderr" ]
	run -0 --separate-stderr valgrind -q --error-exitcode=99 --leak-check=full \
		trace-decode --json -l stdio "$F/good.rec"
	[ -z "$stderr" ]
}

@test "decoding ahead in a second thread prints what one thread prints, errors in place" {
	"$GEN" -s 4 -n 30000 -o g.rec
	"$GEN" -p mpi -s 5 -r 1 -w 2 -n 3000 -o m.rec
	trace-merge -q -t lossless -o g.cfg g.rec
	head -c 100000 g.rec > cut.rec
	for args in "g.rec" "g.cfg" "-j m.rec g.cfg" "g.rec cut.rec m.rec nowhere g.cfg" "-t -l posix g.rec"; do
		# shellcheck disable=SC2086
		trace-decode $args > par.out 2> par.err && p=0 || p=$?
		# shellcheck disable=SC2086
		TG_DECODE_SERIAL=1 trace-decode $args > ser.out 2> ser.err && q=0 || q=$?
		[ "$p" = "$q" ]
		cmp par.out ser.out
		cmp par.err ser.err
	done
	# the error comes after the records before the damage, on both paths
	run -2 --separate-stderr trace-decode g.rec cut.rec m.rec
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ "$(grep -c '^#proc' <<< "$output")" -eq 3 ]
}

# A schema only grows at its end: a record an older tracer wrote ends
# before the arguments appended since, and they read as absent (-1).
@test "a stream written before arguments were appended to a schema decodes whole, those arguments -1" {
	run -0 --separate-stderr trace-decode -l mpiio "$TG_TOP/tests/fixtures/decode/ordered-old.rec"
	[ -z "$stderr" ]
	grep -q $'\tMPI_File_write_ordered\t0\t.*\tshared_after=38\tshared_before=-1$' <<<"$output"
	grep -q $'\tMPI_File_write_ordered_begin\t0\t.*\tshared_after=-1\tshared_before=-1$' <<<"$output"
	[ "$(grep -c $'\tMPI_File_write_shared\t' <<<"$output")" -eq 3 ]
	# compressed by the version 4 writer: the same calls, the same values
	local rec=$output
	run -0 --separate-stderr trace-decode -l mpiio "$TG_TOP/tests/fixtures/decode/ordered-old-v4.cfg"
	[ -z "$stderr" ]
	diff <(grep -v '^#' <<<"$rec" | cut -f1-3,6-) <(grep -v '^#' <<<"$output" | cut -f1-3,6-)
	# and merged by this version, then read back
	run -0 trace-merge -q -o m.cfg "$TG_TOP/tests/fixtures/decode/ordered-old-v4.cfg"
	[ "$(od -An -tu1 -j8 -N2 m.cfg | tr -s ' ')" = " 13 0" ]
	run -0 --separate-stderr trace-decode -l mpiio m.cfg
	diff <(grep -v '^#' <<<"$rec" | cut -f1-3,6-) <(grep -v '^#' <<<"$output" | cut -f1-3,6-)
}

# lines-v5.cfg: tests/apps/lines traced and merged by the version 5
# writer, before fputs and fgets recorded their length (appended6)
@test "a version 5 .cfg from before fputs and fgets had a length: read with len=-1, unplaced, merged into version 13" {
	local f=$TG_TOP/tests/fixtures/decode/lines-v5.cfg
	run -0 --separate-stderr trace-decode "$f"
	[ -z "$stderr" ]
	[ "$(grep -c $'\tfputs\t1\ts=b[0-9]*\tstream=s3\tlen=-1\theld=-1$' <<<"$output")" -eq 3 ]
	[ "$(grep -c $'\tfgets\t.*\tlen=-1' <<<"$output")" -eq 3 ]
	local rec=$output
	printf '%s\n' "$output" > text
	run -0 overlap-find -a text
	grep -q $'^#unplaced\t.*\tunplaced=6$' <<<"$output"
	run -0 trace-merge -q -o m.cfg "$f"
	[ "$(od -An -tu1 -j8 -N2 m.cfg | tr -s ' ')" = " 13 0" ]
	run -0 --separate-stderr trace-decode m.cfg
	diff <(grep -v '^#' <<<"$rec" | cut -f1-3,6-) <(grep -v '^#' <<<"$output" | cut -f1-3,6-)
}

@test "-r on a .cfg of several runs: a later run's process without an MPI rank is no rank's" {
	command -v mpicc.mpich >/dev/null || skip "mpicc.mpich is missing"
	export UCX_TLS=${UCX_TLS:-sm,self} MPIR_CVAR_POLLS_BEFORE_YIELD=${MPIR_CVAR_POLLS_BEFORE_YIELD:-1}
	mpicc.mpich -O1 -o ring "$TG_TOP/tests/mpi/ring.c"
	timeout 120 trace-run -o t -- mpirun.mpich -n 2 ./ring >/dev/null
	timeout 60 trace-run -o t -- cat /etc/hostname >/dev/null
	timeout 60 trace-run -o t -- cat /etc/hostname >/dev/null
	ls t/pid-*.run3.rec
	trace-merge -t lossless t/*.rec > x.cfg
	for f in x.cfg t/*.rec; do
		if [ "$f" = x.cfg ] || [ "$f" = t/rank-1.rec ]; then
			run -0 --separate-stderr trace-decode -r 1 $f
		else	# rank 0, and the processes without a rank: none is rank 1
			run -2 --separate-stderr trace-decode -r 1 $f
			[ "$stderr" = "trace-decode: option -r: no stream of the input has a rank in '1'" ]
		fi
	done
	[ "$(trace-decode -r 1 x.cfg | grep -c '^#proc')" = 1 ]
	trace-decode -r 1 x.cfg | grep -q $'^#proc\trank=1\t'
	[ "$(trace-decode -r 0-9 x.cfg | grep -c '^#proc')" = 2 ]
	[ "$(trace-decode x.cfg | grep -c '^#proc')" = 4 ]
}
