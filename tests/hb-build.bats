#!/usr/bin/env bats
# hb-build and hb-query.  Argument checks first; then the graphs of the
# small MPI programs of tests/hb/, each written to pin one rule, run under
# mpirun.mpich on 2 to 4 ranks and traced.  Their records are found by
# marker: each program calls access("NAME") at the points the test names,
# and a table line
#
#	RANK:NAME RANK:NAME yes|no	why
#
# says whether the first record happens before the second (hb-query's
# answer; NAME may also be a seq).  Each graph has the nodes, extra nodes
# and edges its program implies.  Then problems on edited traces
# (unmatched calls, a rank cut short, a cycle), the .hb format (golden
# file, damaged copies), the index against a search of the graph, and
# batch queries.

bats_require_minimum_version 1.5.0

PROGS="eager anysrc waitany ibcast split inter persist sendrecv coll scan mpiio ignore cancel idup onesided"

setup_file() {
	export B=$BATS_FILE_TMPDIR
	command -v mpicc.mpich >/dev/null || return 0
	export UCX_TLS=${UCX_TLS:-sm,self}
	export MPIR_CVAR_POLLS_BEFORE_YIELD=${MPIR_CVAR_POLLS_BEFORE_YIELD:-1}
	local p np
	for p in $PROGS; do
		case $p in
		eager|waitany|persist|cancel) np=2 ;;
		anysrc|ignore|onesided) np=3 ;;
		*) np=4 ;;
		esac
		mpicc.mpich -O2 -Wall -Wextra -o "$B/$p" "$TG_TOP/tests/hb/$p.c"
		(cd "$B" && mkdir "w-$p" && cd "w-$p" &&
			trace-run -o t -- mpirun.mpich -n "$np" "$B/$p" >/dev/null &&
			trace-decode t/rank-*.rec >"$B/$p.txt" &&
			hb-build -o "$B/$p.hb" "$B/$p.txt" 2>"$B/$p.err")
	done
	touch "$B/mpi-ok"
}

setup() {
	F=$TG_TOP/tests/fixtures/hb
	GEN=$TG_TOP/$TG_BUILD/helpers/hb-gen
	USAGE='usage: hb-build [-dfhmqs] [-o graph] [file]'
	QUSAGE='usage: hb-query [-bfh] [-r run] graph [rank:seq rank:seq ...]'
	cd "$BATS_TEST_TMPDIR"
}

needmpi() {
	[ -f "$B/mpi-ok" ] || skip "mpicc.mpich is missing (make deps installs MPICH)"
}

