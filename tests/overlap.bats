#!/usr/bin/env bats
# overlap-find and conflict-check (overlap-find(1), conflict-check(1)):
# the byte ranges of traced programs' data calls, asserted exactly; then
# the MPI programs of tests/conflict/cases.c, each pinning one case of the
# consistency models, with the conflicts and the recommended model they
# must give; then bad input.

bats_require_minimum_version 1.5.0

setup_file() {
	command -v mpicc.mpich >/dev/null ||
		skip "mpicc.mpich is missing (make deps installs MPICH)"
	export UCX_TLS=${UCX_TLS:-sm,self}
	export MPIR_CVAR_POLLS_BEFORE_YIELD=${MPIR_CVAR_POLLS_BEFORE_YIELD:-1}
	export B=$BATS_FILE_TMPDIR/bin
	mkdir -p "$B"
	mpicc.mpich -O2 -Wall -o "$B/cases" "$TG_TOP/tests/conflict/cases.c"
	mpicc.mpich -O2 -Wall -o "$B/shared-mix" "$TG_TOP/tests/mpi/shared-mix.c"
	mpicc.mpich -O2 -Wall -o "$B/ordered-seek" "$TG_TOP/tests/mpi/ordered-seek.c"
	mpicc.mpich -O2 -Wall -o "$B/badview" "$TG_TOP/tests/mpi/badview.c"
	mpicc.mpich -O2 -Wall -I/usr/include/hdf5/mpich -o "$B/flash" \
		"$TG_TOP/tests/conflict/flash.c" -L/usr/lib/x86_64-linux-gnu/hdf5/mpich -lhdf5
	if command -v g++ >/dev/null; then
		g++ -O2 -Wall -o "$B/fstream" "$TG_TOP/tests/apps/fstream.cpp"
	fi
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	SHIM=$TG_TOP/lib/libtangram.so
}

