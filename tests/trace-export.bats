#!/usr/bin/env bats
# trace-export: argument checks first; then each format on real traced MPI
# runs (tests/mpi/mpiio.c, tests/hb/coll.c and tests/conflict/cases.c
# under mpirun.mpich, 2 to 4 ranks), checked with the format's own
# readers: jq for Chrome JSON, sqlite3, otf2-print, xmllint; then bad
# input and outputs that cannot be written.  The tool under test always
# reads a file argument.

bats_require_minimum_version 1.5.0

setup_file() {
	export W=$BATS_FILE_TMPDIR
	command -v mpicc.mpich >/dev/null || return 0
	export UCX_TLS=${UCX_TLS:-sm,self}
	export MPIR_CVAR_POLLS_BEFORE_YIELD=${MPIR_CVAR_POLLS_BEFORE_YIELD:-1}
	mkdir -p "$W/bin"
	mpicc.mpich -O2 -o "$W/bin/mpiio" "$TG_TOP/tests/mpi/mpiio.c" &&
	mpicc.mpich -O2 -o "$W/bin/coll" "$TG_TOP/tests/hb/coll.c" &&
	mpicc.mpich -O2 -o "$W/bin/cases" "$TG_TOP/tests/conflict/cases.c" || return 0
	local c
	(cd "$W" && mkdir io && cd io &&
		timeout 120 trace-run -o t -- mpirun.mpich -n 2 "$W/bin/mpiio" >/dev/null &&
		trace-decode t/rank-*.rec > text && trace-merge t/rank-*.rec > app.cfg) || return 0
	(cd "$W" && mkdir coll && cd coll &&
		timeout 120 trace-run -o t -- mpirun.mpich -n 4 "$W/bin/coll" >/dev/null &&
		trace-decode t/rank-*.rec > text && hb-build -o app.hb text) || return 0
	for c in waw-d race; do
		(cd "$W" && mkdir "$c" && cd "$c" &&
			timeout 120 trace-run -o t -- mpirun.mpich -n 2 "$W/bin/cases" "$c" >/dev/null &&
			trace-decode t/rank-*.rec > text && hb-build -o app.hb text &&
			overlap-find text > pairs &&
			conflict-check --hb app.hb --json pairs > conflicts.json) || return 0
	done
	touch "$W/mpi-ok"
}

setup() {
	F=$TG_TOP/tests/fixtures/decode
	USAGE='usage: trace-export [-hv] -f chrome|sqlite|otf2|hdtrace -o out [--conflicts file] [--hb graph] [file ...]'
	cd "$BATS_TEST_TMPDIR"
}

needmpi() {
	[ -f "$W/mpi-ok" ] || skip "mpicc.mpich is missing, or tracing the test programs failed"
}

# ---- arguments ----------------------------------------------------------

@test "--bogus" { run -2 --separate-stderr trace-export --bogus; [ -z "$output" ]; [ "${stderr_lines[-1]}" = "$USAGE" ]; }
@test "no -f" { run -2 --separate-stderr trace-export -o x "$F/good.rec"; [ -z "$output" ]; [ "$stderr" = "$USAGE" ]; }
@test "no -o" { run -2 --separate-stderr trace-export -f chrome "$F/good.rec"; [ -z "$output" ]; [ "$stderr" = "$USAGE" ]; }
@test "-f bogus" { run -2 --separate-stderr trace-export -f bogus -o x "$F/good.rec"; [ "$stderr" = "trace-export: option -f: unknown format 'bogus' (chrome, sqlite, otf2, hdtrace)" ]; }
@test "-h" { run -0 --separate-stderr trace-export -h; [ "$output" = "$USAGE" ]; [ -z "$stderr" ]; }
@test "missing file" { run -2 --separate-stderr trace-export -f chrome -o x.json x; [ "$stderr" = "trace-export: cannot open 'x': No such file or directory" ]; }
@test "a missing input after a good one: no output made; an OTF2 archive that exists is not overwritten, and said so" {
	for f in chrome sqlite otf2 hdtrace; do
		run -2 --separate-stderr trace-export -f $f -o out.$f "$F/good.rec" x
		[ "$stderr" = "trace-export: cannot open 'x': No such file or directory" ]
		[ ! -e out.$f ]
	done
	run -0 --separate-stderr trace-export -f otf2 -o o "$F/good.rec"
	run -2 --separate-stderr trace-export -f otf2 -o o "$F/good.rec"
	[ "$stderr" = "trace-export: cannot create the OTF2 archive 'o': it exists (an archive is not overwritten: remove it first)" ]
}