# rec PROG RANK:NAME: "RANK:SEQ" of the marker NAME of rank RANK (NAME may
# be a seq already)
rec() {
	local r=${2%%:*} m=${2#*:} s
	case $m in
	[0-9]*) echo "$r:$m"; return ;;
	esac
	s=$(awk -F'\t' -v r="$r" -v m="/$m\"" '$1 == r && $8 == "access" &&
		substr($10, length($10) - length(m) + 1) == m { print $3; exit }' "$B/$1.txt")
	[ -n "$s" ] || { echo "no marker $m on rank $r of $1" >&2; return 1; }
	echo "$r:$s"
}

# answers PROG: the table on standard input, asked in one batch
answers() {
	local p=$1 a b want why qs="" wants="" ra rb
	while read -r a b want why; do
		ra=$(rec "$p" "$a") || return 1
		rb=$(rec "$p" "$b") || return 1
		qs+="$ra $rb"$'\n'
		wants+="$a $b $want"$'\n'
	done
	run -0 --separate-stderr hb-query --batch "$B/$p.hb" <<<"${qs%$'\n'}"
	[ -z "$stderr" ]
	diff -u <(printf '%s' "$wants") \
		<(paste -d' ' <(printf '%s' "$wants" | cut -d' ' -f1,2) <(printf '%s\n' "$output"))
}

# counts PROG|FILE: "nodes=N extra=X edges=E problems=P" of its graph
counts() {
	local g=$1
	[ -f "$g" ] || g=$B/$1.hb
	run -0 --separate-stderr hb-build -s "$g"
	[ -z "$stderr" ]
	counted=$(printf '%s\n' "$output" | awk -F'\t' '$1 ~ /^(nodes|extra|edges|problems)$/ {
		printf "%s%s=%s", sep, $1, $2; sep = " " }')
}

# stat KEY: the value of KEY in the --stats output in $output
stat() {
	printf '%s\n' "$output" | awk -F'\t' -v k="$1" '$1 == k { print $2 }'
}

# tab LINE...: the lines joined with tabs
tab() {
	local IFS=$'\t'
	printf '%s\n' "$*"
}

# ---- arguments ------------------------------------------------------------

# Two threads of a rank in MPI_File_open of MPI_COMM_SELF at once (MPICH:
# each with a broadcast nested in it): their seq ranges overlap without
# nesting.  The split calls' ends were kept on a stack popped from its top
# only, so the one that ended first waited under the other: a cycle
# (split-threads.txt, from a run of 4 threads), or an end node more than
# were counted, written past the graph's arrays (split-threads2.txt:
# glibc's "corrupted size vs. prev_size", 1 run in 4).
@test "split MPI-IO calls of two threads that overlap without nesting: no cycle, nothing written past the graph" {
	run -0 --separate-stderr hb-build -o g.hb "$F/split-threads.txt"
	[[ $stderr != *cycle* ]]
	run -0 --separate-stderr hb-query g.hb 0:1470 1:1470
	if command -v valgrind >/dev/null; then
		run -0 valgrind -q --error-exitcode=9 "$TG_TOP/bin/hb-build" -o g2.hb "$F/split-threads2.txt"
	else
		run -0 hb-build -o g2.hb "$F/split-threads2.txt"
	fi
}

# Open MPI's own MPI-IO (OMPIO) communicates out of sight, so a file
# collective stands for its messages; but its MPI_File_write_at_all of two
# ranks waits for nobody.  ompio-coll.txt (Open MPI 4.1, 2 ranks): rank 1's
# write_at_all and its read of bytes 0-99 were done 0.5 s before rank 0,
# asleep, called its write of them and its write_at_all.  Those two calls
# ordered nothing (the read found zeros); they do when the times overlap,
# when the times are rebuilt, and across hosts (no one clock).
@test "a file collective whose messages are unseen orders what the members' times allow" {
	run -0 --separate-stderr hb-build -o g.hb "$F/ompio-coll.txt"
	run -0 --separate-stderr hb-query g.hb 0:567 1:558
	[ "$output" = no ]
	run -0 --separate-stderr hb-query g.hb 0:536 1:558	# the open: as before
	[ "$output" = yes ]
	sed 's/0\.307545632\t0\.307576530/0.307545632\t0.807800000/' "$F/ompio-coll.txt" > overlap.txt
	{ printf '#timing\tmode=aggregate\n'; cat "$F/ompio-coll.txt"; } > rebuilt.txt
	sed '/^#proc\trank=1/s/host="vm"/host="vm2"/' "$F/ompio-coll.txt" > hosts.txt
	for f in overlap rebuilt hosts; do
		run -0 --separate-stderr hb-build -o $f.hb $f.txt
		run -0 --separate-stderr hb-query $f.hb 0:567 1:558
		[ "$output" = yes ]
	done
}

@test "--bogus" { run -2 --separate-stderr hb-build --bogus; [ -z "$output" ]; [ "${stderr_lines[-1]}" = "$USAGE" ]; }
@test "-x" { run -2 --separate-stderr hb-build -x; [ -z "$output" ]; [ "${stderr_lines[-1]}" = "$USAGE" ]; }
@test "-o without its argument" { run -2 --separate-stderr hb-build -o; [ -z "$output" ]; [ "${stderr_lines[-1]}" = "$USAGE" ]; }
@test "two inputs" { run -2 --separate-stderr hb-build a b; [ -z "$output" ]; [ "$stderr" = "$USAGE" ]; }
@test "-h" { run -0 --separate-stderr hb-build -h; [ "$output" = "$USAGE" ]; [ -z "$stderr" ]; }
@test "--help" { run -0 --separate-stderr hb-build --help; [ "$output" = "$USAGE" ]; [ -z "$stderr" ]; }
@test "-d and -s together" { run -2 --separate-stderr hb-build -d -s "$F/small.txt"; [ -z "$output" ]; [ "$stderr" = "hb-build: options -d and -s exclude each other" ]; }
@test "missing file" { run -2 --separate-stderr hb-build x; [ -z "$output" ]; [ "$stderr" = "hb-build: cannot open 'x': No such file or directory" ]; }
@test "an empty input" { : > empty; run -2 --separate-stderr hb-build -o g.hb empty; [ -z "$output" ]; [ "$stderr" = "hb-build: empty: empty input (no #proc line)" ]; [ ! -e g.hb ]; }
@test "an input without a #proc line or a call" { printf '#overlap\tversion=1\tlayer=posix\n' > pairs; run -2 --separate-stderr hb-build -o g.hb pairs; [ -z "$output" ]; [ "$stderr" = "hb-build: pairs: no #proc line (not text records?)" ]; [ ! -e g.hb ]; }
@test "a run without a call: a #proc line is a graph" { printf '#proc\trank=0\tworld=1\tpid=7\thost="h"\tclock_base=1\n' > t.txt; run -0 --separate-stderr hb-build -q -o g.hb t.txt; [ -z "$stderr" ]; run -0 --separate-stderr hb-build -s g.hb; [ "${lines[0]}" = $'ranks\t1' ]; }
@test "a graph as input without -s or -d" { run -2 --separate-stderr hb-build "$F/small.hb"; [ -z "$output" ]; [ "$stderr" = "hb-build: $F/small.hb is a happens-before graph already (use -s or -d)" ]; }
@test "the graph is not written to a terminal" { run -2 --separate-stderr script -qec "hb-build $F/small.txt" /dev/null; [[ $output == *"hb-build: refusing to write binary data to a terminal (use -f to force)"* ]]; }

@test "hb-query --bogus" { run -2 --separate-stderr hb-query --bogus; [ -z "$output" ]; [ "${stderr_lines[-1]}" = "$QUSAGE" ]; }
@test "hb-query without a graph" { run -2 --separate-stderr hb-query; [ -z "$output" ]; [ "$stderr" = "$QUSAGE" ]; }
@test "hb-query with one record of a pair" { run -2 --separate-stderr hb-query "$F/small.hb" 0:1; [ -z "$output" ]; [ "$stderr" = "$QUSAGE" ]; }
@test "hb-query --batch with pairs" { run -2 --separate-stderr hb-query --batch "$F/small.hb" 0:1 1:2; [ -z "$output" ]; [ "$stderr" = "$QUSAGE" ]; }
@test "hb-query -h" { run -0 --separate-stderr hb-query -h; [ "$output" = "$QUSAGE" ]; [ -z "$stderr" ]; }
@test "hb-query, a bad record" { run -2 --separate-stderr hb-query "$F/small.hb" 0:1 1-2; [ -z "$output" ]; [ "$stderr" = "hb-query: bad record '1-2' (expected RANK:SEQ)" ]; }
@test "hb-query, a rank the graph does not have" { run -2 --separate-stderr hb-query "$F/small.hb" 0:1 7:2; [ -z "$output" ]; [ "$stderr" = "hb-query: no rank 7 in the graph (it has 3)" ]; }
@test "hb-query, a seq beyond the last record of its rank" { run -2 --separate-stderr hb-query "$F/small.hb" 0:1 1:2 0:1 1:7; [ "$output" = yes ]; [ "$stderr" = "hb-query: no record 7 of rank 1 in the graph (its last is 5)" ]; }
@test "hb-query, one beyond the last record is the end of the process" { run -0 --separate-stderr hb-query "$F/small.hb" 2:5 0:6 0:6 2:5 1:6 1:5; [ "$output" = "$(printf '%s\n' no no no)" ]; [ -z "$stderr" ]; }
@test "hb-query -r of all zeros (no run has it)" { run -2 --separate-stderr hb-query -r 0000000000000000 "$F/small.hb" 0:1 1:2; [ -z "$output" ]; [ "$stderr" = "hb-query: bad run id '0000000000000000' (all zeros names no run)" ]; }
@test "hb-query, a missing graph" { run -2 --separate-stderr hb-query nosuch.hb 0:1 1:2; [ -z "$output" ]; [ "$stderr" = "hb-query: nosuch.hb: No such file or directory" ]; }
@test "hb-query, a directory as the graph is named" { mkdir adir; run -2 --separate-stderr hb-query adir 0:1 1:2; [ -z "$output" ]; [ "$stderr" = "hb-query: adir: read error: Is a directory" ]; }

# ---- bad text input ---------------------------------------------------------

@test "a line with too few fields: its number" {
	{ head -n 2 "$F/small.txt"; tab 0 0 9 0.1 0.2 0 mpi; } > bad.txt
	run -2 --separate-stderr hb-build bad.txt
	[ -z "$output" ]
	[ "$stderr" = "hb-build: bad.txt: line 3: a record needs 9 fields, this one has 7" ]
}

@test "a bad seq, rank, depth; an empty line; a bad MPI argument" {
	for l in "$(tab 0 0 x 0.1 0.2 0 posix read 1)|bad seq 'x'" \
		 "$(tab q 0 9 0.1 0.2 0 posix read 1)|bad rank 'q'" \
		 "$(tab 0 0 9 0.1 0.2 -1 posix read 1)|bad depth '-1'" \
		 "|empty line" \
		 "$(tab 0 0 9 0.1 0.2 0 mpi MPI_Send 0 dest=one tag=1 comm=MPI_COMM_WORLD)|malformed argument of MPI_Send" \
		 "$(tab 0 0 9 0.1 0.2 0 mpi MPI_Waitall 0 count=1 'array_of_requests=[r1')|malformed argument of MPI_Waitall"; do
		printf '%s\n' "${l%|*}" > bad.txt
		run -2 --separate-stderr hb-build < bad.txt
		[ -z "$output" ]
		[ "$stderr" = "hb-build: standard input: line 1: ${l#*|}" ]
	done
}

@test "the same trace twice: two records with one seq" {
	cat "$F/small.txt" "$F/small.txt" > twice.txt
	run -2 --separate-stderr hb-build -o g.hb twice.txt
	[ -z "$output" ]
	[ "$stderr" = "hb-build: rank 0 has two records with seq 2" ]
	[ ! -e g.hb ]
}

@test "no input at all: not a trace (a run without a call has its #proc lines)" {
	run -2 --separate-stderr hb-build -s /dev/null
	[ -z "$output" ] && [ "$stderr" = "hb-build: /dev/null: empty input (no #proc line)" ]
}

# ---- the rules, on real runs -------------------------------------------------

@test "eager vs synchronous send (2 ranks)" {
	needmpi
	[ ! -s "$B/eager.err" ]
	answers eager <<-EOF
	0:A0 1:B1 yes	the send started before the receive returned
	1:A1 0:B0 no	a standard send may return before its receive is posted
	0:B0 1:B1 no	what follows the send is not before the receive's end
	1:B1 0:C0 yes	a synchronous send returns after its receive was posted
	0:B0 1:C1 yes	and started before it returned
	0:C0 1:C1 no	nothing after the last send
	EOF
	counts eager
	[ "$counted" = "nodes=4 extra=0 edges=3 problems=0" ]
	run -0 hb-build -s "$B/eager.hb"
	[ "$(stat edges.message)" = 2 ] && [ "$(stat edges.sync)" = 1 ]
}

@test "wildcard receives completed with MPI_STATUS_IGNORE by every completion call: all matched (3 ranks)" {
	needmpi
	# Recv, Wait, Test, Waitany, Testany, Waitall, Testall, Waitsome,
	# Testsome, Request_get_status, Sendrecv and a Waitall of two: the
	# tracer passes statuses of its own, so each is recorded and matched
	[ ! -s "$B/ignore.err" ]
	run -0 --separate-stderr hb-build -s "$B/ignore.hb"
	[ "$(stat messages)" = 26 ] && [ "$(stat edges.message)" = 26 ] && [ "$(stat problems)" = 0 ]
	# and the program saw MPI_STATUS_IGNORE: the records show what came
	[ "$(grep -c $'^0\t.*\tMPI_Waitall\t0\t.*array_of_statuses=\[{src:[12],tag:10[12]}' "$B/ignore.txt")" = 2 ]
	grep -q $'^0\t.*\tMPI_Waitsome\t0\t.*array_of_statuses=\[{src:[12],tag:10[12]}\]' "$B/ignore.txt"
}

@test "a wildcard receive racing two senders: matched from its status (3 ranks)" {
	needmpi
	local x y x2 y2
	x=$(awk -F'\t' '$1 == 0 && $8 == "MPI_Recv" && /\tsource=-2\t/ { sub(/.*status=\{src:/, ""); sub(/,.*/, ""); print; exit }' "$B/anysrc.txt")
	y=$((3 - x))
	x2=$(awk -F'\t' '$1 == 0 && $8 == "MPI_Wait" { sub(/.*status=\{src:/, ""); sub(/,.*/, ""); print; exit }' "$B/anysrc.txt")
	y2=$((3 - x2))
	[[ $x == [12] && $x2 == [12] ]]
	answers anysrc <<-EOF
	$x:A 0:B0 yes	the sender the first receive's status names
	$y:A 0:B0 no	the other one lost the race
	$y:A 0:C0 yes	and came second
	$x2:D 0:E0 yes	Irecv from MPI_ANY_SOURCE, source from the Wait's status
	$y2:D 0:E0 no
	$y2:D 0:F0 yes
	1:A 2:D yes	through rank 0
	EOF
	counts anysrc
	[ "$counted" = "nodes=12 extra=0 edges=6 problems=0" ]
}

@test "Waitany completes the second receive first (2 ranks)" {
	needmpi
	answers waitany <<-EOF
	1:C1 0:A0 yes	tag 2 came first: the first Waitany completed it
	1:D1 0:A0 no	tag 1 was sent after the first Waitany returned
	1:D1 0:B0 yes	the second Waitany completed it
	0:A0 1:D1 yes	the second go
	EOF
	counts waitany
	[ "$counted" = "nodes=8 extra=0 edges=4 problems=0" ]
}

@test "Ibcast: the root's start before each wait that completes it (4 ranks)" {
	needmpi
	answers ibcast <<-EOF
	0:A 1:C yes	root to the end of the Wait
	0:A 2:C yes
	0:A 3:C yes
	0:A 1:B no	not to the end of the Ibcast itself
	1:A 0:C no	a broadcast orders nothing toward its root
	1:A 2:C no	nor its other members
	2:B 3:C no
	EOF
	# the root's Ibcast and the others' Waits; 3 edges from the root
	counts ibcast
	[ "$counted" = "nodes=4 extra=0 edges=3 problems=0" ]
}

@test "split communicators: group ranks in world ranks; two dups of the world told apart (4 ranks)" {
	needmpi
	answers split <<-EOF
	2:A 0:B yes	dest=1 in [2,0] is world rank 0
	3:A 1:B yes	and in [3,1] world rank 1
	2:A 1:B no
	3:A 0:B no
	0:B 2:C yes	the barrier of the half [2,0]
	1:B 3:C yes	the barrier of [3,1]
	0:B 1:C no	the other half's barrier
	0:D 1:E yes	root 0 of the first dup
	0:D 3:E yes
	1:D 0:E yes	root 1 of the second, started first on odd ranks
	1:D 2:E yes
	2:D 3:E no
	3:D 0:E no
	EOF
	counts split
	[ "$counted" = "nodes=26 extra=5 edges=40 problems=0" ]
	run -0 hb-build -s "$B/split.hb"
	[ "$(stat communicators)" = 5 ]
}

@test "an intercommunicator: remote ranks, MPI_ROOT, each group before the other (4 ranks)" {
	needmpi
	answers inter <<-EOF
	0:A 3:B yes	remote rank 1 of the odd group is world 3
	0:A 1:B no
	2:B 1:C yes	the MPI_ROOT of the even group to the odd group
	2:B 3:C yes
	2:B 0:C no	world 0 passed MPI_PROC_NULL
	1:B 3:C no
	0:C 1:D yes	an intercommunicator Allreduce: each group before the other
	1:C 0:D yes
	0:C 2:D no	but not within a group
	1:C 3:D no
	EOF
	counts inter
	[ "$counted" = "nodes=17 extra=4 edges=27 problems=0" ]
}

@test "MPI_Comm_idup of an intercommunicator: its #comm line is read at the Wait, its Allreduce matches (4 ranks)" {
	needmpi
	grep -q $'^#comm\trank=0\tid=c3\tmembers=\\[0,2\\]\tremote=\\[1,3\\]$' "$B/idup.txt"
	grep -q $'^#comm\trank=3\tid=c3\tmembers=\\[1,3\\]\tremote=\\[0,2\\]$' "$B/idup.txt"
	grep -q $'\tMPI_Comm_idup\t0\tcomm=c2\tnewcomm=c3\trequest=r1\tdeferred=1$' "$B/idup.txt"
	answers idup <<-EOF
	0:A 1:B yes	an intercommunicator Allreduce: each group before the other
	1:A 2:B yes
	0:A 2:B no	but not within a group
	EOF
	counts idup
	[ "$counted" = "nodes=20 extra=5 edges=32 problems=0" ]
}

@test "a cancelled MPI_Irecv matches no send and is no problem (2 ranks)" {
	needmpi
	# the tracer records the cancelled status as the empty one
	grep -q $'\tMPI_Wait\t0\trequest=r1\tstatus={src:-1,tag:-1}$' "$B/cancel.txt"
	answers cancel <<-EOF
	1:A 0:B yes	the message of tag 5
	EOF
	counts cancel
	[ "$counted" = "nodes=2 extra=0 edges=1 problems=0" ]
	[ ! -s "$B/cancel.err" ]
}

@test "persistent requests: each Startall and Start posts anew (2 ranks)" {
	needmpi
	answers persist <<-EOF
	1:A0 0:B0 yes	the first Startall's send
	1:A1 0:B1 yes	the second one's
	1:A1 0:B0 no
	1:B0 0:B0 no
	0:C 1:D yes	MPI_Start of a persistent send
	1:C 0:D yes
	EOF
	counts persist
	[ "$counted" = "nodes=12 extra=0 edges=6 problems=0" ]
}

@test "Sendrecv and Sendrecv_replace around a ring: one hop per round (4 ranks)" {
	needmpi
	answers sendrecv <<-EOF
	3:A 0:B yes	the left neighbour's send
	0:A 1:B yes
	1:A 0:B no	the right one's goes elsewhere
	2:A 0:B no	a Sendrecv may send before it receives: no second hop
	2:A 0:C yes	two hops in two rounds
	1:A 0:C no
	EOF
	counts sendrecv
	[ "$counted" = "nodes=8 extra=0 edges=8 problems=0" ]
}

@test "collectives: rooted ones one way, unrooted ones all ways (4 ranks)" {
	needmpi
	answers coll <<-EOF
	0:M0 2:M1 yes	Reduce: every start before the root's end
	3:M0 2:M1 yes
	2:M0 0:M1 no	not the root's start before the others' ends
	0:M0 1:M1 no	nor one member before another
	3:M1 0:M2 yes	Scatter from rank 3
	3:M1 1:M2 yes
	0:M1 3:M2 no
	0:M1 1:M2 no
	0:M2 3:M3 yes	Allreduce: everyone before everyone
	3:M2 0:M3 yes
	1:M3 2:M4 yes	Barrier
	1:M4 0:M5 yes	Bcast from rank 1
	0:M4 2:M5 no
	2:M5 1:M6 yes	Alltoall
	EOF
	# 6 collectives of 4: the unrooted ones through one extra node each
	counts coll
	[ "$counted" = "nodes=24 extra=3 edges=33 problems=0" ]
	run -0 hb-build -s "$B/coll.hb"
	[ "$(stat edges.gather)" = 12 ] && [ "$(stat edges.release)" = 12 ]
	[ "$(stat edges.root)" = 6 ] && [ "$(stat edges.to-root)" = 3 ]
	[ "$(stat collectives)" = 6 ]
}

@test "Scan and Exscan: lower ranks before higher ones (4 ranks)" {
	needmpi
	answers scan <<-EOF
	0:M0 3:M1 yes	rank 0 before rank 3's end
	1:M0 2:M1 yes
	2:M0 1:M1 no	never a higher rank before a lower
	3:M0 0:M1 no
	0:M1 1:M2 yes	Exscan
	2:M1 3:M2 yes
	3:M1 2:M2 no
	1:M1 0:M2 no
	EOF
	counts scan
	[ "$counted" = "nodes=8 extra=8 edges=20 problems=0" ]
	run -0 hb-build -s "$B/scan.hb"
	[ "$(stat edges.prefix)" = 6 ]
}

@test "MPI-IO: collectives on a file; pwrite and pread inside MPI-IO calls (4 ranks)" {
	needmpi
	local t=$B/mpiio.txt w r k seqs
	# rank 0's pwrite inside its MPI_File_write_at, each rank's pread
	# inside its MPI_File_read_at, rank 1's pwrite inside its write_at_all
	nested() {	# RANK FUNC CHILD: seq of the CHILD record nested in FUNC
		awk -F'\t' -v r="$1" -v f="$2" -v c="$3" '
			$1 == r && $8 == f { p = $3 }
			$1 == r && $8 == c && $6 == 1 { s[$NF] = $3 }
			END { print s["parent=" p] }' "$t"
	}
	w=$(nested 0 MPI_File_write_at pwrite)
	[ -n "$w" ]
	{
		for k in 1 2 3; do
			r=$(nested $k MPI_File_read_at pread)
			[ -n "$r" ]
			echo "0:$w $k:$r yes	rank 0's write, synced, before every read"
			echo "$k:$r 0:$w no"
		done
		w=$(nested 1 MPI_File_write_at_all pwrite)
		[ -n "$w" ]
		# ROMIO gathers every rank's offsets (MPI_Allgather, recorded
		# through the tracer's PMPI_ entries, nested) before it writes
		[ -n "$(nested 1 MPI_File_write_at_all MPI_Allgather)" ]
		echo "0:C 1:$w yes	inside the collective, after ROMIO's Allgather"
		echo "0:B 1:$w yes	and the syncs before it"
		echo "1:$w 3:D no	nor its start ordered, by what follows it"
		echo "1:$w 3:E yes	but by the close"
	} > table
	answers mpiio < table
	counts mpiio
	[[ $counted == *" problems=0" ]]
	run -0 hb-build -s "$B/mpiio.hb"
	# ROMIO's communication is kept (none of it is "nested" away), on
	# MPI_COMM_WORLD and on the communicator it made for the file
	[ "$(stat files)" = 1 ] && [ "$(stat nested)" = 0 ] && [ "$(stat communicators)" = 2 ]
}

@test "every program's graph was built without a word on stderr" {
	needmpi
	for p in $PROGS; do
		[ -s "$B/$p.hb" ]
		[ ! -s "$B/$p.err" ] || { cat "$B/$p.err"; false; }
	done
}

# ---- problems: reported by kind and rank, never dropped -------------------------

@test "a receive removed: the send is unmatched, on stderr and in --stats" {
	needmpi
	awk -F'\t' '!($1 == 1 && $8 == "MPI_Recv" && /\ttag=2\t/)' "$B/eager.txt" > cut.txt
	run -0 --separate-stderr hb-build -o g.hb cut.txt
	[ -z "$output" ]
	s=$(awk -F'\t' '$1 == 0 && $8 == "MPI_Ssend" { print $3 }' cut.txt)
	[ "$stderr" = "hb-build: rank 0: unmatched-send: 1 call, the first MPI_Ssend at seq $s" ]
	run -0 --separate-stderr hb-build -s g.hb
	[ "$(stat problems)" = 1 ]
	[ "${lines[-1]}" = "$(tab problem unmatched-send rank=0 count=1 seq=$s func=MPI_Ssend)" ]
}

@test "a send removed: the receive is unmatched" {
	needmpi
	awk -F'\t' '!($1 == 0 && $8 == "MPI_Send")' "$B/eager.txt" > cut.txt
	run -0 --separate-stderr hb-build -q -s cut.txt
	s=$(awk -F'\t' '$1 == 1 && $8 == "MPI_Recv" { print $3; exit }' cut.txt)
	[ "${lines[-1]}" = "$(tab problem unmatched-receive rank=1 count=1 seq=$s func=MPI_Recv)" ]
}

@test "a rank's Finalize cut off: truncated; its last barrier unmatched for the others" {
	needmpi
	local last
	last=$(awk -F'\t' '$1 == 3 && $8 == "MPI_Alltoall" { print $3 }' "$B/coll.txt")
	awk -F'\t' -v l="$last" '!($1 == 3 && $3 >= l)' "$B/coll.txt" > cut.txt
	run -0 --separate-stderr hb-build -o g.hb cut.txt
	[[ $stderr == *"hb-build: rank 3: truncated: its records end without MPI_Finalize (last seq "* ]]
	for r in 0 1 2; do
		[[ $stderr == *"hb-build: rank $r: unmatched-collective: 1 call, the first MPI_Alltoall at seq "* ]]
	done
	run -0 --separate-stderr hb-build -s g.hb
	[ "$(stat problems)" = 4 ]
	[ "$(stat collectives)" = 5 ]
}

@test "a rank without records: missing, and its partners' calls unmatched" {
	needmpi
	awk -F'\t' '$1 != 1 && !($1 == "#proc" && $2 == "rank=1")' "$B/sendrecv.txt" > cut.txt
	run -0 --separate-stderr hb-build -s cut.txt
	[[ $stderr == *"hb-build: rank 1: missing-rank: no records"* ]]
	printf '%s\n' "$output" | grep -q "^$(tab problem missing-rank rank=1 count=1 seq=0 func=-)\$"
	printf '%s\n' "$output" | grep -q "^problem	unmatched-send	rank=0	count=2	"
	printf '%s\n' "$output" | grep -q "^problem	unmatched-receive	rank=2	count=2	"
}

@test "a wildcard receive whose status was not kept is reported, not guessed" {
	sed 's/status={src:0,tag:7}/status=-/' "$F/small.txt" > nost.txt
	run -0 --separate-stderr hb-build -s nost.txt
	[[ $stderr == *"hb-build: rank 1: unresolved-wildcard: 1 call, the first MPI_Recv at seq 1"* ]]
	[[ $stderr == *"hb-build: rank 0: unmatched-send: 1 call, the first MPI_Send at seq 2"* ]]
	[ "$(stat messages)" = 0 ]
}

@test "a cycle (two synchronous sends waiting for each other) is a broken trace" {
	{
		tab "#proc" rank=0 world=2 pid=1
		tab 0 0 0 0.1 0.2 0 mpi MPI_Ssend 0 dest=1 tag=1 comm=MPI_COMM_WORLD
		tab 0 0 1 0.3 0.4 0 mpi MPI_Recv 0 source=1 tag=1 comm=MPI_COMM_WORLD status=-
		tab 0 0 2 0.5 0.6 0 mpi MPI_Finalize 0
		tab "#proc" rank=1 world=2 pid=2
		tab 1 0 0 0.1 0.2 0 mpi MPI_Ssend 0 dest=0 tag=1 comm=MPI_COMM_WORLD
		tab 1 0 1 0.3 0.4 0 mpi MPI_Recv 0 source=0 tag=1 comm=MPI_COMM_WORLD status=-
		tab 1 0 2 0.5 0.6 0 mpi MPI_Finalize 0
	} > cycle.txt
	run -2 --separate-stderr hb-build -o g.hb cycle.txt
	[ -z "$output" ]
	[[ $stderr == "hb-build: broken trace: the happens-before graph has a cycle: rank "[01]" MPI_Ssend (seq 0) waits for rank "[01]" MPI_Ssend (seq 0)" ]]
	[ ! -e g.hb ]
}

@test "-q: problems stay in the graph, not on stderr" {
	sed 's/status={src:0,tag:7}/status=-/' "$F/small.txt" > nost.txt
	run -0 --separate-stderr hb-build -q -s nost.txt
	[ -z "$stderr" ]
	[ "$(stat problems)" = 2 ]
}

# ---- the format --------------------------------------------------------------------

@test "small.txt builds small.hb byte for byte (golden); its statistics" {
	run -0 --separate-stderr hb-build -o g.hb "$F/small.txt"
	[ -z "$output" ] && [ -z "$stderr" ]
	cmp g.hb "$F/small.hb"
	run -0 --separate-stderr hb-build -s "$F/small.hb"
	[ "$(stat ranks)" = 3 ] && [ "$(stat records)" = 18 ] && [ "$(stat mpi)" = 14 ]
	[ "$(stat nodes)" = 8 ] && [ "$(stat extra)" = 1 ] && [ "$(stat edges)" = 9 ]
	[ "$(stat edges.message)" = 1 ] && [ "$(stat edges.to-root)" = 2 ]
}

@test "statistics from the text and from the graph agree; standard input works" {
	run -0 --separate-stderr hb-build -s < "$F/small.txt"
	from_text=$output
	run -0 --separate-stderr hb-build -s - < "$F/small.hb"
	[ "$output" = "$from_text" ]
}

@test "small.hb answers: I/O records placed between nodes, nested ones inside theirs" {
	run -0 --separate-stderr hb-query "$F/small.hb" 0:1 1:2 1:2 0:6 2:0 0:5 2:1 0:5 0:5 2:3 1:2 1:3 1:3 1:2
	[ -z "$stderr" ]
	[ "$output" = "$(printf '%s\n' yes yes yes no no yes no)" ]
}

@test "--dot: a cluster per rank, the extra node, the edges with their kinds" {
	run -0 --separate-stderr hb-build -d "$F/small.hb"
	[ "${lines[0]}" = "digraph hb {" ] && [ "${lines[-1]}" = "}" ]
	[ "$(printf '%s\n' "$output" | grep -c 'subgraph cluster_')" = 3 ]
	printf '%s\n' "$output" | grep -qF 'n3 [label="MPI_Recv\nseq 1"];'
	printf '%s\n' "$output" | grep -qF 'n8 [shape=diamond, label="MPI_Barrier\nall"];'
	printf '%s\n' "$output" | grep -qF 'n0 -> n3 [label="message"];'
	[ "$(printf '%s\n' "$output" | grep -c 'label="gather"')" = 3 ]
}

# patch FILE OFFSET BYTE...: overwrite bytes (given as octal escapes)
patch() {
	local f=$1 off=$2
	shift 2
	printf "$(printf '\\%s' "$@")" | dd of="$f" bs=1 seek="$off" conv=notrunc status=none
}

# u64 FILE OFFSET: the le64 there
u64() {
	od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '
}

@test "damaged graphs: refused with the offset, never a crash" {
	local size edges seqs clock
	# the structure behind the CRC: the version 1 golden, which has none
	cp "$F/small-v1.hb" v1.hb
	size=$(wc -c < v1.hb)
	edges=$(u64 v1.hb $((64 + 6 * 24 + 8)))	# EDGETARGET's offset
	seqs=$(u64 v1.hb $((64 + 2 * 24 + 8)))	# NODESEQ's offset
	clock=$(u64 v1.hb $((64 + 8 * 24 + 8)))	# CLOCKNODE's offset
	check() {	# NAME MESSAGE: hb-query and hb-build refuse g.hb
		run -2 --separate-stderr hb-query g.hb 0:1 1:2
		[ -z "$output" ]
		[ "$stderr" = "hb-query: g.hb: $2" ] || { echo "$1: $stderr"; false; }
		[ "$1" = text ] && return	# hb-build reads it as text records
		run -2 --separate-stderr hb-build -s g.hb
		[ "$stderr" = "hb-build: g.hb: $2" ]
	}
	head -c 100 v1.hb > g.hb
	check truncated "at offset 100: file has 100 bytes, its header says $size (truncated)"
	head -c 40 v1.hb > g.hb
	check "short header" "at offset 40: truncated header"
	printf 'not a graph at all\n' > g.hb
	check text "not a happens-before graph (bad magic)"
	cp v1.hb g.hb; patch g.hb 8 003
	check version "at offset 8: unsupported version 3"
	cp v1.hb g.hb; printf x >> g.hb
	check longer "at offset 56: file has $((size + 1)) bytes, its header says $size"
	cp v1.hb g.hb; patch g.hb 31 377
	check nodes "at offset 24: the node count does not fit a file of $size bytes"
	cp v1.hb g.hb; patch g.hb $((64 + 8)) 377 377
	check outside "at offset 72: section 1 lies outside the file or overlaps another"
	cp v1.hb g.hb; patch g.hb $((64 + 24)) 143 000 000 000 001
	check unknown "at offset 88: unknown required section 99"
	cp v1.hb g.hb; patch g.hb $((64 + 24)) 001
	check twice "at offset 88: section 1 appears twice"
	cp v1.hb g.hb; patch g.hb "$edges" 377 377 377 377
	check target "at offset $edges: edge target 4294967295 out of range"
	cp v1.hb g.hb; patch g.hb $((seqs + 8)) 000 000
	check seq "at offset $((seqs + 8)): the seqs of rank 0 do not increase"
	cp v1.hb g.hb; patch g.hb "$clock" 007 000 000 000
	check vector "at offset $clock: vector 7 of node 0 out of range"
	cp v1.hb g.hb; patch g.hb $((64 + 2 * 24 + 16)) 010
	check length "at offset 128: section NODESEQ has 8 bytes, expected 64"
	# version 2: a byte changed anywhere, the CRC says so
	size=$(wc -c < "$F/small.hb")
	cp "$F/small.hb" g.hb; patch g.hb $((size - 20)) 377
	check crc "at offset $((size - 4)): checksum mismatch (the file is damaged)"
}

@test "every prefix of a graph is refused with a message, none crashes" {
	local n size
	size=$(wc -c < "$F/small.hb")
	for n in $(seq 0 7 "$((size - 1))"); do
		head -c "$n" "$F/small.hb" > g.hb
		run -2 --separate-stderr hb-query g.hb 0:1 1:2
		[ -z "$output" ]
		[[ $stderr == "hb-query: g.hb: "* ]]
	done
}

# ---- the index against a search of the graph ----------------------------------------------

@test "hb-gen, 2000 records at 6 ranks: the counts its loop implies" {
	"$GEN" -n 2000 -r 6 -s 3 > gen.txt
	run -0 --separate-stderr hb-build -o gen.hb gen.txt
	[ -z "$stderr" ]
	# 45 steps a rank: two Isends and a Waitall each (the Irecvs order
	# nothing), 11 Allreduce, 2 Bcast, 1 Barrier; 540 messages, 2 x 6
	# edges per unrooted collective, 5 per Bcast
	counts gen.hb
	[ "$counted" = "nodes=894 extra=12 edges=694 problems=0" ]
	run -0 hb-build -s gen.hb
	[ "$(stat records)" = 1986 ] && [ "$(stat messages)" = 540 ] && [ "$(stat collectives)" = 14 ]
}

@test "hb-gen: the index answers as a search of the graph does (400 questions)" {
	"$GEN" -n 2000 -r 6 -s 3 > gen.txt
	"$GEN" -n 2000 -r 6 -s 5 -q 400 > q.txt
	run -0 --separate-stderr hb-build -o gen.hb gen.txt
	run -0 --separate-stderr hb-query --batch gen.hb < q.txt
	printf '%s\n' "$output" > got.txt
	run -0 --separate-stderr hb-build -d gen.hb
	printf '%s\n' "$output" > gen.dot
	# breadth-first from the start of the first node after the first
	# record to the end of the last node before the second: a start leads
	# to its call's end and along its edges, an end to the next call's
	# start, an extra node along its edges (no call is nested here)
	cat > search.awk <<'EOF'
FNR == NR {
	if ($1 == "subgraph") { cur = substr($2, 9) + 0; next }
	if ($0 ~ /^\t}$/) { cur = -1; next }
	if ($1 ~ /^n[0-9]+$/ && $2 ~ /^\[/) {
		n = substr($1, 2) + 0
		if ($0 ~ /shape=diamond/) { extra[n] = 1; next }
		match($0, /seq [0-9]+/)
		seq[n] = substr($0, RSTART + 4, RLENGTH - 4) + 0
		rank[n] = cur
		call[n] = 1
		next
	}
	if ($2 == "->") {
		f = substr($1, 2) + 0
		t = $3; sub(/^n/, "", t); t += 0
		if ($0 ~ /dotted/) nxt[f] = t
		else out[f] = out[f] " " t
	}
	next
}
{
	split($0, p, /[ :]/)
	print ask(p[1] + 0, p[2] + 0, p[3] + 0, p[4] + 0)
}
function ask(a, i, b, j,   s, t, n, h, k, x, c, y, o, z, e, m, seen, q) {
	if (a == b)
		return i < j ? "yes" : "no"
	s = -1; t = -1
	for (n in call) {
		if (rank[n] == a && seq[n] > i && (s < 0 || seq[n] < seq[s])) s = n
		if (rank[n] == b && seq[n] < j && (t < 0 || seq[n] > seq[t])) t = n
	}
	if (s < 0 || t < 0)
		return "no"
	h = 1; k = 1; q[1] = "S" s; seen["S" s] = 1
	while (h <= k) {
		x = q[h++]; c = substr(x, 1, 1); y = substr(x, 2) + 0
		if (x == "E" t)
			return "yes"
		e = 0
		if (c == "S") m[++e] = "E" y
		if (c == "E" && (y in nxt)) m[++e] = "S" nxt[y]
		if (c != "E") {
			split(out[y], o, " ")
			for (z in o) m[++e] = (o[z] in extra ? "X" : "E") o[z]
		}
		for (z = 1; z <= e; z++)
			if (!(m[z] in seen)) { seen[m[z]] = 1; q[++k] = m[z] }
	}
	return "no"
}
EOF
	awk -f search.awk gen.dot q.txt > want.txt
	[ "$(wc -l < want.txt)" = 400 ]
	[ "$(grep -c yes want.txt)" -gt 50 ] && [ "$(grep -c no want.txt)" -gt 50 ]
	diff -u want.txt got.txt
}

@test "batch queries: one answer per line, at once; a bad line answers error" {
	printf '0:1 1:2\n1:2 0:6\nbogus\n2:0 9:1\n0:5\t2:3\n2:0 0:99\n' > q.txt
	run -2 --separate-stderr hb-query --batch "$F/small.hb" < q.txt
	[ "$output" = "$(printf '%s\n' yes yes 'error: not a question "RANK:SEQ RANK:SEQ"' \
		'error: no rank 9 in the graph (it has 3)' no \
		'error: no record 99 of rank 0 in the graph (its last is 6)')" ]
	[ "$stderr" = "$(printf '%s\n' 'hb-query: line 3: not a question "RANK:SEQ RANK:SEQ"' \
		'hb-query: line 4: no rank 9 in the graph (it has 3)' \
		'hb-query: line 6: no record 99 of rank 0 in the graph (its last is 6)')" ]
}

@test "batch queries answer each line before the next one is written (a coprocess)" {
	coproc Q { hb-query --batch "$F/small.hb"; }
	# bash unsets Q_PID once it reaps the coprocess, which it may do
	# before the wait below: keep the pid
	local pid=$Q_PID
	echo "0:1 1:2" >&"${Q[1]}"
	read -r -t 5 a <&"${Q[0]}"
	echo "0:5 2:3" >&"${Q[1]}"
	read -r -t 5 b <&"${Q[0]}"
	exec {Q[1]}>&-
	wait "$pid" 2>/dev/null || true	# (already reaped: nothing to wait for)
	[ "$a" = yes ] && [ "$b" = no ]
}

@test "a process without a rank (p4242) is ordered with nothing; without a batch, no input is read" {
	run -0 --separate-stderr hb-query "$F/small.hb" p4242:1 0:5 0:1 p4242:9 < /dev/null
	[ "$output" = "$(printf '%s\n' no no)" ]
}

@test "a vector spread over more than 65535 nodes is stored wide and answers right" {
	# ranks 0 and 1 play 40000 rounds of ping-pong; rank 3 sent to rank 2
	# at the start, rank 1 sends to rank 2 at the end: rank 2's vector
	# then holds node 0 of rank 3 and node 79999 of rank 0
	awk -v n=40000 'function rec(r, s, f, a) {
		printf "%d\t0\t%d\t0.1\t0.2\t0\t%s\t%s\t%s\n", r, s, f == "pwrite" ? "posix" : "mpi", f,
			f == "pwrite" ? "4\tfd=3" : "0" (a == "" ? "" : "\t" a) }
	BEGIN {
		c = "comm=MPI_COMM_WORLD"
		for (r = 0; r < 4; r++) { print "#proc\trank=" r "\tworld=4\tpid=" 10 + r; rec(r, 0, "MPI_Init") }
		for (i = 1; i <= n; i++) {
			rec(0, 2 * i - 1, "MPI_Send", "dest=1\ttag=1\t" c)
			rec(0, 2 * i, "MPI_Recv", "source=1\ttag=2\t" c "\tstatus=-")
			rec(1, 2 * i - 1, "MPI_Recv", "source=0\ttag=1\t" c "\tstatus=-")
			rec(1, 2 * i, "MPI_Send", "dest=0\ttag=2\t" c)
		}
		rec(0, 2 * n + 1, "pwrite"); rec(0, 2 * n + 2, "MPI_Finalize")
		rec(1, 2 * n + 1, "MPI_Send", "dest=2\ttag=3\t" c); rec(1, 2 * n + 2, "MPI_Finalize")
		rec(2, 1, "MPI_Recv", "source=3\ttag=4\t" c "\tstatus=-")
		rec(2, 2, "MPI_Recv", "source=1\ttag=3\t" c "\tstatus=-")
		rec(2, 3, "pwrite"); rec(2, 4, "MPI_Finalize")
		rec(3, 1, "pwrite"); rec(3, 2, "MPI_Send", "dest=2\ttag=4\t" c); rec(3, 3, "MPI_Finalize")
	}' > wide.txt
	run -0 --separate-stderr hb-build -o wide.hb wide.txt
	[ -z "$stderr" ]
	run -0 --separate-stderr hb-build -s wide.hb
	[ "$(stat nodes)" = 160004 ] && [ "$(stat vectors.wide)" -ge 1 ] && [ "$(stat problems)" = 0 ]
	run -0 --separate-stderr hb-query wide.hb 3:1 2:3 0:79998 2:3 0:79999 2:3 1:80000 2:3 \
		1:80001 2:3 3:1 2:2 3:1 2:1 0:1 2:2 0:1 2:3
	[ "$output" = "$(printf '%s\n' yes yes no yes no yes no no yes)" ]
}