# accesses: the access lines of overlap-find -a on the traces in t/, as
# "file-path rank op func start end", process names turned into P<n> in
# order of appearance
accesses() {
	trace-decode t/*.rec | overlap-find -a "$@" > of.out
	awk -F'\t' '
		$1 == "#file" { p = $3; sub(/^path="/, "", p); sub(/"$/, "", p); n = split(p, x, "/"); path[substr($2, 6)] = x[n] }
		$1 == "access" { if (!($3 in pn)) pn[$3] = "P" (++np); print path[$2], pn[$3], $7, $8, $9, $10 }' of.out
}

# case NAME [overlap-find options]: run cases NAME on 2 ranks, traced into t/
case_run() {
	local c=$1
	run -0 --separate-stderr trace-run -o t -- mpirun.mpich -n 2 "$B/cases" "$c"
}

# table [options]: the conflict table of the traces in t/, without its
# heading, spaces squeezed
table() {
	trace-decode t/*.rec | overlap-find "${OF[@]}" | conflict-check "$@" | sed 1d | tr -s ' '
}

# judge_cases NAME...: each case traced afresh and judged by verify-io,
# its exit status, standard output and standard error in NAME.out
judge_cases() {
	local c
	for c in "$@"; do
		rm -rf t f
		case_run "$c"
		run --separate-stderr "$TG_TOP/pipelines/verify-io" t
		printf '%s\n' "$status" "$output" "$stderr" > "$c.out"
	done
}

recommend() {
	trace-decode t/*.rec | overlap-find "${OF[@]}" | conflict-check --recommend "$@"
}

@test "offsets: dup shares the position, O_APPEND goes to the end, ftruncate, a fork'd child moves the shared offset" {
	TANGRAM_DIR=t LD_PRELOAD=$SHIM run -0 "$TG_TOP/build/apps/offsets"
	accesses > got
	# (the ftruncate takes away what was past 12 then, 12..19, in a file
	# a second process, the child, writes too: T; the O_TRUNC open found
	# it empty; the read got 2 of the 8 bytes it asked for: it read that
	# the file ended there)
	cat > want <<-'EOF'
	o P1 W write 0 10
	o P1 W write 10 15
	o P1 W write 12 15
	o P1 T ftruncate 12 19
	o P1 W write 15 19
	o P1 R read 17 25
	o P1 S lseek 18 19
	o P2 W write 30 36
	o P1 W write 36 38
	s P1 W fwrite 0 7
	s P1 W fwrite 7 10
	EOF
	diff -u want got
}

@test "posix_basic and stdio_basic: every placed access, and the RAW-S pairs they make" {
	TANGRAM_DIR=t LD_PRELOAD=$SHIM run -0 "$TG_TOP/build/apps/posix_basic"
	accesses > got
	cat > want <<-'EOF'
	data P1 W write 0 10
	data P1 W writev 20 28
	data P1 W pwrite 100 103
	data P1 R pread 100 108
	data P1 S stat 102 103
	EOF
	diff -u want got
	# the stat after the close sees the pwrite's end: a pair too
	[ "$(grep -c '^pair' of.out)" -eq 2 ]
	rm -r t
	TANGRAM_DIR=t LD_PRELOAD=$SHIM run -0 "$TG_TOP/build/apps/stdio_basic"
	accesses > got
	cat > want <<-'EOF'
	text P1 W fwrite 0 10
	text P1 R fread 2 10
	text P1 W fprintf 10 15
	text P1 W fputs 15 20
	other P1 W fwrite 0 2
	EOF
	diff -u want got
	# fputs's bytes are its string's length, recorded since 2026-12-02
	! grep -q '^#unplaced' of.out || false
}

# Until 2026-12-04 perror and the warn family were not traced: their
# lines into a file stderr was put on were missing, and the file's later
# writes were placed that much early.
@test "perror: recorded as the fputs of its line on stderr (its length: the prefix, ': ', the message, the newline), placed where stderr's file stands, the write after it behind it" {
	TANGRAM_DIR=t LD_PRELOAD=$SHIM run -0 "$TG_TOP/build/apps/perrorlog" "$PWD/e.txt"
	[ "$(cat e.txt)" = $'no/such/file: No such file or directory\ndone' ]
	accesses > got
	cat > want <<-'EOF'
	e.txt P1 W fputs 0 40
	e.txt P1 W write 40 45
	EOF
	diff -u want got
}

@test "warn, warnx and errx: each recorded as the fputs of its line on stderr (the program's name, the message, errno's for warn, the newline), in its place; errx exits as it would" {
	TANGRAM_DIR=t LD_PRELOAD=$SHIM run -0 "$TG_TOP/build/apps/errlog" "$PWD/e.txt"
	[ "$(cat e.txt)" = $'errlog: open no/such/file: No such file or directory\nerrlog: 3 steps left\ndone\nerrlog: bye' ]
	accesses > got
	cat > want <<-'EOF'
	e.txt P1 W fputs 0 53
	e.txt P1 W fputs 53 74
	e.txt P1 W write 74 79
	e.txt P1 W fputs 79 91
	EOF
	diff -u want got
}

# error and error_at_line were not traced until 2026-12-05 (glibc exports no
# form of them that takes a va_list): the message is formatted in the
# tracer and handed on as "%s"; the flush of stdout they begin with is
# recorded as the program's fflush (which places printf's line before
# them).
@test "error and error_at_line: stdout flushed first, then each line recorded as the fputs of it on stderr (the program's name, file and line, the message, errnum's); a repeat under error_one_per_line prints nothing; error(3, ...) exits 3" {
	cp "$TG_TOP/build/apps/errorlog" errorlog
	run -3 ./errorlog "$PWD/plain.txt"
	TANGRAM_DIR=t LD_PRELOAD=$SHIM run -3 ./errorlog "$PWD/e.txt"
	cmp plain.txt e.txt
	[ "$(cat e.txt)" = $'out\n./errorlog: open no/such/file: No such file or directory\n./errorlog:deck:12: bad card 3\n./errorlog: bye' ]
	accesses > got
	cat > want <<-'EOF'
	e.txt P1 W fputs 0 4
	e.txt P1 W fputs 4 61
	e.txt P1 W fputs 61 92
	e.txt P1 W fputs 92 108
	EOF
	diff -u want got
}

@test "lines: fputs, fgets and getline (glibc's inline __getdelim) placed by the bytes each moved; the fgets that met the end of the file over what it asked for" {
	TANGRAM_DIR=t LD_PRELOAD=$SHIM run -0 "$TG_TOP/build/apps/lines" "$PWD/deck"
	accesses > got
	cat > want <<-'EOF'
	deck P1 W fputs 0 8
	deck P1 R fgets 0 8
	deck P1 W fputs 8 16
	deck P1 R fgets 8 16
	deck P1 W fputs 16 26
	deck P1 R fgets 16 26
	deck P1 R fgets 26 89
	EOF
	# (the first fgets read the whole file into the buffer, ahead=: the
	# reads the buffer served, the second fgets and the getline, are
	# placed as read by it, at its time; since 2026-12-05)
	diff -u want got
	! grep -q '^#unplaced' of.out || false
}

@test "C++ streams: the descriptor under the stream fopen made is the file's, its write, lseek and read placed" {
	[ -x "$B/fstream" ] || skip "g++ is missing"
	TANGRAM_DIR=t LD_PRELOAD=$SHIM run -0 "$B/fstream"
	[ "$output" = 20 ]
	accesses > got
	cat > want <<-'EOF'
	data P1 W write 0 10
	data P1 R read 5 8196
	data P1 W write 20 25
	data P1 R read 25 8216
	EOF
	# (libstdc++ reads 8191 bytes at a time: the first got 20, the
	# second none, each read all it asked for)
	diff -u want got
	# nothing on the file untracked: the 2 untracked calls are cout's
	grep -q $'^#unplaced\t.*\tuntracked=2\tunplaced=0$' of.out
}

@test "system(\"printf | cat > out\"): cat writes through the descriptor the shell opened before the exec, and closes it" {
	TANGRAM_DIR=t LD_PRELOAD=$SHIM run -0 "$TG_TOP/build/apps/shellout"
	[ "$output" = "hi there" ]
	trace-decode t/*.rec | overlap-find > pairs
	# cat's write (in the stream after its exec) and the program's read
	[ "$(awk -F'\t' '$1 == "pair" { print $8, $9, $10, $16, $17, $18 }' pairs)" = "write 0 8 fgets 0 8" ]
	run -0 conflict-check -v pairs
	[[ "${lines[0]}" == *$'\tposix=ok\tcommit=ok\tsession=ok\t'* ]]
	# the close that makes it session-safe is cat's, after the exec
	[[ "${lines[0]}" =~ $'\t'(p[0-9]+):[0-9]+\ write.*$'\t'close=(p[0-9]+): ]]
	[ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]
}

@test "RAW-S: a read of bytes the same process wrote conflicts under commit and session, not posix" {
	case_run raw-s
	run -0 table --model all
	[ "$(printf '%s\n' "$output" | grep -v 'all files' | sed 's|^\([a-z]*\) [^ ]*/f |\1 f |')" = "$(printf '%s\n' 'commit f 0 0 1 0' 'session f 0 0 1 0')" ]
	[ "$(recommend)" = session ]
	[ "$(recommend --strict)" = posix ]
}

