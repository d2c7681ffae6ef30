#!/usr/bin/env bats
# POSIX AIO (issue 16): aio_read, aio_write, aio_return, aio_suspend and
# lio_listio are traced with the aiocb's descriptor, offset and size and a
# symbolic id of the aiocb, and overlap-find places their bytes at the
# submission, as many as aio_return says moved.  ROMIO does nonblocking
# MPI-IO through them, so MPI_File_iwrite_at's bytes reach the POSIX layer.

bats_require_minimum_version 1.5.0

setup() {
	cd "$BATS_TEST_TMPDIR"
	SHIM=$TG_TOP/lib/libtangram.so
}

# accesses FILE: "file op func start end" for each access line of FILE
# (overlap-find -a output), the file by its base name
accesses() {
	awk -F'\t' '
		$1 == "#file" { p = $3; sub(/^path="/, "", p); sub(/"$/, "", p); n = split(p, x, "/"); path[$2] = x[n] }
		$1 == "access" { print path["file=" $2], $7, $8, $9, $10 }' "$1"
}

@test "aio_write, aio_read and lio_listio are recorded with the aiocb's descriptor, offset, size and id" {
	TANGRAM_DIR=t LD_PRELOAD=$SHIM run -0 "$TG_TOP/build/apps/aio"
	run -0 trace-decode t/*.rec
	echo "$output" > text
	# the descriptor as F, the lio_listio a request was made in as L
	awk -F'\t' '$8 == "open" { fd = $9 } $8 == "lio_listio" { lio = $3 }
		$8 ~ /^(aio_|lio_)/ && $8 != "aio_error" && $8 != "aio_suspend" {
		s = $8 " " $9
		for (i = 10; i <= NF; i++) {
			if ($i == "fildes=" fd) $i = "fildes=F"
			if ($i == "parent=" lio) $i = "parent=L"
			s = s " " $i
		}
		print s }' text > got
	cat > want <<-'EOF'
	aio_write 0 cb=b1 fildes=F offset=10 nbytes=40
	aio_return 40 cb=b1 fildes=F offset=10 nbytes=40
	aio_read 0 cb=b2 fildes=F offset=20 nbytes=10
	aio_return 10 cb=b2 fildes=F offset=20 nbytes=10
	aio_read 0 cb=b3 fildes=F offset=40 nbytes=30
	aio_return 10 cb=b3 fildes=F offset=40 nbytes=30
	lio_listio 0 mode=0 nent=3
	aio_write 0 cb=b4 fildes=F offset=100 nbytes=5 parent=L
	aio_write 0 cb=b5 fildes=F offset=200 nbytes=5 parent=L
	aio_read 0 cb=b6 fildes=F offset=0 nbytes=8 parent=L
	EOF
	diff want got
	grep -q $'\taio_suspend\t0\tnent=1$' text
}

@test "overlap-find places AIO bytes at the submission with aio_return's count (a read that met the end of the file all it asked), and lio_listio's whole" {
	TANGRAM_DIR=t LD_PRELOAD=$SHIM run -0 "$TG_TOP/build/apps/aio"
	trace-decode t/*.rec > text
	run -0 overlap-find -a text
	echo "$output" > of.out
	accesses of.out | sort -k4n > got
	cat > want <<-'EOF'
	f R aio_read 0 8
	f W aio_write 10 50
	f R aio_read 20 30
	f R aio_read 40 70
	f W aio_write 100 105
	f W aio_write 200 205
	EOF
	diff want got
	# the reads of what aio_write wrote, at the submissions' seqs
	[ "$(grep -c '^pair' of.out)" -eq 2 ]
	grep -q $'^pair\t0\t[^\t]*\t1\t.*\tW\taio_write\t10\t50\t.*\tR\taio_read\t20\t30$' of.out
}

@test "MPI_File_iwrite_at and MPI_File_iread_at: ROMIO's aio_write and aio_read place every byte at the POSIX layer" {
	command -v mpicc.mpich >/dev/null || skip "mpicc.mpich is missing"
	mpicc.mpich -O2 -Wall -o iwrite "$TG_TOP/tests/mpi/iwrite.c"
	run -0 timeout 120 trace-run -o t -- mpirun.mpich -n 2 ./iwrite "$PWD/iw.dat"
	run -0 trace-decode t/rank-0.rec t/rank-1.rec
	echo "$output" > text
	# ROMIO submitted through aio_write inside MPI_File_iwrite_at
	awk -F'\t' '$8 == "MPI_File_iwrite_at" { print $3 }' text > iw
	[ "$(wc -l < iw)" -eq 2 ]
	grep -q $'\taio_write\t0\tcb=b[0-9]*\tfildes=[0-9]*\toffset=64\tnbytes=64\tparent=' text
	grep -q $'\taio_return\t64\tcb=b' text
	run -0 overlap-find -a text
	echo "$output" > of.out
	accesses of.out | grep '^iw.dat' | sort -k4n -k2 > got
	cat > want <<-'EOF'
	iw.dat R aio_read 0 64
	iw.dat W aio_write 0 64
	iw.dat R aio_read 64 128
	iw.dat W aio_write 64 128
	EOF
	diff want got
	# each rank's read of the other's write is a pair between processes
	[ "$(awk -F'\t' '$1 == "pair" && $3 != $11' of.out | wc -l)" -eq 2 ]
	# ROMIO's MPI_File_sync after a nonblocking write makes no fsync: the
	# POSIX layer has no commit between the write and the other's read
	# (TangramFS's commit model does read stale bytes there, tfs.bats);
	# under MPI-IO's rules sync-barrier-sync orders them
	[ "$(awk -F'\t' '$8 == "fsync" || $8 == "fdatasync"' text | wc -l)" -eq 0 ]
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" t
	[[ $output == *"POSIX layer: recommended consistency: posix"* ]]
	[[ $output == *"MPI-IO layer: recommended consistency: mpiio"* ]]
}

# POSIX: aio_error returning anything but EINPROGRESS says the request is
# done; an aio_fsync commits when its request is done, not when it is
# submitted.  Rank 0 writes 4096 bytes with aio_write, waits, asks
# aio_error (0: done), never calls aio_return, a barrier, rank 1 reads:
# posix (it was a race: the request lasted to the process's end).  Then
# an aio_fsync whose aio_error still says EINPROGRESS at the barrier does
# not make it commit; one done before it does.
@test "aio_error done (not EINPROGRESS) completes a request; aio_fsync commits when it is done" {
	proc() { printf '#proc\trank=%s\tworld=2\tpid=10%s\tppid=1\thost="h"\tcwd="/w"\tclock_base=1700000000000000000\targv="./a"\n' $1 $1; }
	line() { printf '%s\t0\t%s\t0.%09d\t0.%09d\t0\t%s\n' "$1" "$2" $(($2 * 1000)) $(($2 * 1000 + 500)) "$3"; }
	for c in noreturn fsync-late fsync-done; do
		{
			proc 0
			line 0 0 $'mpi\tMPI_Init\t0'
			line 0 1 $'posix\topen\t3\tpath="/w/f"\tflags=O_RDWR|O_CREAT\tmode=0644'
			line 0 2 $'posix\taio_write\t0\tcb=b1\tfildes=3\toffset=0\tnbytes=4096'
			line 0 3 $'posix\taio_error\t0\tcb=b1\tfildes=3\toffset=0\tnbytes=4096'
			case $c in
			fsync-late)
				line 0 4 $'posix\taio_fsync\t0\top=0x1000\tcb=b2\tfildes=3\toffset=0\tnbytes=0'
				line 0 5 $'posix\taio_error\t115\tcb=b2\tfildes=3\toffset=0\tnbytes=0';;
			fsync-done)
				line 0 4 $'posix\taio_fsync\t0\top=0x1000\tcb=b2\tfildes=3\toffset=0\tnbytes=0'
				line 0 5 $'posix\taio_error\t0\tcb=b2\tfildes=3\toffset=0\tnbytes=0';;
			esac
			line 0 6 $'mpi\tMPI_Barrier\t0\tcomm=MPI_COMM_WORLD'
			line 0 7 $'posix\taio_error\t0\tcb=b2\tfildes=3\toffset=0\tnbytes=0'
			line 0 8 $'mpi\tMPI_Finalize\t0'
			proc 1
			line 1 0 $'mpi\tMPI_Init\t0'
			line 1 6 $'mpi\tMPI_Barrier\t0\tcomm=MPI_COMM_WORLD'
			line 1 7 $'posix\topen\t3\tpath="/w/f"\tflags=O_RDONLY\tmode=0'
			line 1 8 $'posix\tread\t4096\tfd=3\tbuf=b1\tcount=4096'
			line 1 9 $'mpi\tMPI_Finalize\t0'
		} > $c.txt
		run -0 --separate-stderr hb-build -o $c.hb $c.txt
		overlap-find $c.txt > $c.pairs
		run -0 --separate-stderr conflict-check --hb $c.hb --recommend --fail-on-unsynchronized $c.pairs
		printf '%s\n' "$output" > $c.out
	done
	[ "$(cat noreturn.out)" = posix ]
	[ "$(cat fsync-late.out)" = posix ]
	[ "$(cat fsync-done.out)" = commit ]
}

# lio_listio(LIO_WAIT) returns when every request of its list is done:
# without aio_return, a read after the barrier is ordered (posix; it was
# a race, the requests lasting to the process's end).  LIO_NOWAIT (1):
# still a race.
@test "lio_listio(LIO_WAIT): its requests are done when it returns" {
	proc() { printf '#proc\trank=%s\tworld=2\tpid=10%s\tppid=1\thost="h"\tcwd="/w"\tclock_base=1700000000000000000\targv="./a"\n' $1 $1; }
	line() { printf '%s\t0\t%s\t0.%09d\t0.%09d\t%s\t%s\n' "$1" "$2" $(($2 * 1000)) $(($2 * 1000 + 500)) "$3" "$4"; }
	for mode in 0 1; do
		{
			proc 0
			line 0 0 0 $'mpi\tMPI_Init\t0'
			line 0 1 0 $'posix\topen\t3\tpath="/w/f"\tflags=O_RDWR|O_CREAT\tmode=0644'
			line 0 3 1 $'posix\taio_write\t0\tcb=b1\tfildes=3\toffset=0\tnbytes=100\tparent=2'
			line 0 4 1 $'posix\taio_write\t0\tcb=b2\tfildes=3\toffset=100\tnbytes=100\tparent=2'
			line 0 2 0 "posix"$'\t'"lio_listio"$'\t0\t'"mode=$mode"$'\tnent=2'
			line 0 6 0 $'mpi\tMPI_Barrier\t0\tcomm=MPI_COMM_WORLD'
			line 0 8 0 $'mpi\tMPI_Finalize\t0'
			proc 1
			line 1 0 0 $'mpi\tMPI_Init\t0'
			line 1 6 0 $'mpi\tMPI_Barrier\t0\tcomm=MPI_COMM_WORLD'
			line 1 7 0 $'posix\topen\t3\tpath="/w/f"\tflags=O_RDONLY\tmode=0'
			line 1 8 0 $'posix\tread\t200\tfd=3\tbuf=b1\tcount=200'
			line 1 9 0 $'mpi\tMPI_Finalize\t0'
		} > lio$mode.txt
		run -0 --separate-stderr hb-build -o lio$mode.hb lio$mode.txt
		overlap-find lio$mode.txt > lio$mode.pairs
		run --separate-stderr conflict-check --hb lio$mode.hb --recommend --fail-on-unsynchronized lio$mode.pairs
		printf '%s\n' "$status" "$output" > lio$mode.out
	done
	[ "$(cat lio0.out)" = $'0\nposix' ]
	[ "$(cat lio1.out)" = $'1\nposix' ]
}