@test "MPI calls nested in an MPI call are part of it, but the communication inside an MPI-IO call; those nested in an HDF5 call are nodes" {
	# each rank: MPI_File_open making an MPI_Allreduce (ROMIO's, through
	# PMPI_), then H5Dwrite making MPI_File_write_at_all making a pwrite
	# (seq 5), then an MPI_Allreduce with an MPI_Barrier recorded inside
	# it (TANGRAM_NESTED=1: part of it)
	for r in 0 1; do
		tab "#proc" rank=$r world=2 pid=$((20 + r))
		tab $r 0 0 0.1 0.2 0 mpi MPI_Init 0
		tab $r 0 2 0.1 0.2 1 mpi MPI_Allreduce 0 count=1 comm=MPI_COMM_WORLD parent=1
		tab $r 0 1 0.1 0.2 0 mpiio MPI_File_open 0 comm=MPI_COMM_WORLD 'filename="f"' fh=f1
		tab $r 0 5 0.1 0.2 2 posix pwrite 4 fd=3 parent=4
		tab $r 0 4 0.1 0.2 1 mpiio MPI_File_write_at_all 0 fh=f1 offset=0 parent=3
		tab $r 0 3 0.1 0.2 0 hdf5 H5Dwrite 0 dset_id=d1
		tab $r 0 8 0.1 0.2 1 mpi MPI_Barrier 0 comm=MPI_COMM_WORLD parent=7
		tab $r 0 7 0.1 0.2 0 mpi MPI_Allreduce 0 count=1 comm=MPI_COMM_WORLD
		tab $r 0 9 0.1 0.2 0 mpi MPI_Finalize 0
	done > nest.txt
	run -0 --separate-stderr hb-build -o nest.hb nest.txt
	[ -z "$stderr" ]
	run -0 hb-build -s nest.hb
	[ "$(stat nested)" = 2 ] && [ "$(stat collectives)" = 4 ] && [ "$(stat files)" = 1 ]
	counts nest.hb
	# the file collectives order nothing of their own (ROMIO's messages
	# are in the trace): the Allreduces' hubs only; the calls with
	# communication nested in them are kept as nodes
	[ "$counted" = "nodes=8 extra=2 edges=8 problems=0" ]
	# the pwrite is inside the collective write: only its open is before
	# it; the open's Allreduce is inside the open: the open's end is after
	# it, and rank 0's open did not return before rank 1's Allreduce began
	# or before rank 1's H5Dwrite; the Allreduce returned before the
	# other rank's Finalize, the open too, but not before the other
	# rank's next call (the collective write orders nothing); the Barrier
	# inside the last Allreduce orders nothing of its own
	run -0 --separate-stderr hb-query nest.hb 1:0 0:5 1:2 0:5 1:2 0:6 0:5 1:6 0:5 1:5 \
		0:1 1:2 0:1 1:3 1:0 0:3 0:2 1:9 0:1 1:9 0:7 1:8 0:8 1:9
	[ "$output" = "$(printf '%s\n' yes no no no no no no yes yes yes no no)" ]
}