@test "RAW-S with fsync between: commit-safe, a session conflict still" {
	case_run raw-s-sync
	run -0 table --model all
	[ "$(printf '%s\n' "$output" | grep -v 'all files' | sed 's|^\([a-z]*\) [^ ]*/f |\1 f |')" = 'session f 0 0 1 0' ]
	[ "$(recommend --strict)" = commit ]
	trace-decode t/*.rec | overlap-find | conflict-check -v --model all > v.out
	grep -q $'^RAW-S\t.*\tposix=ok\tcommit=ok\tsession=conflict\tsynchronized=yes\tcommit=0:' v.out
}

@test "RAW-D after close, barrier, open: no conflict under any model" {
	case_run raw-d
	run -0 table --model all
	[ "$(printf '%s\n' "$output" | grep -vc 'all files')" -eq 0 ]
	trace-decode t/*.rec | overlap-find | conflict-check -v > v.out
	# the pair is there, and the close and open that make it session-safe
	grep -q $'^RAW-D\t.*\t0:[0-9]* pwrite W \\[0,100)\t1:[0-9]* read R \\[0,100)\tposix=ok\tcommit=ok\tsession=ok\tsynchronized=yes\tcommit=0:[0-9]*\tclose=0:[0-9]*\topen=1:[0-9]*$' v.out
	[ "$(recommend)" = session ]
	[ "$(recommend --strict)" = session ]
}

@test "WAW-D ordered by send and receive but without commit or close: only POSIX is correct" {
	case_run waw-d
	run -0 table --model all
	[ "$(printf '%s\n' "$output" | grep -v 'all files' | sed 's|^\([a-z]*\) [^ ]*/f |\1 f |')" = "$(printf '%s\n' 'commit f 0 1 0 0' 'session f 0 1 0 0')" ]
	[ "$(recommend)" = posix ]
}

