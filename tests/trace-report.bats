#!/usr/bin/env bats
# trace-report: argument checks first, then the report of a real MPI-IO
# program (tests/mpi/mpiio.c, traced at 1 and 4 ranks) and of synthetic
# 64- and 1,024-rank traces (trace-gen -p mpi): well-formed, every chart
# there with real content, rendered by headless Chromium into a page that
# is not blank; conflicts from conflict-check --json; damaged input and
# unwritable output give one line and exit 2.

bats_require_minimum_version 1.5.0

CHARTS="chart-activity chart-ranks chart-offsets-0 chart-sizes chart-functions"

setup_file() {
	command -v mpicc.mpich >/dev/null ||
		skip "mpicc.mpich is missing (make deps installs MPICH)"
	export UCX_TLS=${UCX_TLS:-sm,self}
	export MPIR_CVAR_POLLS_BEFORE_YIELD=${MPIR_CVAR_POLLS_BEFORE_YIELD:-1}
	export D=$BATS_FILE_TMPDIR
	local gen=$TG_TOP/$TG_BUILD/helpers/trace-gen r
	mpicc.mpich -O2 -Wall -o "$D/mpiio" "$TG_TOP/tests/mpi/mpiio.c"
	(cd "$D" && timeout 120 trace-run -o t1 -- mpirun.mpich -n 1 ./mpiio >/dev/null &&
	 timeout 120 trace-run -o t4 -- mpirun.mpich -n 4 ./mpiio >/dev/null)
	mkdir -p "$D/g64" "$D/g1k"
	for r in $(seq 0 63); do
		"$gen" -p mpi -n 2000 -r "$r" -w 64 -s $((r + 1)) -o "$D/g64/rank-$r.rec"
	done
	seq 0 1023 | xargs -P 2 -I {} "$gen" -p mpi -n 200 -r {} -w 1024 -s {} -o "$D/g1k/rank-{}.rec"
}

setup() {
	F=$TG_TOP/tests/fixtures/decode
	USAGE='usage: trace-report [-h] [-c verdict.json] [-o report.html] [file ...]'
	cd "$BATS_TEST_TMPDIR"
}

# charts FILE ID...: each chart ID is an <svg> of FILE with at least 5
# drawn elements (a path, rect, text or line).
charts() {
	python3 - "$@" <<'EOF'
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
for cid in sys.argv[2:]:
    m = re.search(r'<svg[^>]*\bid="%s"[^>]*>(.*?)</svg>' % re.escape(cid), page, re.S)
    if not m:
        sys.exit("no chart %s" % cid)
    n = len(re.findall(r"<(path|rect|text|line)\b", m.group(1)))
    if n < 5:
        sys.exit("chart %s has %d elements" % (cid, n))
EOF
}

# colours PNG: the screenshot has more than a handful of colours and no
# colour covers 99 % of it (a blank or failed page is one colour).
colours() {
	python3 - "$1" <<'EOF'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        bpp = {2: 3, 6: 4}[ctype]
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw, stride, prev, counts = zlib.decompress(idat), w * bpp, None, {}
rows = []
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i] if prev else 0
        c = prev[i - bpp] if prev and i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
    for x in range(0, stride, bpp * 4):
        k = bytes(line[x:x + 3])
        counts[k] = counts.get(k, 0) + 1
total = sum(counts.values())
if len(counts) < 8 or max(counts.values()) > 0.99 * total:
    sys.exit("blank page: %d colours" % len(counts))
EOF
}

# render HTML: headless Chromium's DOM of the page into dom.html and a
# screenshot into shot.png.
render() {
	command -v chromium >/dev/null || skip "chromium is missing (make deps installs it)"
	timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$PWD/chr" \
		--dump-dom "file://$PWD/$1" > dom.html 2>/dev/null
	timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$PWD/chr" \
		--window-size=1000,2400 --screenshot="$PWD/shot.png" "file://$PWD/$1" \
		>/dev/null 2>&1
	[ -s dom.html ]
	[ -s shot.png ]
}