@test "a file collective orders nothing of its own where the library's messages inside MPI-IO calls are in the trace (two MPI_File_sync, no barrier); where none is (Open MPI's OMPIO), it stands for them" {
	# rank 0 writes, both sync twice, rank 1 reads: the open makes an
	# MPI_Bcast inside it (ROMIO's), the syncs none (ROMIO's sends nothing)
	for r in 0 1; do
		tab "#proc" rank=$r world=2 pid=$((20 + r))
		tab $r 0 0 0.1 0.2 0 mpi MPI_Init 0
		tab $r 0 2 0.1 0.2 1 mpi MPI_Bcast 0 count=1 root=0 comm=MPI_COMM_WORLD parent=1
		tab $r 0 1 0.1 0.2 0 mpiio MPI_File_open 0 comm=MPI_COMM_WORLD 'filename="f"' fh=f1
		tab $r 0 3 0.1 0.2 0 mpiio MPI_File_write_at 0 fh=f1 offset=0
		tab $r 0 4 0.1 0.2 0 mpiio MPI_File_sync 0 fh=f1
		tab $r 0 5 0.1 0.2 0 mpiio MPI_File_sync 0 fh=f1
		tab $r 0 6 0.1 0.2 0 mpiio MPI_File_read_at 0 fh=f1 offset=0
		tab $r 0 7 0.1 0.2 0 mpi MPI_Finalize 0
	done > sync.txt
	run -0 --separate-stderr hb-build -o sync.hb sync.txt
	[ -z "$stderr" ]
	run -0 --separate-stderr hb-query sync.hb 0:3 1:6 0:4 1:5 0:4 1:6 0:0 1:3
	[ "$output" = "$(printf '%s\n' no no no yes)" ]
	# the same run without the Bcast inside the open: nothing shows the
	# library's messages, and the first sync's start is before the end of
	# every rank's
	grep -v MPI_Bcast sync.txt > hidden.txt
	run -0 --separate-stderr hb-build -o hidden.hb hidden.txt
	[ -z "$stderr" ]
	run -0 --separate-stderr hb-query hidden.hb 0:3 1:6 0:4 1:5 0:0 1:3
	[ "$output" = "$(printf '%s\n' yes no yes)" ]
	# -m, what MPI promises (the MPI-IO layer of verify-io): neither the
	# Bcast ROMIO made inside the open nor any file collective orders
	for t in sync hidden; do
		run -0 --separate-stderr hb-build -m -o "$t-m.hb" "$t.txt"
		run -0 --separate-stderr hb-query "$t-m.hb" 0:3 1:6 0:0 1:3 0:0 1:7
		[ "$output" = "$(printf '%s\n' no no no)" ]
	done
	run -0 hb-build -s sync-m.hb
	[ "$(stat nested)" = 2 ]
}