# stat(2) and truncate(2) name the file by its path: each looks it up
# afresh, as an open does, so under session it sees what the last close
# left, and it counts as its own open.  A stat was in no pair before (the
# size rank 0 had not closed was missed: session), and a truncate after
# rank 0's close waited for an open of rank 1's that never came (S3D-IO's
# restart, through PnetCDF's NF_CLOBBER: commit where session is enough).
@test "stat and truncate of a path: each its own open; the writer's close before them is what session needs" {
	for c in stat-closed stat-open trunc-closed trunc-open; do
		rm -rf t
		case_run $c
		trace-decode t/*.rec > $c.txt
		hb-build $c.txt > $c.hb
		overlap-find $c.txt | conflict-check -v --hb $c.hb --model all > $c.v
		overlap-find $c.txt | conflict-check --recommend --hb $c.hb > $c.r
	done
	grep -q $'^RAW-D\t.*\t0:[0-9]* pwrite W \\[0,100)\t1:[0-9]* stat S \\[99,100)\tposix=ok\tcommit=ok\tsession=ok\tsynchronized=yes\tcommit=0:[0-9]*\tclose=0:[0-9]*\topen=1:[0-9]*$' stat-closed.v
	grep -q $'^RAW-D\t.* stat S \\[99,100)\tposix=ok\tcommit=conflict\tsession=conflict\tsynchronized=yes$' stat-open.v
	grep -q $'^WAW-D\t.*\t0:[0-9]* pwrite W \\[0,100)\t1:[0-9]* truncate T \\[10,100)\tposix=ok\tcommit=ok\tsession=ok\tsynchronized=yes' trunc-closed.v
	grep -q $'^WAW-D\t.* truncate T \\[10,100)\tposix=ok\tcommit=conflict\tsession=conflict\tsynchronized=yes$' trunc-open.v
	[ "$(cat stat-closed.r trunc-closed.r stat-open.r trunc-open.r | tr '\n' ' ')" = "session session posix posix " ]
}

@test "WAW-S: without fsync a conflict under commit and session; with fsync under session only" {
	case_run waw-s
	run -0 table --model all
	[ "$(printf '%s\n' "$output" | grep -v 'all files' | sed 's|^\([a-z]*\) [^ ]*/f |\1 f |')" = "$(printf '%s\n' 'commit f 1 0 0 0' 'session f 1 0 0 0')" ]
	[ "$(recommend)" = session ]
	[ "$(recommend --strict)" = posix ]
	rm -r t
	case_run waw-s-sync
	run -0 table --model all
	[ "$(printf '%s\n' "$output" | grep -v 'all files' | sed 's|^\([a-z]*\) [^ ]*/f |\1 f |')" = 'session f 1 0 0 0' ]
	[ "$(recommend --strict)" = commit ]
}

@test "an O_APPEND log written by two ranks in turns through descriptors kept open: 20 disjoint lines, each past the other rank's: posix" {
	case_run append
	accesses > got
	[ "$(grep -c '^log P[0-9] W ' got)" -eq 20 ]
	# every line starts where the previous one ended
	awk '$1 == "log" && $3 == "W" { print $5, $6 }' got | sort -n | awk 'NR > 1 && $1 != end { bad = 1 } { end = $2 } END { exit bad }'
	# each line after the first found the end the other rank's line made
	[ "$(grep -c '^log P[0-9] E ' got)" -eq 19 ]
	[ "$(grep '^pair' of.out | grep -v $'\tT\t' | grep -c $'\tE\t')" -eq 19 ]
	# ordered by the barriers, but with no close and open (nor commit)
	# between: a session file system gives the second rank an end that
	# misses the first rank's line (TangramFS under session kept 10 of
	# the 20 lines); session before 2026-12-02
	[ "$(recommend --strict)" = posix ]
}

@test "MPI-IO strided view (--layer mpiio): each rank's blocks through the vector filetype, no pair" {
	case_run strided
	accesses -l mpiio > got
	cat > want <<-'EOF'
	f P1 W MPI_File_write_all 0 64
	f P2 W MPI_File_write_all 64 128
	f P1 W MPI_File_write_all 128 192
	f P2 W MPI_File_write_all 192 256
	f P1 W MPI_File_write_all 256 320
	f P2 W MPI_File_write_all 320 384
	f P1 W MPI_File_write_all 384 448
	f P2 W MPI_File_write_all 448 512
	EOF
	diff -u want got
	! grep -q '^pair' of.out || false
}