@test "a trace directory: its .cfg files, else its .rec streams, as verify-io takes it; one without streams: one line, exit 2" {
	needmpi
	run -0 --separate-stderr trace-export -f chrome -o dir.json "$W/io/t"
	run -0 --separate-stderr trace-export -f chrome -o files.json "$W"/io/t/*.rec
	cmp dir.json files.json
	mkdir empty
	run -2 --separate-stderr trace-export -f chrome -o e.json empty
	[ "$stderr" = "trace-export: no .rec or .cfg streams in 'empty'" ]
	[ ! -e e.json ]
}

@test "sqlite, otf2 and hdtrace refuse standard output" {
	for f in sqlite otf2 hdtrace; do
		run -2 --separate-stderr trace-export -f $f -o - "$F/good.rec"
		[ "${#stderr_lines[@]}" -eq 1 ] && [[ $stderr == "trace-export: -f $f writes a "* ]]
	done
}

# ---- chrome -------------------------------------------------------------

@test "chrome: the JSON parses, one process per rank with its name, a complete event per call with its arguments" {
	needmpi
	run -0 --separate-stderr trace-export -f chrome -o app.json "$W/io/t/rank-0.rec" "$W/io/t/rank-1.rec"
	[ -z "$stderr" ]
	python3 -m json.tool app.json > /dev/null
	[ "$(jq '[.traceEvents[] | select(.ph == "X")] | length' app.json)" = "$(grep -vc '^#' "$W/io/text")" ]
	[ "$(jq -c '[.traceEvents[] | select(.name == "process_name") | .args.name]' app.json)" = '["rank 0","rank 1"]' ]
	[ "$(jq -c '[.traceEvents[] | select(.ph == "X") | .pid] | unique' app.json)" = '[0,1]' ]
	# every argument, by name, and nesting by depth and parent
	jq -e '[.traceEvents[] | select(.ph == "X" and .name == "MPI_File_open")][0].args |
		.comm == "MPI_COMM_WORLD" and (.filename | endswith("data")) and .depth == 0' app.json
	jq -e '[.traceEvents[] | select(.ph == "X" and .args.depth > 0)] | length > 0 and all(.args.parent != null)' app.json
}

@test "chrome: a .cfg gives the same events as its .rec files" {
	needmpi
	trace-export -f chrome -o rec.json "$W/io/t/rank-0.rec" "$W/io/t/rank-1.rec"
	run -0 --separate-stderr trace-export -f chrome -o cfg.json "$W/io/app.cfg"
	[ "$(jq -c '[.traceEvents[] | select(.ph == "X") | [.pid, .tid, .name, .args.seq]] | sort' cfg.json)" = \
	  "$(jq -c '[.traceEvents[] | select(.ph == "X") | [.pid, .tid, .name, .args.seq]] | sort' rec.json)" ]
}

@test "chrome --hb: a flow arrow per matched message and per member of a collective" {
	needmpi
	for p in coll waw-d; do
		run -0 --separate-stderr trace-export -f chrome --hb "$W/$p/app.hb" -o $p.json "$W/$p/t/rank-"*.rec
		messages=$(hb-build -s "$W/$p/app.hb" | awk '$1 == "messages" { print $2 }')
		[ "$(jq '[.traceEvents[] | select(.ph == "s" and .cat == "message")] | length' $p.json)" = "$messages" ]
		[ "$(jq '[.traceEvents[] | select(.ph == "f" and .cat == "message")] | length' $p.json)" = "$messages" ]
	done
	[ "$messages" -gt 0 ]
	# coll: every gather edge of an extra node but the first member's
	[ "$(jq '[.traceEvents[] | select(.ph == "s" and .cat == "collective")] | length' coll.json)" -gt 0 ]
}

@test "chrome --hb of ranks whose threads made MPI calls at once (their nodes a call's start and end): an arrow per matched message, from the send's start to the receive's end" {
	needmpi
	mpicc.mpich -O2 -pthread -o threadio "$TG_TOP/tests/mpi/threadio.c"
	run -0 trace-run -o t -- mpirun.mpich -n 3 ./threadio ring "$PWD/f"
	trace-decode t/rank-*.rec > text
	hb-build -o app.hb text
	messages=$(hb-build -s app.hb | awk '$1 == "messages" { print $2 }')
	[ "$messages" -eq 3 ]
	run -0 --separate-stderr trace-export -f chrome --hb app.hb -o c.json t/rank-*.rec
	[ "$(jq '[.traceEvents[] | select(.ph == "s" and .cat == "message")] | length' c.json)" = 3 ]
	[ "$(jq '[.traceEvents[] | select(.ph == "f" and .cat == "message")] | length' c.json)" = 3 ]
	# each arrow ends after it starts
	[ "$(jq '[.traceEvents[] | select(.cat == "message")] | group_by(.id) | map(select(.[0].ts > .[1].ts)) | length' c.json)" = 0 ]
}

@test "chrome --conflicts: both accesses of every pair marked, red where not synchronized" {
	needmpi
	for c in waw-d race; do
		pairs=$(grep -c '"kind"' "$W/$c/conflicts.json")
		unsync=$(grep -c '"synchronized":false' "$W/$c/conflicts.json" || true)
		run -0 --separate-stderr trace-export -f chrome --conflicts "$W/$c/conflicts.json" -o $c.json "$W/$c/t/rank-"*.rec
		[ "$pairs" -gt 0 ]
		[ "$(jq '[.traceEvents[] | select(.ph == "i" and .cat == "conflict")] | length' $c.json)" = $((2 * pairs)) ]
		[ "$(jq '[.traceEvents[] | select(.ph == "i" and .cname == "terrible")] | length' $c.json)" = $((2 * unsync)) ]
		[ "$(jq '[.traceEvents[] | select(.ph == "s" and .cat == "conflict")] | length' $c.json)" = "$pairs" ]
	done
	[ "$unsync" -gt 0 ]	# race is not synchronized; waw-d is, by its message
	jq -e '[.traceEvents[] | select(.ph == "i")] | all(.args.file | endswith("/f"))' race.json
}

@test "chrome --conflicts on a trace of two runs: the second run's ranks, numbered on after the first's (2, 3), get their markers" {
	needmpi
	# the same 2-rank program twice into one directory: ranks 0-1, then 2-3
	(timeout 120 trace-run -o t -- mpirun.mpich -n 2 "$W/bin/cases" race >/dev/null &&
		timeout 120 trace-run -o t -- mpirun.mpich -n 2 "$W/bin/cases" race >/dev/null)
	ls t/rank-0.run2.rec
	trace-decode t/*.rec > text
	hb-build -o app.hb text
	overlap-find text > pairs
	conflict-check --hb app.hb --json pairs > conflicts.json || true
	grep -q '"rank":"3"' conflicts.json
	run -0 --separate-stderr trace-export -f chrome --conflicts conflicts.json -o c.json t/*.rec
	for r in 0 1 2 3; do
		want=$(jq -s "[.[] | select(.first) | .first.rank, .second.rank | select(. == \"$r\")] | length" conflicts.json)
		[ "$want" -gt 0 ]
		[ "$(jq "[.traceEvents[] | select(.ph == \"i\" and .cat == \"conflict\" and .pid == $r)] | length" c.json)" = "$want" ]
	done
}

# ---- sqlite -------------------------------------------------------------

@test "sqlite: calls per function as trace-decode counts them; files, ranks, communicators" {
	needmpi
	run -0 --separate-stderr trace-export -f sqlite -o app.db "$W/io/app.cfg"
	[ -z "$stderr" ]
	[ "$(sqlite3 -separator ' ' app.db 'select function, count(*) from calls group by function order by function')" = \
	  "$(grep -v '^#' "$W/io/text" | cut -f8 | LC_ALL=C sort | uniq -c | awk '{ print $2, $1 }' | LC_ALL=C sort)" ]
	[ "$(sqlite3 app.db 'select rank, world from ranks order by rank')" = $'0|2\n1|2' ]
	[ "$(sqlite3 app.db "select count(*) from calls c join files f on c.file = f.id where f.path like '%/data' and c.function like 'MPI_File_%'")" -gt 0 ]
	[ "$(sqlite3 app.db "select json_extract(args, '\$.amode') is not null from calls where function = 'MPI_File_open' limit 1")" = 1 ]
	[ "$(sqlite3 app.db "select count(*) from sqlite_master where type = 'index'")" -ge 3 ]
}

@test "sqlite: calls is a view; a rank's calls are a key range, function and file indexed" {
	needmpi
	run -0 trace-export -f sqlite -o app.db "$W/io/app.cfg"
	[ "$(sqlite3 app.db "select type from sqlite_master where name = 'calls'")" = view ]
	[ "$(sqlite3 app.db 'select count(*) from functions')" = "$(sqlite3 app.db 'select count(distinct function) from calls')" ]
	[ "$(sqlite3 app.db 'select count(*) from calls where rank = 1')" = "$(grep -v '^#' "$W/io/text" | awk -F '\t' '$1 == 1' | wc -l)" ]
	sqlite3 app.db 'explain query plan select count(*) from calls where rank = 1' > plan
	grep -q 'SEARCH c USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)' plan
	sqlite3 app.db "explain query plan select count(*) from calls where function = 'MPI_File_open'" > plan
	grep -q 'INDEX call_rows_function (function=?)' plan
	sqlite3 app.db 'explain query plan select count(*) from calls where file = 1' > plan
	grep -q 'INDEX call_rows_file (file=?)' plan
}

@test "sqlite --conflicts: a row per pair" {
	needmpi
	run -0 trace-export -f sqlite --conflicts "$W/race/conflicts.json" -o app.db "$W/race/t/rank-0.rec" "$W/race/t/rank-1.rec"
	[ "$(sqlite3 app.db 'select count(*) from conflicts')" = "$(grep -c '"kind"' "$W/race/conflicts.json")" ]
	[ "$(sqlite3 app.db 'select count(*) from conflicts where synchronized = 0')" -gt 0 ]
}

# ---- otf2 ---------------------------------------------------------------

@test "otf2: otf2-print reads it back: enter and leave per call, MPI and I/O events" {
	needmpi
	command -v otf2-print >/dev/null || skip "otf2-print is missing (otf2-tools)"
	run -0 --separate-stderr trace-export -f otf2 -o o "$W/io/app.cfg"
	run -0 --separate-stderr otf2-print o/traces.otf2
	[ -z "$stderr" ]
	calls=$(grep -vc '^#' "$W/io/text")
	[ "$(printf '%s\n' "${lines[@]}" | grep -c '^ENTER ')" = "$calls" ]
	[ "$(printf '%s\n' "${lines[@]}" | grep -c '^LEAVE ')" = "$calls" ]
	[ "$(printf '%s\n' "${lines[@]}" | grep -c '^MPI_COLLECTIVE_END ')" -gt 0 ]
	printf '%s\n' "${lines[@]}" | grep -q '^IO_CREATE_HANDLE .*Handle: "f[0-9]'
	printf '%s\n' "${lines[@]}" | grep -q '^IO_OPERATION_BEGIN .*Mode: WRITE'
	printf '%s\n' "${lines[@]}" | grep -q '^IO_OPERATION_COMPLETE '
	run -0 --separate-stderr trace-export -f otf2 -o o2 "$W/waw-d/t/rank-0.rec" "$W/waw-d/t/rank-1.rec"
	run -0 otf2-print o2/traces.otf2
	printf '%s\n' "${lines[@]}" | grep -q '^MPI_SEND .*Receiver: 1 '
	printf '%s\n' "${lines[@]}" | grep -q '^MPI_RECV .*Sender: 0 '
}

@test "otf2: fputs and fgets move the length of their string; a record from before it moves nothing" {
	command -v otf2-print >/dev/null || skip "otf2-print is missing (otf2-tools)"
	TANGRAM_DIR=l LD_PRELOAD=$TG_TOP/lib/libtangram.so "$TG_TOP/build/apps/lines" "$PWD/deck"
	run -0 --separate-stderr trace-export -f otf2 -o o l/*.rec
	run -0 --separate-stderr otf2-print o/traces.otf2
	# (the last, fgets at the end of the file, reads 0 bytes: it was taken
	# for a failed call while the program started with errno EEXIST, the
	# tracer's own, until 2026-12-03)
	[ "$(printf '%s\n' "${lines[@]}" | grep '^IO_OPERATION_COMPLETE ' | sed 's/.*Bytes Result: \([0-9]*\),.*/\1/' | tr '\n' ' ')" = "8 8 10 8 8 10 0 " ]
	run -0 --separate-stderr trace-export -f otf2 -o o5 "$TG_TOP/tests/fixtures/decode/lines-v5.cfg"
	run -0 --separate-stderr otf2-print o5/traces.otf2
	! printf '%s\n' "${lines[@]}" | grep '^IO_OPERATION_BEGIN ' | grep -v 'Bytes Request: 0,' || false
}