# wellformed FILE: XML-well-formed, and the HTML parser finds nothing
# wrong but the SVG tags it does not know.
wellformed() {
	xmllint --noout "$1"
	run xmllint --html --noout "$1"
	! printf '%s\n' "$output" | grep 'error' | grep -v 'Tag [a-z]* invalid' || false
}

# ---- arguments ------------------------------------------------------------

@test "--bogus" { run -2 --separate-stderr trace-report --bogus; [ -z "$output" ]; [ "${stderr_lines[-1]}" = "$USAGE" ]; }
@test "-o without its argument" { run -2 --separate-stderr trace-report -o; [ -z "$output" ]; [ "${stderr_lines[-1]}" = "$USAGE" ]; }
@test "-h" { run -0 --separate-stderr trace-report -h; [ "$output" = "$USAGE" ]; [ -z "$stderr" ]; }
@test "missing file: one line, exit 2, no page of nothing" { run -2 --separate-stderr trace-report -o r.html x; [ "$stderr" = "trace-report: cannot open 'x': No such file or directory" ]; [ ! -e r.html ]; }
@test "not a trace, and no input readable: no page; one readable of two: its page, exit 2" {
	echo garbage > g
	run -2 --separate-stderr trace-report -o r.html g x
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ ! -e r.html ]
	run -2 --separate-stderr trace-report -o r.html x "$D/t1/rank-0.rec"
	[ -s r.html ]
}
@test "missing conflicts file" { run -2 --separate-stderr trace-report -c x -o r.html "$D/t1/rank-0.rec"; [ "$stderr" = "trace-report: cannot open 'x': No such file or directory" ]; [ ! -e r.html ]; }

@test "a conflicts file empty or cut before its summary: one line, exit 2, no page" {
	: > v.json
	run -2 --separate-stderr trace-report -c v.json -o r.html "$D/t1/rank-0.rec"
	[ "$stderr" = "trace-report: v.json: empty input (no summary line)" ] && [ ! -e r.html ]
	trace-decode "$D"/t4/rank-*.rec | overlap-find > pairs
	conflict-check --json --model all --recommend pairs > full.json
	head -1 full.json > v.json
	run -2 --separate-stderr trace-report -c v.json -o r.html "$D"/t4/rank-*.rec
	[ "$stderr" = "trace-report: v.json: no summary line (cut short?)" ] && [ ! -e r.html ]
}
@test "a conflicts file of a run without conflicts: its summary alone is a report" {
	trace-decode "$D"/t1/rank-0.rec | overlap-find | conflict-check --json > v.json
	[ "$(wc -l < v.json)" = 1 ] && grep -q '^{"summary":\[\]' v.json
	run -0 --separate-stderr trace-report -c v.json -o r.html "$D/t1/rank-0.rec"
	[ -z "$stderr" ] && [ -s r.html ]
}

# ---- real programs ----------------------------------------------------------

@test "1 rank of mpiio: a well-formed report with every chart" {
	run -0 --separate-stderr trace-report -o r.html "$D/t1/rank-0.rec"
	[ -z "$output" ]
	[ -z "$stderr" ]
	wellformed r.html
	charts r.html $CHARTS
	grep -q '<td class="l">\./mpiio</td>' r.html
	grep -q '>1 (world 1)<' r.html
	grep -q "<td class=\"l\">$D/data</td>" r.html	# MPI-IO's relative name, made absolute
	grep -q 'MPI_File_write_all' r.html
}

@test "1 rank of mpiio renders in Chromium: every chart, not blank" {
	trace-report -o r.html "$D/t1/rank-0.rec"
	render r.html
	charts dom.html $CHARTS
	colours shot.png
}

@test "4 ranks of mpiio, as .rec files and merged into a .cfg: the same ranks and bytes" {
	run -0 --separate-stderr trace-report -o rec.html "$D"/t4/rank-*.rec
	[ -z "$stderr" ]
	trace-merge "$D"/t4/rank-*.rec > app.cfg
	run -0 --separate-stderr trace-report -o cfg.html app.cfg
	[ -z "$stderr" ]
	for f in rec.html cfg.html; do
		grep -q '>4 (world 4)<' $f
		charts $f $CHARTS
	done
	[ "$(grep -o '<td class="l">[0-9.]* [KMG]*i*B read, [0-9.]* [KMG]*i*B written' rec.html)" = \
	  "$(grep -o '<td class="l">[0-9.]* [KMG]*i*B read, [0-9.]* [KMG]*i*B written' cfg.html)" ]
}