@test "batch mode does not take the graph from standard input" {
	run -2 --separate-stderr hb-query --batch - < "$F/small.hb"
	[ -z "$output" ]
	[ "$stderr" = "hb-query: in batch mode the graph must be a file, not standard input" ]
}

@test "a stream that learns its rank late: p<pid> records, then #rank" {
	# rank 0 as a pipe would give it: no rank in #proc, its first records
	# under its process id until the #rank line
	awk -F'\t' -v OFS='\t' '
		$1 == "#proc" && $2 == "rank=0" { $2 = "rank=p100"; print; next }
		$1 == "0" && $3 <= 1 { $1 = "p100"; print; if ($3 == 1) print "#rank", "pid=100", "rank=0", "world=3"; next }
		{ print }' "$F/small.txt" > late.txt
	grep -q '^p100' late.txt
	run -0 --separate-stderr hb-build -o late.hb late.txt
	[ -z "$stderr" ]
	cmp late.hb "$F/small.hb"
}

@test "one-sided: a put orders its origin's past before its target's closing fence, a get its target's before the opening fence; a fence alone orders nothing (3 ranks)" {
	needmpi
	answers onesided <<-EOF
	0:W 1:R yes	rank 0's put to rank 1 ends at rank 1's second fence
	2:W 0:R yes
	1:W 0:R no	rank 1 puts to rank 2, not to rank 0
	1:W 0:B yes	rank 0's get from rank 1 reads what rank 1 did before the second fence
	1:A 0:B no	but not what it did after it
	0:B 1:C no	the fourth fence closes an epoch without operations
	0:C 1:Y no	a put under MPI_Win_lock with MPI_MODE_NOCHECK: no edge
	EOF
	run -0 hb-build -s "$B/onesided.hb"
	# per rank: a put and a get
	[ "$(stat edges.rma)" = 6 ] && [ "$(stat edges.release)" = 0 ]
}