# shared_check: of the write_shared and write_ordered calls of the trace
# in t/ (tests/mpi/shared-mix.c), how many overlap-find placed where the
# file "content" has their tags, how many elsewhere, how many it counted
# unplaced: "right N wrong N unplaced N calls N" in $output
shared_check() {
	trace-decode t/*.rec > text
	overlap-find -a -l mpiio text > of.out
	od -An -v -tu1 -w1 content > bytes
	run -0 awk -F'\t' '
		FILENAME == "bytes" { b[n++] = $1 + 0; next }
		FILENAME == "text" {
			if ($8 == "MPI_File_write_shared" || $8 == "MPI_File_write_ordered") {
				calls++
				seqs[$1, ++ns[$1]] = $3
			}
			next
		}
		$1 == "#unplaced" { split($4, u, "="); unplaced += u[2] }
		$1 == "access" && $7 == "W" {
			k = 0	# the k-th write of its rank: its tag
			for (i = 1; i <= ns[$3]; i++)
				k += seqs[$3, i] < $4
			ok = 1
			for (i = $9; i < $10; i++)
				ok = ok && b[i] == 1 + 40 * $3 + k
			if (ok) right++; else wrong++
		}
		END { printf "right %d wrong %d unplaced %d calls %d\n", right, wrong, unplaced, calls }
	' bytes text of.out
}

@test "MPI-IO write_shared and write_ordered mixed, ranks out of step: each call placed where its bytes are (the POSIX calls ROMIO made inside say)" {
	run -0 trace-run -o t -- mpirun.mpich -n 4 "$B/shared-mix"
	shared_check
	[ "$output" = "right 64 wrong 0 unplaced 0 calls 64" ]
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" t
	[[ ${lines[2]} =~ ^posix\ +\(all\ files\)\ +0\ +0\ +0\ +0$ ]]
	[ -z "$stderr" ]
}

@test "the same in a file opened with MPI_MODE_SEQUENTIAL (the tracer reads no pointer there): placed by the POSIX calls inside alone" {
	run -0 trace-run -o t -- mpirun.mpich -n 4 "$B/shared-mix" 12 sequential
	shared_check
	[ "$output" = "right 64 wrong 0 unplaced 0 calls 64" ]
}

@test "the same traced without the POSIX layer: from the pointer readings alone, a call is placed right or counted unplaced, never placed elsewhere" {
	run -0 trace-run -l mpi,mpiio -o t -- mpirun.mpich -n 4 "$B/shared-mix"
	shared_check
	[[ $output =~ ^right\ ([0-9]+)\ wrong\ 0\ unplaced\ ([0-9]+)\ calls\ 64$ ]]
	[ "${BASH_REMATCH[1]}" -gt 0 ]
	[ "$((BASH_REMATCH[1] + BASH_REMATCH[2]))" -eq 64 ]
}

# ordered_accesses FILE: the MPI-IO accesses of FILE's ordered and shared
# calls in t/, "RANK FUNC START END" each, sorted; and the #unplaced lines
ordered_accesses() {
	trace-decode t/*.rec | overlap-find -a -l mpiio > of.out
	awk -F'\t' -v f="$PWD/$1" '
		$1 == "#file" && $3 == "path=\"" f "\"" { split($2, a, "="); id = a[2] }
		$1 == "access" && $2 == id && $8 ~ /_(ordered|shared)$/ { print $3, $8, $9, $10 }
		$1 == "#unplaced" { print }' of.out | sort -k1,1n -k3,3n
}

# ROMIO's rank 0 moves the shared pointer back (seek_shared) before the
# other ranks have left the ordered call before it and read where it
# left the pointer: their readings were the seek's.  The last rank's call
# was counted unplaced, and the race of the next call's bytes over its
# own went unseen (MPI-IO: session).
@test "write_ordered, then seek_shared back at once: each rank's bytes where they went, the next call's overlap a race" {
	run -0 trace-run -o t -- mpirun.mpich -n 4 "$B/ordered-seek" back f.dat
	[ "$(od -An -c f.dat | tr -d ' \n')" = abbcccdaabbccdd ]
	run -0 ordered_accesses f.dat
	[ "$output" = "0 MPI_File_write_ordered 0 1
0 MPI_File_write_ordered 7 9
1 MPI_File_write_ordered 1 3
1 MPI_File_write_ordered 9 11
2 MPI_File_write_ordered 3 6
2 MPI_File_write_ordered 11 13
3 MPI_File_write_ordered 6 10
3 MPI_File_write_ordered 13 15" ]
	run -1 --separate-stderr "$TG_TOP/pipelines/verify-io" t
	grep -qx 'MPI-IO layer: recommended consistency: posix (no model makes this run correct)' <<<"$output"
	grep -q 'MPI-IO layer: 2 conflicting pairs are not synchronized: no model makes this run correct' <<<"$stderr"
}

# A log appended with write_shared, read back with read_ordered after
# sync-barrier-sync and a rewind: the write_shared calls had all returned
# before the read began, so none can have taken units among its ranks'
# turns.  Through a view with holes the reads ROMIO makes inside do not
# say where each turn went; every read_ordered was counted unplaced and
# the reads of the neighbours' blocks were lost (MPI-IO: session).
@test "a log of write_shared read back with read_ordered after a rewind: each rank's turn placed, the reads of others' blocks mpiio" {
	run -0 trace-run -o t -- mpirun.mpich -n 4 "$B/ordered-seek" readback f.dat
	echo "$output"	# (shown when the test fails)
	od -c f.dat
	[ "$(sort <<<"$output" | tr '\n' ' ')" = "rank 0: aaaabb rank 1: bbcccc rank 2: dddd.. rank 3: ...... " ]
	run -0 ordered_accesses f.dat
	[ "$output" = "0 MPI_File_read_ordered 0 4
0 MPI_File_write_shared 0 4
0 MPI_File_read_ordered 8 10
1 MPI_File_write_shared 8 12
1 MPI_File_read_ordered 10 12
1 MPI_File_read_ordered 16 20
2 MPI_File_write_shared 16 20
2 MPI_File_read_ordered 24 28
2 MPI_File_read_ordered 32 34
3 MPI_File_write_shared 24 28
3 MPI_File_read_ordered 34 36
3 MPI_File_read_ordered 40 44" ]
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" t
	grep -q '^MPI-IO layer: recommended consistency: mpiio$' <<<"$output"
	[ -z "$stderr" ]
}

# An erroneous view (a negative lower bound) that MPICH refuses, yet
# writes through: the write is not placed through the view before (it was,
# contiguously at 4, where its bytes are not), but counted unplaced.
@test "after a refused MPI_File_set_view the handle's view is not known: its data is unplaced, not placed through the old view" {
	run -0 trace-run -o t -- mpirun.mpich -n 1 "$B/badview" f.dat
	[ "$output" = "set_view: refused" ]
	trace-decode t/*.rec | overlap-find -a -l mpiio > of.out
	[ -z "$(grep $'^access\t.*\tMPI_File_write\t' of.out)" ]
	grep -q $'^#unplaced\trank=0\tuntracked=0\tunplaced=1$' of.out
}

@test "--json: one object per pair with the verdict of every model, then the summary" {
	case_run raw-s-sync
	trace-decode t/*.rec | overlap-find | conflict-check --json > j.out
	python3 - <<-'EOF'
	import json
	lines = [json.loads(l) for l in open('j.out')]
	p, s = lines[0], lines[-1]
	assert p['kind'] == 'RAW' and p['procs'] == 'S', p
	assert p['conflict'] == {'posix': False, 'commit': False, 'session': True}, p
	assert p['first']['func'] == 'pwrite' and p['second']['func'] == 'pread', p
	assert p['first']['start'] == 0 and p['first']['end'] == 100, p
	assert 'commit_seq' in p and p['synchronized'] is True, p
	assert s['summary'][0]['conflicts']['session']['RAW-S'] == 1, s
	EOF
}

@test "the FLASH pattern (parallel HDF5, H5Fflush after each dataset): WAW-D under session, none under commit" {
	run -0 --separate-stderr trace-run -o t -- mpirun.mpich -n 4 "$B/flash" f.h5 3
	run -0 table --model all
	# the library's metadata, written at each flush by the rank the cache
	# chose, is written again by another rank at the next flush: the fsync
	# of H5Fflush orders them (commit), no close and open does (session)
	printf '%s\n' "$output" | grep -Eq "^session $BATS_TEST_TMPDIR/f.h5 [0-9]+ [1-9][0-9]* 0 0$"
	printf '%s\n' "$output" | grep -Eq '^commit \(all files\) 0 0 0 0$'
	[ "$(recommend)" = commit ]
	# the commits are the fsync calls MPI_File_sync makes inside H5Fflush
	trace-decode t/*.rec | overlap-find | conflict-check -v > v.out
	c=$(grep -m1 $'^WAW-D\t' v.out | sed 's/.*\tcommit=\([0-9]*\):\([0-9]*\).*/\1 \2/')
	run -0 trace-decode "t/rank-${c% *}.rec"
	printf '%s\n' "$output" | awk -F'\t' -v s="${c#* }" '$3 == s { print $8 }' | grep -qx fsync
}