@test "standard input, and the report on standard output" {
	run -0 --separate-stderr trace-report < "$D/t1/rank-0.rec"
	[ -z "$stderr" ]
	[ "${lines[0]}" = "<!DOCTYPE html>" ]
	[ "${lines[-1]}" = "</html>" ]
}

@test "conflicts from conflict-check --json: the pairs, what ordered them, the model" {
	trace-decode "$D"/t4/rank-*.rec > t.txt
	overlap-find t.txt > pairs
	conflict-check --json --model all --recommend pairs > v.json
	model=$(conflict-check --recommend pairs)
	run -0 --separate-stderr trace-report -c v.json -o r.html "$D"/t4/rank-*.rec
	[ -z "$stderr" ]
	wellformed r.html
	charts r.html chart-conflicts $CHARTS
	grep -q "<b id=\"recommended\">$model</b>" r.html
	grep -q "<td class=\"l\">$D/data</td><td>" r.html
	grep -q 'id="pair-table"' r.html
}

@test "a conflicts file that is not conflict-check's" {
	echo '[1,2]' > v.json
	run -2 --separate-stderr trace-report -c v.json -o r.html "$D/t1/rank-0.rec"
	[ "$stderr" = "trace-report: v.json: line 1: not conflict-check --json output" ]
}

# ---- many ranks ---------------------------------------------------------------

@test "64 synthetic ranks render in Chromium: every chart, not blank" {
	run -0 --separate-stderr trace-report -o r.html "$D"/g64/rank-*.rec
	[ -z "$stderr" ]
	grep -q '>64 (world 64)<' r.html
	wellformed r.html
	render r.html
	charts dom.html $CHARTS
	colours shot.png
}

@test "1,024 ranks: rank rows binned, the report under 2 MB" {
	run -0 --separate-stderr trace-report -o r.html "$D"/g1k/rank-*.rec
	[ -z "$stderr" ]
	grep -q '>1024 (world 1024)<' r.html
	grep -q '1024 ranks in 64 rows' r.html
	[ "$(stat -c %s r.html)" -lt 2000000 ]
	charts r.html $CHARTS
	wellformed r.html
}

# ---- damaged input, unwritable output ---------------------------------------------

@test "a corrupt trace: one line, exit 2, a report of what was read" {
	run -2 --separate-stderr trace-report -o r.html "$F/badlen.rec"
	[ "$stderr" = "trace-report: $F/badlen.rec: corrupt frame length at byte 342" ]
	grep -q 'could not be read' r.html
}

@test "not a trace: one line, exit 2" {
	run -2 --separate-stderr trace-report -o r.html "$F/badmagic.rec"
	[ "$stderr" = "trace-report: $F/badmagic.rec: not a Tangram record stream (bad magic)" ]
}

@test "an output in a missing directory" {
	run -2 --separate-stderr trace-report -o nodir/r.html "$D/t1/rank-0.rec"
	[ "$stderr" = "trace-report: cannot open 'nodir/r.html': No such file or directory" ]
}

@test "a full disk is an error, not a truncated report" {
	[ -w /dev/full ] || skip "no /dev/full"
	run -2 --separate-stderr trace-report -o /dev/full "$D/t1/rank-0.rec"
	[ "$stderr" = "trace-report: cannot write '/dev/full': No space left on device" ]
	[ -c /dev/full ]	# a device is never unlinked
}

@test "valgrind: the report of a compressed trace reads no memory it did not write" {
	command -v valgrind > /dev/null || skip "valgrind is not installed"
	[ "$TG_BUILD" = build/opt ] || skip "valgrind runs on the unsanitized build"
	run -0 --separate-stderr valgrind -q --error-exitcode=99 trace-report -o r.html "$F/v1-mpi.cfg"
	[ -z "$stderr" ]
}