# passive-target operations order by what they read, as the run's times
# tell (hb-build(1)): onesided's MPI_MODE_NOCHECK epoch only puts, which
# nobody reads, so it orders nothing, and says nothing; with times rebuilt
# from means the epoch is a problem, said once per rank, and by verify-io
# once for the run, with the pairs it would order left unsynchronized
# rather than silently taken as a race
@test "MPI_Win_lock with MPI_MODE_NOCHECK: puts nobody reads order nothing; with times rebuilt from means a one-sided problem per rank, and verify-io says the pairs only such calls order are counted unsynchronized" {
	needmpi
	trace-merge -q -o a.cfg "$B/w-onesided/t"/*.rec
	trace-decode a.cfg > atext
	run -0 --separate-stderr hb-build -o a.hb atext
	[ "$(grep -c ': one-sided: 3 calls, the first MPI_Win_lock at seq ' <<<"$stderr")" -eq 3 ]
	run -0 --separate-stderr hb-build -s a.hb
	[ "$(grep -c $'^problem\tone-sided\trank=[0-2]\tcount=3\tseq=[0-9]*\tfunc=MPI_Win_lock$' <<<"$output")" -eq 3 ]
	run -1 --separate-stderr "$TG_TOP/pipelines/verify-io" a.cfg
	[[ $stderr == *"verify-io: one-sided on 3 ranks (rank "*": 3 calls, the first MPI_Win_lock at seq "*"): the accesses only those calls order are counted as not synchronized"* ]]
	run -1 --separate-stderr "$TG_TOP/pipelines/verify-io" "$B/w-onesided/t"
	! grep -q one-sided <<<"$stderr" || false
	[[ $output == *"POSIX layer: recommended consistency: posix"* ]]
	printf '%s\n' "$output" | grep -Eq '^commit +/.*/rma.dat +0 +0 +0 +6$'
	printf '%s\n' "$output" | grep -Eq '^session +/.*/rma.dat +3 +0 +0 +(6|7|8|9|10|11|12)$'
	trace-decode "$B/w-onesided/t"/*.rec > text
	hb-build -o g.hb text 2>/dev/null
	overlap-find --all-pairs text > all
	run -1 --separate-stderr conflict-check --hb g.hb --model all --fail-on-unsynchronized all
	printf '%s\n' "$output" | grep -Eq '^session +/.*/rma.dat +3 +0 +0 +12$'
}