# ---- hdtrace ------------------------------------------------------------

@test "hdtrace: well-formed XML under the appendix's names, .info files and the .proj description" {
	needmpi
	command -v xmllint >/dev/null || skip "xmllint is missing (libxml2-utils)"
	run -0 --separate-stderr trace-export -f hdtrace -o h "$W/io/app.cfg"
	[ -z "$stderr" ]
	host=$(hostname)
	[ -f "h/mpiio_${host}_0_0.trc" ] && [ -f "h/mpiio_${host}_1_0.trc" ]
	[ -f "h/mpiio_${host}_0.info" ] && [ -f h/mpiio.proj ]
	xmllint --noout h/*.trc h/mpiio.proj
	grep -q "^<File_open cid='0' name='.*/data' fid='0' flags='[0-9]*' time='[0-9.]*' end='[0-9.]*' />" "h/mpiio_${host}_0_0.trc"
	grep -q "^<File_write_all fid='0' count='[0-9]*' tid='[0-9]*' size='[0-9]*' time=" "h/mpiio_${host}_0_0.trc"
	grep -q "^Comm map='0->0;1->1;' id=0 name='WORLD'" "h/mpiio_${host}_0.info"
	[ "$(xmllint --xpath 'count(/Application/FileList/File)' h/mpiio.proj)" -ge 1 ]
	[ "$(xmllint --xpath 'count(/Application/Topology/Label/Label/Label)' h/mpiio.proj)" = 2 ]
	[ "$(xmllint --xpath 'count(/Application/CommunicatorList/Communicator[@name="WORLD"]/Rank)' h/mpiio.proj)" = 2 ]
	[ "$(xmllint --xpath 'string(/Application/Datatypes/Rank[@name="0"]/NAMED[@name="MPI_INT"]/@id)' h/mpiio.proj)" != "" ]
	# the program's MPI calls only: the wrapper, a PMPI one, never sees
	# the MPI library's inside its own (ROMIO's collectives in an MPI-IO
	# call, recorded nested), which came out as top-level elements
	trace-decode "$W/io/app.cfg" > dec
	[ "$(awk -F'\t' '!/^#/ && $1 == 0 && $6 > 0 && ($7 == "mpi" || $7 == "mpiio")' dec | wc -l)" -gt 0 ]
	[ "$(grep -c '^<[A-Za-z_]* .*/>$' "h/mpiio_${host}_0_0.trc")" -eq \
	  "$(awk -F'\t' '!/^#/ && $1 == 0 && $6 == 0 && ($7 == "mpi" || $7 == "mpiio")' dec | wc -l)" ]
}