# ---- ordered by happens-before ---------------------------------------------------

# hbcheck [conflict-check options]: the trace in t/ through hb-build and
# conflict-check --hb
hbcheck() {
	trace-decode t/*.rec > text
	hb-build text > app.hb
	overlap-find text | conflict-check --hb app.hb "$@"
}

@test "--hb: two ranks writing the same bytes with nothing between them are not synchronized (exit 1 when asked)" {
	case_run race
	run -0 hbcheck -v
	printf '%s\n' "$output" | grep -q $'^WAW-D\t.*\tposix=conflict\tcommit=conflict\tsession=conflict\tsynchronized=no$'
	run -1 hbcheck --fail-on-unsynchronized
	run -0 --separate-stderr hbcheck --recommend
	[ "$output" = posix ]
	[[ $stderr == *"not synchronized: no model makes this run correct"* ]]
}

@test "--hb: WAW-D ordered by send and receive is synchronized, yet needs POSIX (no commit between)" {
	case_run waw-d
	run -0 hbcheck -v
	printf '%s\n' "$output" | grep -q $'^WAW-D\t.*\tposix=ok\tcommit=conflict\tsession=conflict\tsynchronized=yes$'
	run -0 hbcheck --fail-on-unsynchronized
}

@test "--hb: RAW-D after close, barrier, open: the close happens before the open; session-safe" {
	case_run raw-d
	run -0 hbcheck -v
	printf '%s\n' "$output" | grep -q $'^RAW-D\t.*\tposix=ok\tcommit=ok\tsession=ok\tsynchronized=yes\tcommit=0:[0-9]*\tclose=0:[0-9]*\topen=1:[0-9]*$'
	run -0 hbcheck --json
	printf '%s\n' "$output" | head -1 | grep -q '"ordered_by":"happens-before"'
}

@test "verify-io: the whole chain, ordered by happens-before; a race makes it exit 1" {
	case_run race
	run -1 --separate-stderr "$TG_TOP/pipelines/verify-io" t
	[[ $output == *"ordered by: happens-before (hb-build)"* ]]
	[[ $output == *"recommended consistency: posix"* ]]
	[[ $stderr == *"not synchronized"* ]]
	run -2 --separate-stderr "$TG_TOP/pipelines/verify-io" nosuch
	[ "$stderr" = "verify-io: cannot open 'nosuch': No such file or directory" ]
}

# A name removed by one rank and opened by another with nothing ordering
# the two: which file the open finds, or whether it finds one, is a matter
# of timing (rank 0 deletes the old output while rank 1 makes it anew).
# Such a run was judged by the order the calls happened to run in: session.
@test "verify-io: an unlink or MPI_File_delete not ordered with another rank's open of the name is a race; a barrier between makes it session" {
	judge_cases unlink-race unlink-barrier delete-race delete-barrier
	[ "$(head -n 1 unlink-race.out)" = 1 ]
	grep -q '^verify-io: POSIX layer: 1 open of a name not ordered with another process.s call that removed or made it (unlink, MPI_File_delete, an open with O_CREAT, a mkdir of a directory on the path): .*no model makes this run correct (the first: the open of .*/f\( \[1\]\)\?, call [0-9]* of rank 1, and call [0-9]* of rank 0)$' unlink-race.out
	[ "$(head -n 1 unlink-barrier.out)" = 0 ]
	grep -q '^POSIX layer: recommended consistency: session$' unlink-barrier.out
	# ROMIO's messages inside MPI_File_open order the POSIX calls; MPI
	# promises no order of a file collective
	[ "$(head -n 1 delete-race.out)" = 1 ]
	grep -q '^POSIX layer: recommended consistency: session$' delete-race.out
	grep -q '^verify-io: MPI-IO layer: 1 open of a name not ordered' delete-race.out
	! grep -q '^verify-io: POSIX layer: .*open of a name' delete-race.out || false
	[ "$(head -n 1 delete-barrier.out)" = 0 ]
	grep -q '^MPI-IO layer: recommended consistency: session$' delete-barrier.out
}

# An open that finds no file (ENOENT) while another rank is about to make
# it, nothing between them: whether it finds it is a matter of timing.
# Such a run was session (a failed open is no access, so no pair).
@test "verify-io: an open (or a stat, an access) that found no file, not ordered with another rank's making of it, is a race; ordered, session" {
	judge_cases missing-race missing-ordered missing-mpiio missing-stat missing-access
	[ "$(head -n 1 missing-race.out)" = 1 ]
	grep -q "no model makes this run correct" missing-race.out
	# the open ROMIO made inside the program's MPI_File_open counts too
	[ "$(head -n 1 missing-mpiio.out)" = 1 ]
	grep -q "^verify-io: POSIX layer: [0-9]* opens\\? of a name not ordered" missing-mpiio.out
	[ "$(head -n 1 missing-ordered.out)" = 0 ]
	grep -q '^POSIX layer: recommended consistency: session$' missing-ordered.out
	# a stat that found no file is such a look too (until 2026-12-03: session)
	[ "$(head -n 1 missing-stat.out)" = 1 ]
	grep -q "no model makes this run correct" missing-stat.out
	[ "$(head -n 1 missing-access.out)" = 1 ]
	grep -q "no model makes this run correct" missing-access.out
}

# The tracer records an open by the kernel's name of the file it made, an
# unlink by the name it was given: a file made and removed through a
# symbolic link to its directory was not matched by its removal, and the
# file made anew after it was the same file (a WAW pair, posix), where
# there were two (code_saturne's OMPIO lock probes through its restart
# directory's link).  A removal's directory is the kernel's name now.
@test "an unlink through a symbolic link to the directory removes the file its open named: the file made after it is another (session, not posix)" {
	mkdir real
	ln -s real ln
	case_run unlink-link
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" t
	[[ $output == *"POSIX layer: recommended consistency: session"* ]]
	trace-decode t/*.rec > text
	grep -q $'\tunlink\t0\tpath="'"$PWD"'/real/f"' text
	[ "$(overlap-find text | grep -c '^pair')" -eq 0 ]
}

@test "verify-io: one rank's stream missing: one line, exit 2, no verdict" {
	case_run race
	rm t/rank-1.rec
	run -2 --separate-stderr "$TG_TOP/pipelines/verify-io" t
	[ -z "$output" ]
	[ "$stderr" = "verify-io: rank 1: missing-rank: no records; the trace 't' is incomplete" ]
}

@test "trace-merge of no readable input writes nothing; verify-io to a full standard output: one line, exit 2 (exit 0 before, the verdict lost)" {
	# trace-merge leaves nothing when no input could be read
	run -2 --separate-stderr trace-merge -o empty.cfg nosuch.rec
	[ "$stderr" = "trace-merge: cannot open 'nosuch.rec': No such file or directory" ]
	[ ! -e empty.cfg ]
	run -2 --separate-stderr "$TG_TOP/pipelines/verify-io" -Z t
	[ "${stderr_lines[0]}" = "verify-io: invalid option -- 'Z'" ]
	[ "${stderr_lines[1]}" = "usage: verify-io [-hs] [-l posix|mpiio] trace" ]
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" -h
	[ "$output" = "usage: verify-io [-hs] [-l posix|mpiio] trace" ] && [ -z "$stderr" ]
	case_run race
	if [ -c /dev/full ]; then
		run -2 --separate-stderr bash -c '"$1" t > /dev/full' - "$TG_TOP/pipelines/verify-io"
		[ "${stderr_lines[0]}" = "verify-io: write error on standard output" ]
	fi
}

# ---- bad input ------------------------------------------------------------------

@test "overlap-find: a missing file, a wrong option, a malformed record: one line, exit 2" {
	run -2 --separate-stderr overlap-find nosuch
	[ "$stderr" = "overlap-find: cannot open 'nosuch': No such file or directory" ]
	run -2 --separate-stderr overlap-find -l hdf9
	[[ $stderr == "overlap-find: option -l: unknown layer 'hdf9'"* ]]
	printf '#proc\trank=0\tpid=1\tcwd="/"\n0\t0\tx\t0.1\t0.2\t0\tposix\twrite\t1\tfd=3\n' > bad.txt
	run -2 --separate-stderr overlap-find bad.txt
	[ "$stderr" = "overlap-find: bad.txt:2: bad seq" ]
	printf '0\t0\t1\t0.1\t0.2\t0\tposix\twrite\t1\tfd=3\n' > bad.txt
	run -2 --separate-stderr overlap-find bad.txt
	[ "$stderr" = "overlap-find: bad.txt:1: call record before any #proc line" ]
}

@test "conflict-check: input not from overlap-find, a malformed pair, an unknown model, a missing --hb file: exit 2" {
	printf 'hello\n' > bad.txt
	run -2 --separate-stderr conflict-check bad.txt
	[ "$stderr" = "conflict-check: bad.txt:1: not overlap-find output (no #overlap line)" ]
	printf '#overlap\tversion=1\tlayer=posix\n#file\tfile=0\tpath="/f"\npair\t0\t0\t1\n' > bad.txt
	run -2 --separate-stderr conflict-check bad.txt
	[ "$stderr" = "conflict-check: bad.txt:3: malformed pair line" ]
	run -2 --separate-stderr conflict-check --model eventual bad.txt
	[[ $stderr == "conflict-check: option --model: unknown model 'eventual'"* ]]
	run -2 --separate-stderr conflict-check --hb nosuch.hb bad.txt
	[ "$stderr" = "conflict-check: cannot read 'nosuch.hb': No such file or directory" ]
	: > empty.txt
	run -2 --separate-stderr conflict-check empty.txt
	[[ $stderr == *"empty input"* ]]
}

# ---- a real application -----------------------------------------------------------

@test "NWChem (Debian's nwchem-mpich) on 2 ranks: verify-io finds its same-process runtime-database conflicts, session suffices" {
	command -v nwchem.mpich >/dev/null || skip "nwchem-mpich is missing (make deps-apps installs it)"
	printf 'start he\ngeometry\n  He 0 0 0\nend\nbasis\n  * library 6-31g\nend\ntask scf energy\n' > he.nw
	run -0 --separate-stderr trace-run -o t -- mpirun.mpich -n 2 nwchem.mpich he.nw
	[[ $output == *"Total SCF energy =     -2.855160426154"* ]]
	# a Fortran application: its MPI calls are there
	run -0 --separate-stderr trace-decode -l mpi t/rank-1.rec
	[ "$(printf '%s\n' "$output" | grep -c $'\tMPI_Bcast\t')" -gt 100 ]
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" t
	# the runtime database he.db is written and read back by rank 0 only:
	# conflicts within the process under session semantics, none between
	# processes (the dissertation's Table 4.4 row for NWChem: WAW-S, RAW-S)
	printf '%s\n' "$output" | grep -E "^session +$BATS_TEST_TMPDIR/he.db +[1-9][0-9]* +0 +[1-9][0-9]* +0$"
	printf '%s\n' "$output" | grep -qx 'POSIX layer: recommended consistency: session'
	printf '%s\n' "$output" | grep -Eq '^posix +\(all files\) +0 +0 +0 +0$'
}