# ---- bad input, outputs that cannot be written --------------------------

@test "a damaged trace: one line naming the file and the byte, exit 2, from every format" {
	for f in chrome sqlite otf2 hdtrace; do
		rm -rf out
		run -2 --separate-stderr trace-export -f $f -o out "$F/truncated.rec"
		[ "$stderr" = "trace-export: $F/truncated.rec: truncated frame at byte 228" ]
		rm -rf out
		run -2 --separate-stderr trace-export -f $f -o out "$F/badmagic.rec"
		[ "${#stderr_lines[@]}" -eq 1 ] && [[ $stderr == "trace-export: $F/badmagic.rec: "* ]]
	done
}

@test "bad --conflicts and --hb files: one line, exit 2" {
	printf 'not json\n' > bad.json
	run -2 --separate-stderr trace-export -f chrome --conflicts bad.json -o x.json "$F/good.rec"
	[ "$stderr" = "trace-export: bad.json: line 1: not a conflict-check --json object" ]
	run -2 --separate-stderr trace-export -f chrome --hb bad.json -o x.json "$F/good.rec"
	[ "$stderr" = "trace-export: bad.json: not a happens-before graph (bad magic)" ]
	mkdir adir	# named by its path, not as standard input
	run -2 --separate-stderr trace-export -f chrome --hb adir -o x.json "$F/good.rec"
	[ "$stderr" = "trace-export: adir: read error: Is a directory" ]
}

@test "a --conflicts file empty or cut before its summary: one line, exit 2; a summary alone is no conflict" {
	needmpi
	: > v.json
	run -2 --separate-stderr trace-export -f chrome --conflicts v.json -o x.json "$F/good.rec"
	[ -z "$output" ] && [ "$stderr" = "trace-export: v.json: empty input (no summary line)" ]
	head -1 "$W/race/conflicts.json" > v.json
	grep -q '"kind"' v.json
	run -2 --separate-stderr trace-export -f chrome --conflicts v.json -o x.json "$W/race/t/rank-"*.rec
	[ -z "$output" ] && [ "$stderr" = "trace-export: v.json: no summary line (cut short?)" ]
	grep '^{"summary"' "$W/race/conflicts.json" > v.json
	run -0 --separate-stderr trace-export -f chrome --conflicts v.json -o x.json "$W/race/t/rank-"*.rec
	[ -z "$stderr" ]
}

@test "a damaged .cfg: one line, exit 2" {
	needmpi
	head -c 300 "$W/io/app.cfg" > bad.cfg
	run -2 --separate-stderr trace-export -f chrome -o x.json bad.cfg
	[ "${#stderr_lines[@]}" -eq 1 ] && [[ $stderr == "trace-export: bad.cfg: "* ]]
}

@test "an output that cannot be written is an error, not a truncation" {
	if [ -c /dev/full ]; then
		run -2 --separate-stderr trace-export -f chrome -o /dev/full "$F/good.rec"
		[ "$stderr" = "trace-export: /dev/full: No space left on device" ]
		# a database is made afresh, but never in place of a device
		# (it unlinked /dev/full before)
		run -2 --separate-stderr trace-export -f sqlite -o /dev/full "$F/good.rec"
		[ "$stderr" = "trace-export: cannot replace '/dev/full': not a regular file" ]
		[ -c /dev/full ]
	fi
	mkdir ro && chmod 555 ro
	[ "$(id -u)" = 0 ] || {
		run -2 --separate-stderr trace-export -f sqlite -o ro/app.db "$F/good.rec"
		[ "${#stderr_lines[@]}" -eq 1 ]
	}
	touch plain
	run -2 --separate-stderr trace-export -f hdtrace -o plain/h "$F/good.rec"
	[ "${#stderr_lines[@]}" -eq 1 ]
}
