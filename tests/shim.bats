#!/usr/bin/env bats
# The tracer, lib/libtangram.so (libtangram(7)), run under real programs:
# standard tools whose results must not change, then the small programs of
# tests/apps (built by `make test-apps` into build/apps) whose records are
# asserted field by field, then processes that fork, exec, crash or are
# killed, then the sinks, the warnings when a trace cannot be written, and
# the environment variables.
#
# Records are compared as "layer func ret arg=value ..." lines: the decoded
# text (tangram-text(5)) without rank, tid, seq, times and depth, tabs
# turned into spaces.

bats_require_minimum_version 1.5.0

setup() {
	T=$BATS_TEST_TMPDIR/w	# bats keeps files of its own in BATS_TEST_TMPDIR
	SHIM=$TG_TOP/lib/libtangram.so
	APPS=$TG_TOP/build/apps
	unset TANGRAM_DIR TANGRAM_SINK TANGRAM_LAYERS TANGRAM_EXCLUDE \
		TANGRAM_FLUSH TANGRAM_NESTED TANGRAM_SKIP TANGRAM_OFF
	ulimit -c 0
	mkdir "$T"
	cd "$T"
}

teardown() {
	rm -f "/dev/shm/tangram-test.$$.${BATS_TEST_NUMBER:-0}"
}

# Close every descriptor but 0, 1 and 2 (bats keeps some open), so that
# the programs run here get the same descriptor numbers everywhere.
only_012() {
	local f

	for f in /proc/self/fd/*; do
		f=${f##*/}
		if [ "$f" -gt 2 ]; then
			eval "exec $f>&-"
		fi
	done
}

# Run "$@" under the tracer; TANGRAM_DIR defaults to $T/trace.
traced() (
	only_012
	TANGRAM_DIR=${TANGRAM_DIR:-$T/trace} LD_PRELOAD=$SHIM exec "$@"
)

# Run "$@" untraced in plain/ and traced in traced/, both starting as a
# copy of in/, with standard output and error in plain.out, plain.err,
# traced.out, traced.err; then the exit status, both outputs and every
# file the command left must be the same, byte for byte.
same_as_untraced() {
	local d rc_plain=0 rc_traced=0

	mkdir -p in
	for d in plain traced; do
		mkdir "$d"
		cp -a in/. "$d"/
	done
	(only_012; cd plain && exec "$@" >../plain.out 2>../plain.err) || rc_plain=$?
	(only_012; cd traced && TANGRAM_DIR=$T/trace LD_PRELOAD=$SHIM exec "$@" \
		>../traced.out 2>../traced.err) || rc_traced=$?
	[ "$rc_plain" -eq "$rc_traced" ]
	cmp plain.out traced.out
	cmp plain.err traced.err
	diff -r plain traced
}

# The call records of the decoded trace in $output, as table rows
# "layer func ret arg=value ... [errno=E] [parent=N]".
calls() {
	printf '%s\n' "$output" | grep -v '^#' | cut -f7- | tr '\t' ' '
}

# def_field TAG NAME: the value of NAME= on the first line of $output that
# begins with TAG and a tab (the #proc or #excluded line).
def_field() {
	printf '%s\n' "$output" | grep "^$1	" | head -n 1 | tr '\t' '\n' |
		sed -n "s/^$2=//p"
}

# Fail, showing both, unless files want and got are the same.
same() {
	diff -u want got
}

# Fail, showing them, if lines of file got match the extended regex $1.
none() {
	if grep -E -- "$1" got; then
		return 1
	fi
}

# Decode the streams named into $output: exit 0 and nothing on stderr.
decode_all() {
	run -0 --separate-stderr trace-decode "$@"
	[ -z "$stderr" ]
}

# decode_torn FILE: a stream whose writer was killed: its records, then one
# line saying that the last ones have no checksum, exit 2 (tangram-rec(5))
decode_torn() {
	run -2 --separate-stderr trace-decode "$1"
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "trace-decode: $1: torn tail: "*" call records have no checksum, the first at byte "*" (the writer did not finish)" ]]
}

# ---- standard tools: results unchanged, the expected calls recorded -----

@test "true: same results, and a trace with its #proc line only" {
	same_as_untraced "$(type -P true)"
	decode_all trace/*.rec
	[ "${#lines[@]}" -eq 1 ]
	[[ ${lines[0]} == '#proc	'* ]]
}

@test "ls -l: same results; the directory listed is opened by absolute path" {
	mkdir -p in/dir
	printf 'one\n' > in/dir/a
	printf 'two\n' > in/dir/b
	touch -d '2020-01-02 03:04:05' in/dir/a in/dir/b
	same_as_untraced ls -l dir
	decode_all trace/*.rec
	calls > got
	grep -F "posix opendir d0 path=\"$T/traced/dir\"" got
	grep -E "^posix (statx|lstat|fstatat)(64)? 0 .*path=\"$T/traced/dir/a\"" got
}

@test "cp: same results; the source and the destination opened by absolute path" {
	mkdir in
	printf 'some data\n' > in/src
	same_as_untraced cp src dst
	cmp traced/src traced/dst
	decode_all trace/*.rec
	calls > got
	grep -E "^posix open(at)?(64)? [0-9]+ (dirfd=AT_FDCWD )?path=\"$T/traced/src\" flags=O_RDONLY mode=0\$" got
	grep -E "^posix open(at)?(64)? [0-9]+ (dirfd=AT_FDCWD )?path=\"$T/traced/dst\" flags=O_WRONLY\|O_CREAT\|O_EXCL mode=0644\$" got
}

@test "tar: same archive and same extracted tree; the files read and written" {
	mkdir -p in/src
	printf 'aaa\n' > in/src/a
	printf 'bbbb\n' > in/src/b
	touch -d '2020-01-02 03:04:05' in/src/a in/src/b in/src
	same_as_untraced sh -c 'tar -cf a.tar src && mkdir x && tar -xf a.tar -C x'
	cmp traced/src/a traced/x/src/a
	decode_all trace/*.rec
	calls > got
	grep -E "^posix (creat|open(at)?)(64)? 3 .*path=\"$T/traced/a.tar\"" got
	grep -E "^posix write 10240 fd=3 buf=b[0-9]+ count=10240\$" got
	grep -E "^posix read 4 fd=[0-9]+ buf=b[0-9]+ count=" got
	grep -E "^posix open(at)?(64)? [0-9]+ .*path=\"$T/traced/x/src/b\" flags=O_WRONLY\|O_CREAT\|O_EXCL" got
	grep -E "^posix write 5 fd=[0-9]+ buf=b[0-9]+ count=5\$" got
}

@test "dd from /dev/zero: same results; eight writes of 4096 bytes, /dev left out" {
	# status=noxfer: dd's usual last line holds a rate, different each run
	same_as_untraced dd if=/dev/zero of=file bs=4k count=8 status=noxfer
	[ "$(stat -c %s traced/file)" -eq 32768 ]
	decode_all trace/*.rec
	calls > got
	grep -F "posix open 3 path=\"$T/traced/file\" flags=O_WRONLY|O_CREAT|O_TRUNC mode=0666" got
	[ "$(grep -c '^posix write 4096 fd=1 buf=b[0-9]* count=4096$' got)" -eq 8 ]
	none '/dev/zero|^posix read '
	[ "$(def_field '#excluded' calls)" -gt 0 ]
}

@test "python3: same results; the file it writes is opened and written" {
	py=$(python3 -c 'import sys; print(sys.executable)')
	same_as_untraced "$py" -c 'open("f","w").write("hello")'
	[ "$(cat traced/f)" = hello ]
	decode_all trace/*.rec
	calls > got
	grep -E "^posix open(at)?(64)? 3 .*path=\"$T/traced/f\" flags=O_WRONLY\|O_CREAT\|O_TRUNC\|O_CLOEXEC mode=0666\$" got
	grep -E '^posix write 5 fd=3 buf=b[0-9]+ count=5$' got
}

# ---- programs with known I/O: every record asserted ---------------------

@test "posix_basic: each call with its arguments, result and errno" {
	run -0 --separate-stderr traced "$APPS/posix_basic"
	[ -z "$output" ]
	[ -z "$stderr" ]
	decode_all trace/*.rec
	calls > got
	cat > want <<-EOF
	posix open 3 path="$T/data" flags=O_WRONLY|O_CREAT|O_TRUNC mode=0644
	posix write 10 fd=3 buf=b1 count=10
	posix pwrite 3 fd=3 buf=b2 count=3 offset=100
	posix lseek 20 fd=3 offset=20 whence=SEEK_SET
	posix writev 8 fd=3 iov=[3,5] iovcnt=2
	posix fsync 0 fd=3
	posix close 0 fd=3
	posix stat 0 path="$T/data" st=size:103,mode:0100644
	posix open -1 path="$T/missing" flags=O_RDONLY mode=0 errno=ENOENT
	posix mkdir 0 path="$T/sub" mode=0755
	posix open 3 path="$T/sub" flags=O_RDONLY|O_DIRECTORY mode=0
	posix openat 4 dirfd=3 path="$T/sub/inner" flags=O_RDWR|O_CREAT mode=0600
	posix close 0 fd=4
	posix openat 4 dirfd=3 path="$T/data" flags=O_RDONLY mode=0
	posix pread 3 fd=4 buf=b3 count=8 offset=100
	posix close 0 fd=4
	posix access 0 path="$T/data" amode=0x4
	posix creat 4 path="$T/made" mode=0640
	posix dup2 20 oldfd=4 newfd=20
	posix close 0 fd=20
	posix close 0 fd=4
	posix unlink 0 path="$T/sub/inner"
	posix close 0 fd=3
	posix rmdir 0 path="$T/sub"
	posix rename 0 oldpath="$T/made" newpath="$T/renamed"
	EOF
	same
}

@test "posix_basic: one thread 0, seq 0, 1, 2 ... in order, depth 0, no parent" {
	run -0 --separate-stderr traced "$APPS/posix_basic"
	decode_all trace/*.rec
	printf '%s\n' "$output" | grep -v '^#' | cut -f2,3,6 > got
	n=$(wc -l < got)
	[ "$n" -eq 25 ]
	for ((i = 0; i < n; i++)); do printf '0\t%d\t0\n' "$i"; done > want
	same
	calls > got
	none 'parent='
}

@test "posix_basic: the #proc line gives the program, its pid and its cwd" {
	run -0 --separate-stderr traced "$APPS/posix_basic"
	decode_all trace/*.rec
	pid=$(def_field '#proc' pid)
	[ -f "trace/pid-$pid.rec" ]
	[ "$(def_field '#proc' rank)" = "p$pid" ]
	[ "$(def_field '#proc' cwd)" = "\"$T\"" ]
	[ "$(def_field '#proc' argv)" = "\"$APPS/posix_basic\"" ]
	[ "$(def_field '#proc' world)" = 0 ]
}

@test "stdio_basic: stream ids from s3, counts, the fprintf format and result" {
	run -0 --separate-stderr traced "$APPS/stdio_basic"
	[ -z "$output" ]
	[ -z "$stderr" ]
	[ "$(cat text)" = '0123456789n=42;tail' ]
	decode_all trace/*.rec
	calls > got
	cat > want <<-EOF
	stdio fopen s3 path="$T/text" mode="w+" fd=3
	stdio fwrite 10 ptr=b1 size=1 nmemb=10 stream=s3 held=10
	stdio fprintf 5 stream=s3 format="n=%d;" held=15
	stdio fputs 1 s=b2 stream=s3 len=5 held=20
	stdio fflush 0 stream=s3
	stdio fseek 0 stream=s3 offset=2 whence=SEEK_SET at=2
	stdio ftell 2 stream=s3
	stdio fread 8 ptr=b3 size=1 nmemb=8 stream=s3 ahead=10
	stdio fopen NULL path="$T/missing" mode="r" fd=-1 errno=ENOENT
	stdio fopen s4 path="$T/other" mode="w" fd=4
	stdio fwrite 1 ptr=b4 size=2 nmemb=1 stream=s4 held=2
	stdio fclose 0 stream=s4 fd=4
	stdio fclose 0 stream=s3 fd=3
	EOF
	same
}

@test "fortified: __read_chk, __fprintf_chk, __printf_chk, __open_2 recorded as read, fprintf, fprintf on stdout (printf), open" {
	run -0 nm -u "$APPS/fortified"
	for f in __read_chk __fprintf_chk __printf_chk __open_2; do
		printf '%s\n' "$output" | grep -q "$f"
	done
	run -0 --separate-stderr traced "$APPS/fortified"
	[ "$output" = 'read 7' ]
	[ -z "$stderr" ]
	decode_all trace/*.rec
	calls > got
	cat > want <<-EOF
	stdio fopen s3 path="$T/out" mode="w" fd=3
	stdio fprintf 7 stream=s3 format="%s-%d\n" held=7
	stdio fclose 0 stream=s3 fd=3
	posix open 3 path="$T/out" flags=O_RDONLY mode=0
	posix read 7 fd=3 buf=b1 count=16
	posix close 0 fd=3
	stdio fprintf 7 stream=s1 format="read %d\n" held=7
	EOF
	same
}

# ---- fork, threads, exec ------------------------------------------------

@test "fork, child ends with exit(): two streams; fork returns the child's pid and 0, waitpid the pid it waited for" {
	run -0 --separate-stderr traced "$APPS/forker" exit
	read -r parent child <<< "$output"
	printed=$((${#output} + 1))
	ls trace > got
	printf 'pid-%s.rec\n' "$parent" "$child" | sort > want
	same
	decode_all "trace/pid-$parent.rec"
	calls > got
	cat > want <<-EOF
	posix open 3 path="$T/parent.txt" flags=O_WRONLY|O_CREAT|O_TRUNC mode=0644
	posix write 7 fd=3 buf=b1 count=7
	posix close 0 fd=3
	posix pipe 0 fds=[3,4]
	stdio fflush 0 stream=s1
	posix fork $child
	stdio fprintf $printed stream=s1 format="%d %d\n" held=$printed
	posix waitpid $child pid=$child options=0x0
	EOF
	same
	decode_all "trace/pid-$child.rec"
	[ "$(def_field '#proc' pid)" -eq "$child" ]
	[ "$(def_field '#proc' ppid)" -eq "$parent" ]
	calls > got
	[ "$(head -n 1 got)" = 'posix fork 0' ]
	printf '%s\n' "$output" | grep -v '^#' | head -n 1 | cut -f2,3 > got
	printf '0\t0\n' > want
	same
	calls > got
	grep -F "posix open 4 path=\"$T/child.txt\" flags=O_WRONLY|O_CREAT|O_TRUNC mode=0644" got
	grep -E '^posix write 6 fd=4 buf=b[0-9]+ count=6$' got
	[ "$(cat child.txt)" = child ]
}

@test "fork, child ends with _exit(): the child's stream ends with its _exit record" {
	run -0 --separate-stderr traced "$APPS/forker" _exit
	read -r parent child <<< "$output"
	decode_all "trace/pid-$child.rec"
	calls > got
	[ "$(head -n 1 got)" = 'posix fork 0' ]
	[ "$(tail -n 1 got)" = 'posix _exit - status=0' ]
	grep -E '^posix write 6 fd=4 buf=b[0-9]+ count=6$' got
	decode_all "trace/pid-$parent.rec"
	calls > got
	grep -Fx "posix fork $child" got
}

@test "fork: the child's #proc ppid is its parent even when the parent exited first" {
	run -0 --separate-stderr traced "$APPS/forker" orphan
	read -r parent child <<< "$output"
	[ -f child.txt ]
	decode_all "trace/pid-$child.rec"
	[ "$(def_field '#proc' ppid)" -eq "$parent" ]
}

@test "threads: 8 threads x 100 writes all recorded, tids 0..8, every seq once" {
	run -0 --separate-stderr traced "$APPS/threads" 100
	decode_all trace/*.rec
	printf '%s\n' "$output" | grep -v '^#' > recs
	[ "$(cut -f8 recs | grep -cx write)" -eq 801 ]
	cut -f2 recs | sort -n | uniq > got
	seq 0 8 > want
	same
	for t in 1 2 3 4 5 6 7 8; do
		[ "$(awk -F'\t' -v t=$t '$2 == t && $8 == "write"' recs | wc -l)" -eq 100 ]
	done
	cut -f3 recs | sort -n > got
	seq 0 $(($(wc -l < recs) - 1)) > want
	same
}

@test "threads: full per-thread buffers are written out mid-run, nothing lost" {
	# 80000 records of about 20 bytes do not fit in a thread's 1 MiB buffer
	run -0 --separate-stderr traced "$APPS/threads" 80000 2
	[ "$(stat -c %s trace/*.rec)" -gt $((2 * 1024 * 1024)) ]
	run -0 --separate-stderr sh -c 'trace-decode "$@" > recs' sh trace/*.rec
	[ -z "$stderr" ]
	[ "$(grep -c $'\twrite\t' recs)" -eq 160001 ]
	grep -v '^#' recs | cut -f3 | sort -n > got
	seq 0 160006 > want
	same
}

@test "threads with TANGRAM_FLUSH=always: all writes recorded, every seq once" {
	TANGRAM_FLUSH=always run -0 --separate-stderr traced "$APPS/threads" 200
	decode_all trace/*.rec
	printf '%s\n' "$output" | grep -v '^#' > recs
	[ "$(cut -f8 recs | grep -cx write)" -eq 1601 ]
	cut -f3 recs | sort -n > got
	seq 0 $(($(wc -l < recs) - 1)) > want
	same
}

@test "fexecve with TANGRAM_FLUSH=buffered: the first image's records are kept and its exec recorded by the program's path (they were lost); an exec without the tracer in the environment says so once" {
	TANGRAM_FLUSH=buffered run -0 --separate-stderr traced "$APPS/execer" fexecve
	[ "$output" = first ]
	[ -z "$stderr" ]
	decode_all trace/*.rec
	grep -q $'\twrite\t6\tfd=3' <<<"$output"
	grep -q $'\tfexecve\t0\tpath="/usr/bin/cat"' <<<"$output" ||
		grep -q $'\tfexecve\t0\tpath="/bin/cat"' <<<"$output"
	rm -rf trace
	run -0 --separate-stderr traced "$APPS/execer" noenv
	[ "$output" = first ]
	[ "$stderr" = "tangram: '/bin/cat' is started without the tracer (LD_PRELOAD is not in its environment): it runs untraced" ]
}

@test "execv: the records of both images, in pid-PID.rec and pid-PID.1.rec" {
	run -0 --separate-stderr traced "$APPS/execer"
	[ "$output" = first ]
	[ -z "$stderr" ]
	files=(trace/*.rec)
	[ "${#files[@]}" -eq 2 ]
	pid=${files[0]#trace/pid-}
	pid=${pid%%.*}
	ls trace > got
	printf 'pid-%s.1.rec\npid-%s.rec\n' "$pid" "$pid" > want
	same
	decode_all "trace/pid-$pid.rec"
	[ "$(def_field '#proc' argv)" = "\"$APPS/execer\"" ]
	calls > got
	cat > want <<-EOF
	posix open 3 path="$T/first.txt" flags=O_WRONLY|O_CREAT|O_TRUNC mode=0644
	posix write 6 fd=3 buf=b1 count=6
	posix close 0 fd=3
	posix execv 0 path="/bin/cat"
	EOF
	same
	decode_all "trace/pid-$pid.1.rec"
	[ "$(def_field '#proc' pid)" -eq "$pid" ]
	[ "$(def_field '#proc' argv)" = '"cat" "first.txt"' ]
	calls > got
	grep -Fx "posix open 3 path=\"$T/first.txt\" flags=O_RDONLY mode=0" got
}

@test "sh -c 'cat file > out': the shell's and cat's records, cat in a pid-PID.1.rec" {
	printf 'hello\n' > file
	run -0 --separate-stderr traced sh -c 'cat file > out'
	[ "$(cat out)" = hello ]
	execd=(trace/pid-*.1.rec)
	[ "${#execd[@]}" -eq 1 ]
	[ -f "${execd[0]%.1.rec}.rec" ]
	decode_all "${execd[0]}"
	[ "$(def_field '#proc' argv)" = '"cat" "file"' ]
	calls > got
	grep -Fx "posix open 3 path=\"$T/file\" flags=O_RDONLY mode=0" got
	decode_all trace/*.rec
	calls > got
	grep -E "^posix open(64)? [0-9]+ path=\"$T/out\" flags=O_WRONLY\|O_CREAT\|O_TRUNC mode=0666\$" got
	grep -E '^posix execve 0 path="(/usr)?/bin/cat"$' got
}

# ---- deaths ---------------------------------------------------------------

@test "SIGSEGV: the program still dies of it (139), the writes before are kept" {
	run -139 --separate-stderr traced "$APPS/segv"
	decode_all trace/*.rec
	calls > got
	cat > want <<-EOF
	posix open 3 path="$T/out" flags=O_WRONLY|O_CREAT|O_TRUNC mode=0644
	posix write 4 fd=3 buf=b1 count=4
	posix write 4 fd=3 buf=b1 count=4
	posix write 4 fd=3 buf=b1 count=4
	EOF
	same
}

@test "abort(): the program still dies of SIGABRT (134), the writes before are kept" {
	run -134 --separate-stderr traced "$APPS/segv" abort
	decode_all trace/*.rec
	calls > got
	[ "$(grep -c '^posix write 4 fd=3 buf=b1 count=4$' got)" -eq 3 ]
	[ "$(wc -l < got)" -eq 4 ]
}

@test "SIGTERM from outside: the program dies of it (143), its records are kept" {
	(only_012; TANGRAM_DIR=$T/trace LD_PRELOAD=$SHIM exec "$APPS/segv" wait) &
	pid=$!
	for ((i = 0; i < 2000; i++)); do [ -e ready ] && break; sleep 0.01; done
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 143 ]
	decode_all "trace/pid-$pid.rec"
	calls > got
	cat > want <<-EOF
	posix open 3 path="$T/out" flags=O_WRONLY|O_CREAT|O_TRUNC mode=0644
	posix write 4 fd=3 buf=b1 count=4
	posix write 4 fd=3 buf=b1 count=4
	posix write 4 fd=3 buf=b1 count=4
	posix open 4 path="$T/ready.tmp" flags=O_WRONLY|O_CREAT mode=0644
	posix close 0 fd=4
	EOF
	same
}

@test "SIGKILL from outside: nothing runs in the program, yet every record is in the file (unchecked: a torn tail)" {
	(only_012; TANGRAM_DIR=$T/trace LD_PRELOAD=$SHIM exec "$APPS/segv" wait) &
	pid=$!
	for ((i = 0; i < 2000; i++)); do [ -e ready ] && break; sleep 0.01; done
	kill -KILL "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 137 ]
	decode_torn "trace/pid-$pid.rec"
	calls > got
	cat > want <<-EOF
	posix open 3 path="$T/out" flags=O_WRONLY|O_CREAT|O_TRUNC mode=0644
	posix write 4 fd=3 buf=b1 count=4
	posix write 4 fd=3 buf=b1 count=4
	posix write 4 fd=3 buf=b1 count=4
	posix open 4 path="$T/ready.tmp" flags=O_WRONLY|O_CREAT mode=0644
	posix close 0 fd=4
	EOF
	same
}

@test "SIGKILL under TANGRAM_FLUSH=buffered: the buffered records are lost, the stream still reads, and says it is incomplete (no END record)" {
	(only_012; TANGRAM_FLUSH=buffered TANGRAM_DIR=$T/trace LD_PRELOAD=$SHIM \
		exec "$APPS/segv" wait) &
	pid=$!
	for ((i = 0; i < 2000; i++)); do [ -e ready ] && break; sleep 0.01; done
	kill -KILL "$pid"
	wait "$pid" || true
	run -2 --separate-stderr trace-decode "trace/pid-$pid.rec"
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == *": incomplete: the stream ends without its end record at byte "* ]]
	[[ ${lines[0]} == '#proc	'* ]]
	[ -z "$(calls)" ]
}

@test "SIGKILL while two threads write fast: the stream reads to the kill, then a torn tail" {
	(only_012; TANGRAM_DIR=$T/trace LD_PRELOAD=$SHIM exec "$APPS/threads" 5000000 2) &
	pid=$!
	for ((i = 0; i < 2000; i++)); do
		[ "$(stat -c %s "trace/pid-$pid.rec" 2>/dev/null || echo 0)" -gt 20000000 ] && break
		sleep 0.01
	done
	kill -KILL "$pid"
	wait "$pid" || true
	decode_torn "trace/pid-$pid.rec"
	printf '%s\n' "$output" | grep $'\twrite\t' > w
	# records of both threads, more than the first windows held
	[ "$(wc -l < w)" -gt 500000 ]
	[ "$(cut -f2 w | sort -u | tr '\n' ' ')" = "0 1 2 " ]
}

@test "TANGRAM_FLUSH=buffered: the same records as the default, written with write()" {
	run -0 --separate-stderr traced "$APPS/threads" 3000 4
	decode_all trace/*.rec
	# (descriptor numbers depend on which thread opens first: left out,
	# and so are the results of open)
	printf '%s\n' "$output" | grep -v '^#' | cut -f8,10 | sed 's/fd=[0-9]*//' | sort > mapped
	[ "$(tail -c 1 trace/*.rec | od -An -tx1 | tr -d ' ')" = 0a ]	# cut after the last record
	rm -r trace
	TANGRAM_FLUSH=buffered run -0 --separate-stderr traced "$APPS/threads" 3000 4
	decode_all trace/*.rec
	printf '%s\n' "$output" | grep -v '^#' | cut -f8,10 | sed 's/fd=[0-9]*//' | sort > buffered
	[ "$(wc -l < mapped)" -eq 12011 ]
	[ "$(grep -c '^write' mapped)" -eq 12001 ]
	cmp mapped buffered
}

# ---- static executables ---------------------------------------------------

@test "a static executable linked with -Wl,@tangram.wrap and libtangram.a: the same records as preloaded" {
	for p in posix_basic stdio_basic; do
		gcc -static -O1 -o "$p" "$TG_TOP/tests/apps/$p.c" \
			-Wl,@"$TG_TOP/lib/tangram.wrap" "$TG_TOP/lib/libtangram.a" -lpthread
		# a static executable: no dynamic section, nothing to preload into
		! readelf -d "$p" | grep -q NEEDED || false
		mkdir s d
		(cd s && only_012 && TANGRAM_DIR=$T/s/trace exec "../$p" > out 2> err)
		(cd d && only_012 && TANGRAM_DIR=$T/d/trace LD_PRELOAD=$SHIM exec "$APPS/$p" > out 2> err)
		cmp s/out d/out
		for x in s d; do
			run -0 --separate-stderr trace-decode $x/trace/*.rec
			calls | sed "s|$T/$x|DIR|g" > $x.calls
		done
		[ "$(wc -l < s.calls)" -gt 10 ]
		diff -u d.calls s.calls
		rm -r s d
	done
}

@test "a static executable calling only fopen, fputs, fclose links: the C library's own exit and fprintf find their wrappers" {
	printf '#include <stdio.h>\nint main(void) { FILE *f = fopen("o", "w"); fputs("x", f); return fclose(f); }\n' > fo.c
	gcc -static -O1 -o fo fo.c -Wl,@"$TG_TOP/lib/tangram.wrap" "$TG_TOP/lib/libtangram.a" -lpthread
	TANGRAM_DIR=$T/trace run -0 ./fo
	run -0 --separate-stderr trace-decode trace/*.rec
	[[ $output == *$'\tstdio\tfopen\ts3\tpath="'"$T"$'/o"\tmode="w"'* ]]
	[[ $output == *$'\tstdio\tfclose\t0\tstream=s3'* ]]
}

@test "a static executable with TANGRAM_OFF=1 runs untraced" {
	gcc -static -O1 -o pb "$TG_TOP/tests/apps/posix_basic.c" \
		-Wl,@"$TG_TOP/lib/tangram.wrap" "$TG_TOP/lib/libtangram.a" -lpthread
	TANGRAM_OFF=1 TANGRAM_DIR=$T/trace run -0 ./pb
	[ ! -e trace ]
}

@test "a program the preload cannot get into (static without libtangram.a, set-user-ID): trace-run and the exec wrappers say so, once per process; the program runs as untraced" {
	printf '#include <stdio.h>\nint main(void) { FILE *f = fopen("o", "w"); fputs("x", f); return fclose(f) ? 1 : 7; }\n' > st.c
	gcc -static -O1 -o plain st.c
	gcc -static -O1 -o linked st.c -Wl,@"$TG_TOP/lib/tangram.wrap" "$TG_TOP/lib/libtangram.a" -lpthread
	gcc -O1 -o dyn st.c
	run -7 --separate-stderr trace-run -o t1 -- ./plain
	[ "$stderr" = "trace-run: './plain' is statically linked: the tracer cannot be preloaded into it, and it runs untraced (link it with libtangram.a: libtangram(7), Static executables)" ]
	[ "$(cat o)" = x ]
	# with the tracer linked in, or dynamically linked: nothing said, traced
	for p in linked dyn; do
		rm -f o
		run -7 --separate-stderr trace-run -o "t-$p" -- "./$p"
		[ -z "$stderr" ]
		run -0 --separate-stderr trace-decode "t-$p"/*.rec
		[[ $output == *$'\tstdio\tfopen\ts3\tpath="'"$T"$'/o"\tmode="w"'* ]]
	done
	# found on PATH by a traced shell: its exec says so (once per process)
	mkdir bin
	cp plain bin/stprog
	printf '#!/bin/sh\nstprog; stprog; exec stprog\n' > job.sh
	chmod +x job.sh
	PATH=$T/bin:$PATH run -7 --separate-stderr trace-run -o t2 -- ./job.sh
	[ "$stderr" = "$(for i in 1 2 3; do echo "tangram: '$T/bin/stprog' is statically linked: the tracer cannot be preloaded into it, and it runs untraced (link it with libtangram.a: libtangram(7), Static executables)"; done)" ]
	# set-user-ID to another user (tests run as root here: nobody)
	if [ "$(id -u)" = 0 ] && setpriv --help >/dev/null 2>&1; then
		cp dyn suid
		chown nobody suid
		chmod 4755 suid
		mkdir -m 777 w
		cd w
		run -7 --separate-stderr trace-run -o ../t3 -- ../suid
		[ "$stderr" = "trace-run: '../suid' is set-user-ID or set-group-ID: the dynamic linker ignores LD_PRELOAD for it, and it runs untraced" ]
		[ -z "$(ls ../t3)" ]
		# the same file without the bit is traced, and not named
		chmod u-s ../suid
		run -7 --separate-stderr trace-run -o ../t4 -- ../suid
		[ -z "$stderr" ]
		[ -n "$(ls ../t4)" ]
	fi
}

# ---- when the trace cannot be written ----------------------------------

# witness prints what it sees (results, errno) and exits 3.
witness_plain() {
	mkdir plain
	(only_012; cd plain && exec "$APPS/witness" "$@") > plain.out 2> plain.err || [ $? -eq 3 ]
	[ ! -s plain.err ]
}

@test "TANGRAM_SINK=/dev/full: one warning, the program's output, errno and status unchanged" {
	witness_plain
	TANGRAM_SINK=/dev/full run -3 --separate-stderr traced "$APPS/witness"
	[ "$output" = "$(cat plain.out)" ]
	[ "$stderr" = "tangram: cannot write trace to '/dev/full': No space left on device; tracing is off" ]
	cmp data plain/data
}

@test "TANGRAM_SINK=/dev/full with TANGRAM_FLUSH=always: the failure mid-run changes nothing" {
	witness_plain
	TANGRAM_FLUSH=always TANGRAM_SINK=/dev/full run -3 --separate-stderr traced "$APPS/witness"
	[ "$output" = "$(cat plain.out)" ]
	[ "$stderr" = "tangram: cannot write trace to '/dev/full': No space left on device; tracing is off" ]
	cmp data plain/data
}

@test "TANGRAM_DIR under a regular file: one warning, output, errno and status unchanged" {
	witness_plain
	touch afile
	TANGRAM_DIR=$T/afile/sub run -3 --separate-stderr traced "$APPS/witness"
	[ "$output" = "$(cat plain.out)" ]
	[ "$stderr" = "tangram: cannot create trace directory '$T/afile/sub': Not a directory; tracing is off" ]
	cmp data plain/data
	[ -f afile ]
	[ ! -s afile ]
}

@test "TANGRAM_SINK in a missing directory: one warning, output and status unchanged" {
	witness_plain
	TANGRAM_SINK=$T/nodir/t.rec run -3 --separate-stderr traced "$APPS/witness"
	[ "$output" = "$(cat plain.out)" ]
	[ "$stderr" = "tangram: cannot open trace sink '$T/nodir/t.rec': No such file or directory; tracing is off" ]
}

@test "a pipe sink whose reader is gone: one warning, no SIGPIPE, status unchanged" {
	touch gone
	witness_plain "$T/gone"
	rm gone
	# the sink closes its input, then lets the program go on writing
	TANGRAM_FLUSH=always TANGRAM_SINK="|exec 0<&-; touch '$T/gone'" \
		run -3 --separate-stderr traced "$APPS/witness" "$T/gone"
	[ "$output" = "$(cat plain.out)" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "tangram: cannot write trace to '|exec 0<&-; touch '$T/gone''"* ]]
	[[ $stderr == *": Broken pipe; tracing is off" ]]
}

@test "a program that closed stderr and reopened descriptor 2: no warning into its file" {
	# the sink is opened at start, so the warning reaches the real stderr
	# before the program closes it, and never its file
	TANGRAM_SINK=/dev/full run -0 --separate-stderr traced "$APPS/stderr_reuse"
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "tangram: "*"No space left on device; tracing is off" ]]
	[ "$(cat data)" = 'app data' ]
}

# ---- sinks --------------------------------------------------------------

@test "TANGRAM_SINK='|cat > FILE': the stream goes through the command" {
	TANGRAM_SINK="|cat > '$T/piped.rec'" run -0 --separate-stderr traced "$APPS/posix_basic"
	[ -z "$stderr" ]
	[ ! -e trace ]
	decode_all piped.rec
	calls > got
	[ "$(wc -l < got)" -eq 25 ]
	[ "$(head -n 1 got)" = "posix open 3 path=\"$T/data\" flags=O_WRONLY|O_CREAT|O_TRUNC mode=0644" ]
	[ "$(tail -n 1 got)" = "posix rename 0 oldpath=\"$T/made\" newpath=\"$T/renamed\"" ]
}

@test "TANGRAM_SINK=PATH: %p is each process's pid, %% a percent sign" {
	TANGRAM_SINK="$T/s-%p-%%.rec" run -0 --separate-stderr traced "$APPS/forker"
	read -r parent child <<< "$output"
	[ ! -e trace ]
	ls > got
	printf '%s\n' child.txt got parent.txt "s-$child-%.rec" "s-$parent-%.rec" | sort > want
	same
	decode_all "s-$child-%.rec"
	[ "$(def_field '#proc' pid)" -eq "$child" ]
	decode_all "s-$parent-%.rec"
	[ "$(def_field '#proc' pid)" -eq "$parent" ]
	calls > got
	grep -Fx "posix fork $child" got
}

@test "TANGRAM_SINK=PATH: %r is pid-PID while no MPI rank is known" {
	TANGRAM_SINK="$T/%r.rec" run -0 --separate-stderr traced "$APPS/posix_basic"
	files=(pid-*.rec)
	[ "${#files[@]}" -eq 1 ]
	decode_all "${files[0]}"
	[ "${files[0]}" = "pid-$(def_field '#proc' pid).rec" ]
	[ "$(def_field '#proc' rank)" = "p$(def_field '#proc' pid)" ]
}

@test "TANGRAM_SINK=FIFO: the stream goes to the reader of the fifo" {
	mkfifo fifo
	cat fifo > got.rec 3>&- &
	reader=$!
	TANGRAM_SINK=$T/fifo run -0 --separate-stderr traced "$APPS/posix_basic"
	# a writer of our own, so that the reader ends even if the tracer never came
	exec 4<> fifo
	exec 4>&-
	wait "$reader"
	decode_all got.rec
	calls > got
	[ "$(wc -l < got)" -eq 25 ]
	[ "$(head -n 1 got)" = "posix open 3 path=\"$T/data\" flags=O_WRONLY|O_CREAT|O_TRUNC mode=0644" ]
}

# ---- exclusions, layers --------------------------------------------------

@test "default TANGRAM_EXCLUDE: /proc/self/status is read but not recorded, and counted" {
	run -0 --separate-stderr traced cat /proc/self/status
	printf '%s\n' "$output" | grep -q '^Pid:'
	decode_all trace/*.rec
	calls > got
	none '/proc|^posix read '
	[ "$(def_field '#excluded' calls)" -gt 0 ]
}

@test "default TANGRAM_EXCLUDE: /dev/null left out, /dev/shm traced" {
	shm=/dev/shm/tangram-test.$$.$BATS_TEST_NUMBER
	printf 'x\n' > src
	run -0 --separate-stderr traced cp src /dev/null
	decode_all trace/*.rec
	calls > got
	none '/dev/null'
	grep -F "path=\"$T/src\"" got
	[ "$(def_field '#excluded' calls)" -gt 0 ]
	rm -r trace
	run -0 --separate-stderr traced cp src "$shm"
	decode_all trace/*.rec
	calls > got
	grep -E "^posix open(at)?(64)? 4 .*path=\"$shm\" flags=O_WRONLY\|O_CREAT\|O_EXCL" got
}

@test "TANGRAM_EXCLUDE=PREFIX,!PREFIX: whole components, the longest prefix decides" {
	mkdir secret secretive secret/open
	for d in secret secretive secret/open; do printf '%s\n' "$d" > "$d/f"; done
	TANGRAM_EXCLUDE="$T/secret,!$T/secret/open" \
		run -0 --separate-stderr traced cat secret/f secretive/f secret/open/f
	[ "$output" = "$(printf 'secret\nsecretive\nsecret/open')" ]
	decode_all trace/*.rec
	calls > got
	none "path=\"$T/secret/f\""
	grep -Fx "posix open 3 path=\"$T/secretive/f\" flags=O_RDONLY mode=0" got
	grep -Fx "posix open 3 path=\"$T/secret/open/f\" flags=O_RDONLY mode=0" got
	[ "$(def_field '#excluded' calls)" -gt 0 ]
}

@test "TANGRAM_EXCLUDE empty: every path is traced, /proc included, nothing counted" {
	TANGRAM_EXCLUDE= run -0 --separate-stderr traced cat /proc/self/status
	decode_all trace/*.rec
	calls > got
	grep -Fx 'posix open 3 path="/proc/self/status" flags=O_RDONLY mode=0' got
	grep '^posix read [0-9]* fd=3 ' got
	[ -z "$(def_field '#excluded' calls)" ]
}

@test "TANGRAM_LAYERS=stdio: no posix record" {
	TANGRAM_LAYERS=stdio run -0 --separate-stderr traced "$APPS/fortified"
	decode_all trace/*.rec
	calls > got
	cat > want <<-EOF
	stdio fopen s3 path="$T/out" mode="w" fd=3
	stdio fprintf 7 stream=s3 format="%s-%d\n" held=7
	stdio fclose 0 stream=s3 fd=3
	stdio fprintf 7 stream=s1 format="read %d\n" held=7
	EOF
	same
}

@test "TANGRAM_LAYERS=posix: no stdio record" {
	TANGRAM_LAYERS=posix run -0 --separate-stderr traced "$APPS/fortified"
	decode_all trace/*.rec
	calls > got
	cat > want <<-EOF
	posix open 3 path="$T/out" flags=O_RDONLY mode=0
	posix read 7 fd=3 buf=b1 count=16
	posix close 0 fd=3
	EOF
	same
}

@test "TANGRAM_LAYERS with no known layer: nothing recorded, the header still written" {
	TANGRAM_LAYERS=bogus run -0 --separate-stderr traced "$APPS/fortified"
	decode_all trace/*.rec
	[ "${#lines[@]}" -eq 1 ]
	[[ ${lines[0]} == '#proc	'* ]]
}

@test "TANGRAM_OFF=1: no trace at all, same output" {
	TANGRAM_OFF=1 run -0 --separate-stderr traced "$APPS/fortified"
	[ "$output" = 'read 7' ]
	[ ! -e trace ]
}

@test "TANGRAM_SKIP: a program on the list is not traced, its children are" {
	printf 'x\n' > f
	TANGRAM_SKIP=sh run -0 --separate-stderr traced sh -c 'cat f; :'
	[ "$output" = x ]
	files=(trace/*.rec)
	[ "${#files[@]}" -eq 1 ]
	decode_all "${files[0]}"
	[ "$(def_field '#proc' argv)" = '"cat" "f"' ]
}

# ---- nesting -----------------------------------------------------------------

@test "a posix call inside a stdio call: recorded at depth 1 with its parent" {
	run -0 --separate-stderr traced "$APPS/nested"
	[ "$(cat sink)" = hello ]
	decode_all trace/*.rec
	printf '%s\n' "$output" | grep -v '^#' | cut -f3,6- | tr '\t' ' ' > got
	cat > want <<-EOF
	0 0 posix open 3 path="$T/sink" flags=O_WRONLY|O_CREAT|O_TRUNC mode=0644
	1 0 stdio fopen s3 path="$T/log" mode="w" fd=4
	2 0 stdio fwrite 5 ptr=b1 size=1 nmemb=5 stream=s4 held=5
	4 1 posix write 5 fd=3 buf=b2 count=5 parent=3
	3 0 stdio fclose 0 stream=s4 fd=-1
	5 0 stdio fclose 0 stream=s3 fd=4
	6 0 posix close 0 fd=3
	EOF
	same
}

@test "TANGRAM_NESTED=1: a stdio call inside a stdio call is recorded too" {
	TANGRAM_NESTED=1 run -0 --separate-stderr traced "$APPS/nested"
	[ "$(cat log)" = 'write 5' ]
	decode_all trace/*.rec
	printf '%s\n' "$output" | grep -v '^#' | cut -f3,6- | tr '\t' ' ' > got
	cat > want <<-EOF
	0 0 posix open 3 path="$T/sink" flags=O_WRONLY|O_CREAT|O_TRUNC mode=0644
	1 0 stdio fopen s3 path="$T/log" mode="w" fd=4
	2 0 stdio fwrite 5 ptr=b1 size=1 nmemb=5 stream=s4 held=5
	4 1 stdio fprintf 8 stream=s3 format="write %zu\n" held=8 parent=3
	5 1 posix write 5 fd=3 buf=b2 count=5 parent=3
	3 0 stdio fclose 0 stream=s4 fd=-1
	6 0 stdio fclose 0 stream=s3 fd=4
	7 0 posix close 0 fd=3
	EOF
	same
}

# ---- the tracer's own I/O, a process without I/O -------------------------

@test "the tracer's own I/O is not recorded (file sink, TANGRAM_FLUSH=always)" {
	witness_plain
	TANGRAM_FLUSH=always run -3 --separate-stderr traced "$APPS/witness"
	[ -z "$stderr" ]
	decode_all trace/*.rec
	calls > got
	none "$T/trace|/proc/self"
	[ "$(grep -c '^posix write ' got)" -eq 3 ]
	[ "$(grep -c '^posix open ' got)" -eq 6 ]
	[ "$(grep -c '^posix close ' got)" -eq 3 ]
	[ "$(grep -c '^posix read ' got)" -eq 3 ]
	[ "$(grep -c '^stdio fprintf [0-9]* stream=s1 ' got)" -eq 12 ]
	[ "$(grep -c '^stdio fflush ' got)" -eq 3 ]
	[ "$(wc -l < got)" -eq 30 ]
}

@test "the tracer's own I/O is not recorded (pipe sink: no fork, exec or pipe)" {
	TANGRAM_SINK="|cat > '$T/piped.rec'" run -3 --separate-stderr traced "$APPS/witness"
	decode_all piped.rec
	calls > got
	none '^posix (fork|vfork|execve?|pipe2?|dup2?) '
	[ "$(wc -l < got)" -eq 30 ]
	[ "$(grep -c '^posix write ' got)" -eq 3 ]
}

@test "a program without I/O leaves a stream with its #proc line and argv" {
	run -0 --separate-stderr traced "$(type -P true)" a 'b c' '"q"'
	ls trace > got
	[ "$(wc -l < got)" -eq 1 ]
	decode_all trace/*.rec
	[ "${#lines[@]}" -eq 1 ]
	[ "$(def_field '#proc' argv)" = "\"$(type -P true)\" \"a\" \"b c\" \"\\\"q\\\"\"" ]
}

# tests/apps/patcher.c overwrites the mmap it finds as UCX's and Open MPI's
# memory hooks do: the tracer puts its stub back and sends the calls on
# to the hook (shim/hooks.c; x86-64 only)
@test "a library that patches mmap with a jump: its hook sees every call traced as untraced, and each is recorded; a jump the tracer cannot read is said once" {
	[ "$(uname -m)" = x86_64 ] || skip "the stubs are x86-64's"
	local mode
	for mode in movabs rip; do
		run -0 "$APPS/patcher" "$mode" 5
		[ "$output" = "hook saw 5 mmap calls" ]
		rm -rf trace
		run -0 --separate-stderr traced "$APPS/patcher" "$mode" 5
		[ "$output" = "hook saw 5 mmap calls" ]
		[ -z "$stderr" ]
		decode_all trace/*.rec
		[ "$(calls | grep -c '^posix mmap .* length=4096 prot=0x3 flags=0x22 fd=-1 offset=0$')" -eq 5 ]
		[ "$(calls | grep -c '^posix munmap 0 addr=b[0-9]* length=4096$')" -eq 5 ]
	done
	rm -rf trace
	run -0 --separate-stderr traced "$APPS/patcher" pushret 5
	[ "$output" = "hook saw 5 mmap calls" ]
	[ "$stderr" = "tangram: mmap was patched by another library and the jump could not be read: the program's mmap calls are not recorded" ]
	decode_all trace/*.rec
	[ "$(calls | grep -c '^posix mmap ')" -eq 0 ]
	[ "$(calls | grep -c '^posix munmap ')" -eq 5 ]
	# the tracer's warning is not a write of the program's
	[ "$(calls | grep -c '^posix write [0-9-]* fd=2 ')" -eq 0 ]
}

@test "a signal handler's write while the tracer writes a record: the trace stays whole; what it could not record is counted and said once" {
	run -0 --separate-stderr traced "$APPS/sigwrite" out.dat hits.log
	local hits=${output#hits } n=0 rec
	[ "$hits" -gt 0 ]
	[ "$(stat -c %s hits.log)" -eq "$hits" ]
	if [ -n "$stderr" ]; then
		[[ $stderr =~ ^tangram:\ ([0-9]+)\ calls?\ made\ by\ signal\ handlers\ while\ the\ tracer\ was\ writing\ a\ record\ (was|were)\ not\ recorded$ ]]
		n=${BASH_REMATCH[1]}
	fi
	# every frame is whole (before: "corrupt frame" part of the way in)
	decode_all trace/*.rec
	rec=$(calls | grep -c '^posix write 1 fd=3 buf=b[0-9]* count=1')
	[ "$rec" -gt 0 ]
	[ "$((rec + n))" -le "$hits" ]
	[ "$(calls | grep -c '^stdio fwrite 64 ')" -eq 100000 ]
}

@test "a file opened through a symbolic link is traced under the file's own path, and link/../f as the file it is; a failed open by the kernel's name of its directory" {
	mkdir -p o/inner
	ln -s o/inner s
	ln -s real.dat link.dat
	run -0 --separate-stderr traced sh -c 'printf abcd > link.dat; cat real.dat s/../dd.dat 2>/dev/null; printf x > s/../dd.dat; cat link.dat; cat nosuch 2>/dev/null; true'
	[ "$output" = abcdabcd ]
	[ "$(cat o/dd.dat)" = x ]
	decode_all trace/*.rec
	calls > got
	# the shell's redirections, cat's opens: real.dat, o/dd.dat
	[ "$(grep -c "open.* path=\"$T/real.dat\"" got)" -eq 3 ]
	! grep -q "path=\"$T/link.dat\"" got || false
	grep -q "open.* path=\"$T/o/dd.dat\" flags=O_WRONLY|O_CREAT|O_TRUNC" got
	! grep -q "path=\"$T/dd.dat\"" got || false
	# (cat's open of s/../dd.dat before it was made: o/dd.dat, which the
	# letters would have made dd.dat)
	grep -q "open.* -1 .*path=\"$T/o/dd.dat\"" got
	grep -q "open.* -1 .*path=\"$T/nosuch\"" got
	# one file: the write through the link and the reads of the file pair
	run -0 overlap-find <(trace-decode trace/*.rec)
	[ "$(grep -c $'^#file\t' <<<"$output")" -eq 2 ]
	[ "$(grep -c $'^pair\t' <<<"$output")" -ge 2 ]
}

# Until 2026-12-04 a mkdir, stat or access through a symbolic link to a
# directory kept the name given while the opens in it took the kernel's:
# a directory made through a link and the files created in it were
# unrelated names.  The kernel's name of a directory is kept per process;
# one through a link is checked by a stat each time (another process may
# point the link elsewhere), one without a link is not.
@test "a mkdir, stat, access, truncate or rmdir through a symbolic link to a directory is traced under the directory's own path, as the opens in it are, also after another process points the link elsewhere" {
	mkdir a b
	ln -s a L
	cat > sl.c <<-'EOF'
	#include <fcntl.h>
	#include <stdlib.h>
	#include <sys/stat.h>
	#include <unistd.h>
	int main(void)
	{
		struct stat st;
		int i;
		if (mkdir("L/d", 0755) || close(open("L/d/f", O_CREAT | O_WRONLY, 0644)))
			return 1;
		for (i = 0; i < 3; i++)
			if (stat("L/d/f", &st) || access("L/d", F_OK) || truncate("L/d/f", 1))
				return 1;
		/* another process points the link at b, which has d/f too */
		if (system("mkdir -p b/d && touch b/d/f && ln -sfn b L"))
			return 1;
		for (i = 0; i < 2; i++)
			if (stat("L/d/f", &st))
				return 1;
		return unlink("L/d/f") || rmdir("L/d");
	}
	EOF
	gcc -O1 -o sl sl.c
	run -0 --separate-stderr traced ./sl
	[ -d a/d ] && [ -f a/d/f ] && [ ! -e b/d ]
	decode_all trace/*.rec
	calls > got
	! grep -q "path=\"$T/L/" got || false
	grep -q "^posix mkdir 0 path=\"$T/a/d\"" got
	grep -q "^posix open 3 path=\"$T/a/d/f\"" got
	[ "$(grep -c "^posix stat 0 path=\"$T/a/d/f\"" got)" -eq 3 ]
	[ "$(grep -c "^posix access 0 path=\"$T/a/d\"" got)" -eq 3 ]
	[ "$(grep -c "^posix truncate 0 path=\"$T/a/d/f\"" got)" -eq 3 ]
	[ "$(grep -c "^posix stat 0 path=\"$T/b/d/f\"" got)" -eq 2 ]
	grep -q "^posix unlink 0 path=\"$T/b/d/f\"" got
	grep -q "^posix rmdir 0 path=\"$T/b/d\"" got
}

# Until 2026-12-04 a preloaded library whose clock_gettime sets itself up
# with calls the tracer wraps (libfaketime), or whose malloc holds its own
# lock while it makes one (jemalloc), made every traced program wait for
# itself at start: the tracer started inside that call and came back to
# it (tests/helpers/inithooks.c).
@test "libraries preloaded with the tracer that make wrapped calls while they start (as libfaketime and jemalloc do): no hang in either order, the program's calls recorded" {
	local hooks=$TG_TOP/build/helpers/inithooks.so order
	[ -f "$hooks" ] || skip "make test-apps builds build/helpers/inithooks.so"
	for order in "$SHIM:$hooks" "$hooks:$SHIM"; do
		rm -rf trace
		run -0 --separate-stderr timeout 20 env TANGRAM_DIR="$T/trace" LD_PRELOAD="$order" sh -c 'echo x > f1; cat f1'
		[ "$output" = x ]
		decode_all trace/*.rec
		calls > got
		grep -q "^posix open\(64\)\? [0-9]* path=\"$T/f1\" flags=O_WRONLY|O_CREAT|O_TRUNC" got
		grep -q "^posix open [0-9]* path=\"$T/f1\" flags=O_RDONLY" got
	done
}

# Until 2026-12-04 a library preloaded ahead of the tracer that does the
# program's I/O itself (TangramFS's libtfs-posix.so) left a trace without
# that I/O, and nothing said so.
@test "a library preloaded ahead of the tracer with calls the tracer wraps: said once on standard error, naming it; behind it, or alone, nothing is said" {
	local tfs=$TG_TOP/lib/libtfs-posix.so
	[ -f "$tfs" ] || skip "lib/libtfs-posix.so is not built"
	run -0 --separate-stderr env TANGRAM_DIR="$T/trace" LD_PRELOAD="$tfs:$SHIM" /bin/true
	[ "$stderr" = "tangram: open and other calls reach $tfs first, ahead of the tracer: the trace has them only if it passes them on" ]
	run -0 --separate-stderr env TANGRAM_DIR="$T/trace" LD_PRELOAD="$SHIM:$tfs" /bin/true
	[ -z "$stderr" ]
	run -0 --separate-stderr traced /bin/true
	[ -z "$stderr" ]
}

# Until 2026-12-04 a Go program (dynamically linked, with cgo) ran traced
# with none of its I/O seen, its stream taken for a killed one, and
# verify-io judged the rest of the run as if whole.  A program with the
# note Go's linker writes (its build id) stands for one here.
@test "a Go program (the \"Go\" note in the program): said once, tracing off, its stream marked incomplete; verify-io says so, exit 2" {
	cat > gonote.c <<-'EOF'
	#include <stdio.h>
	__asm__(".section .note.go.buildid,\"a\",@note\n.balign 4\n.long 3\n.long 4\n"
		".long 4\n.asciz \"Go\"\n.balign 4\n.ascii \"abcd\"\n.text\n");
	int main(void)
	{
		FILE *f = fopen("out", "w");
		return !f || fputs("go\n", f) < 0 || fclose(f) != 0;
	}
	EOF
	gcc -O1 -o gonote gonote.c
	readelf -n gonote | grep -q 'GO BUILDID'
	run -0 --separate-stderr traced ./gonote
	[ "$stderr" = "tangram: a Go program makes its system calls itself, not through the C library: the tracer sees none of its I/O; tracing is off" ]
	[ "$(cat out)" = go ]
	run -2 --separate-stderr "$TG_TOP/pipelines/verify-io" trace
	[[ $stderr == *"incomplete: the tracer stopped before its process ended"* ]]
}

# Until 2026-12-04 under a descriptor limit below 64 the tracer took the
# lowest free descriptor, the one the program's next open would get: under
# "ulimit -n 4" the program's first open failed (EMFILE).
@test "under a descriptor limit below 64 the tracer says so once and gets out of the way: the program opens and writes as untraced" {
	cat > lim.c <<-'EOF'
	#include <fcntl.h>
	#include <stdio.h>
	#include <unistd.h>
	int main(void)
	{
		int fd = open("out", O_CREAT | O_WRONLY | O_TRUNC, 0644);
		if (fd < 0 || write(fd, "x", 1) != 1 || close(fd) != 0)
			return 1;
		printf("fd %d\n", fd);
		return 0;
	}
	EOF
	gcc -O1 -o lim lim.c
	run -0 --separate-stderr bash -c "$(declare -f only_012); only_012; ulimit -n 4 && exec ./lim"
	[ "$output" = "fd 3" ]
	run -0 --separate-stderr traced sh -c 'ulimit -n 4 && exec ./lim'
	[ "$output" = "fd 3" ]
	[ "$(cat out)" = x ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ "$stderr" = "tangram: a descriptor limit under 64 leaves none the program would not miss for the trace '$T/trace': Too many open files; tracing is off" ]
}

# Until 2026-12-04 a descriptor reopened by name (/proc/self/fd/N,
# /dev/fd/N, /dev/stdout) was excluded with /proc and /dev by the name
# given: the new open file and every call on it went unrecorded.
@test "a descriptor reopened by name (/dev/fd/N, /proc/self/fd/N, /dev/stdout put on a file) is traced under the file's own path; one of a pipe is not" {
	run -0 --separate-stderr traced sh -c 'printf abc > f; exec 3< f; cat /dev/fd/3 /proc/self/fd/3 > out; { printf x >> /dev/stdout; } >> out; printf y > /dev/stdout | cat'
	[ "$output" = y ]
	[ "$(cat out)" = abcabcx ]
	decode_all trace/*.rec
	calls > got
	# cat's two opens of f; the shell's of out, and of /dev/stdout on it
	[ "$(grep -c "^posix open [0-9]* path=\"$T/f\" flags=O_RDONLY" got)" -eq 2 ]
	[ "$(grep -c "^posix open\(64\)\? [0-9]* path=\"$T/out\" flags=O_WRONLY|O_CREAT|O_APPEND" got)" -eq 2 ]
	[ "$(grep -c "^posix open\(64\)\? [0-9]* path=\"$T/out\" flags=O_WRONLY|O_CREAT|O_TRUNC" got)" -eq 1 ]
	! grep -q 'path="/dev/\|path="/proc/' got || false
}

# /dev/shm is a file system programs share files in; the tracer names the
# files of /proc, /sys and /dev as given (the kernel's own), and until
# 2026-12-03 /dev/shm's too, so a file written by one name and read
# through a link by another was two files (session for a race).
@test "in /dev/shm too, a file opened through a symbolic link is traced under the file's own path" {
	[ -d /dev/shm ] && [ -w /dev/shm ] || skip "no writable /dev/shm"
	local d
	d=$(mktemp -d /dev/shm/tg-link.XXXXXX)
	ln -s real.dat "$d/link.dat"
	run -0 --separate-stderr traced sh -c "printf abcd > $d/real.dat; cat $d/link.dat"
	[ "$output" = abcd ]
	decode_all trace/*.rec
	calls > got
	rm -rf "$d"
	[ "$(grep -c "open.* path=\"$d/real.dat\"" got)" -eq 2 ]
	! grep -q "path=\"$d/link.dat\"" got || false
}

@test "I/O at exit after the tracer's destructor: a library's destructor, a Fortran unit left open (libgfortran writes it in its own), all recorded (they were lost)" {
	cat > early.c <<-'C'
	#include <fcntl.h>
	#include <unistd.h>
	__attribute__((destructor)) static void at_end(void)
	{
		int fd = open("fromdtor.txt", O_CREAT | O_WRONLY | O_TRUNC, 0644);
		if (fd >= 0 && write(fd, "d", 1) == 1)
			close(fd);
	}
	C
	gcc -shared -fPIC -o libearly.so early.c
	printf 'int main(void) { return 0; }\n' > m.c
	gcc -o m m.c -Wl,--no-as-needed -L. -learly -Wl,-rpath,"$PWD"
	run -0 traced ./m
	decode_all trace/*.rec
	grep -q $'\tposix\topen\t[0-9]*\tpath="'"$T"'/fromdtor.txt"' <<<"$output"
	grep -q $'\tposix\twrite\t1\t' <<<"$output"
	command -v gfortran >/dev/null || return 0
	printf 'program p\nopen(10, file="unit.txt", access="stream")\nwrite(10) "RACERACE"\nend program\n' > p.f90
	gfortran -o p p.f90
	rm -rf trace
	run -0 traced ./p
	[ "$(cat unit.txt)" = RACERACE ]
	decode_all trace/*.rec
	grep -q $'\tposix\twrite\t8\t' <<<"$output"
}

# glibc frees the thread's dlerror() message at every dl* call; the
# tracer looked up each real function at its wrapper's first call, with
# dlsym: the program's first fprintf after a failed dlopen printed freed
# memory, and a fputs between the failure and dlerror() took the message
# away.  dlopen itself is traced now (by the file's kernel name, a
# symbolic link resolved, its size taken before the load; a FIFO is not
# opened by the tracer), and a plug-in's constructor's calls are the
# program's own.
@test "dlopen: dlerror() after a failed dlopen or dlsym as untraced; the load of a plug-in by a link recorded under the file's name with its size, its constructor's write recorded; a FIFO named .so does not block the tracer" {
	cat > dl.c <<-'C'
	#include <dlfcn.h>
	#include <stdio.h>
	#include <string.h>
	int main(int argc, char **argv)
	{
		void *h = dlopen(argv[1], RTLD_NOW);
		if (!h) {
			if (argc > 2)
				fputs("failed\n", stdout);
			fprintf(stdout, "dlerror: %s\n", dlerror());
			return 0;
		}
		if (!dlsym(h, "no_such_symbol"))
			fprintf(stdout, "dlsym: %s\n", strstr(dlerror(), "no_such_symbol") ? "ok" : "?");
		printf("value %d\n", ((int (*)(void))dlsym(h, "v"))());
		return 0;
	}
	C
	cat > plug.c <<-'C'
	#include <fcntl.h>
	#include <unistd.h>
	__attribute__((constructor)) static void made(void)
	{
		int fd = open("made.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) { write(fd, "x", 1); close(fd); }
	}
	int v(void) { return 42; }
	C
	gcc -O1 -o dl dl.c -ldl
	gcc -O1 -shared -fPIC -o plug.so plug.c
	ln -s plug.so link.so
	local a
	for a in ./no_such.so "./no_such.so 1" ./link.so; do
		run -0 ./dl $a
		local want=$output
		rm -rf trace made.txt
		run -0 traced ./dl $a
		[ "$output" = "$want" ]
	done
	[[ $want == *$'dlsym: ok\nvalue 42' ]]
	decode_all trace/*.rec
	calls > got
	grep -q "dlopen b[0-9]* file=\"$T/plug.so\" flags=0x2 size=$(stat -c %s plug.so)\$" got
	grep -q "open.* path=\"$T/made.txt\"" got
	grep -q "write 1 fd=" got
	# (the loader opens a FIFO and waits for a writer; the tracer must
	# not open it first)
	mkfifo fifo.so
	(timeout 20 sh -c 'cat plug.so > fifo.so' &)
	run timeout 20 env LD_PRELOAD="$SHIM" TANGRAM_DIR=ft ./dl ./fifo.so
	[ "$status" -eq 0 ]
	[[ $output == "dlerror: "* ]]
}

@test "mkdtemp: recorded with the directory it made (its name filled in), a mkdir for the name rules" {
	cat > mkdt.c <<'C'
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	char t[4096];

	snprintf(t, sizeof(t), "%s/dXXXXXX", argv[1]);
	if (!mkdtemp(t))
		return 1;
	puts(t);
	return 0;
}
C
	cc -O2 -o mkdt mkdt.c
	run -0 --separate-stderr traced ./mkdt "$T"
	made=$output
	[ -d "$made" ]
	decode_all trace/*.rec
	grep -q "	posix	mkdtemp	b1	template=\"$made\"$" <<<"$output"
}

@test "signal actions: a program asking for a fatal signal's action finds the default it had untraced (Python installs its KeyboardInterrupt handler only over it), one it sets replaces the tracer's" {
	mkdir -p in
	cat > in/kb.py <<'PY'
import os, signal, time
print(signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM))
try:
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(5)
except KeyboardInterrupt:
    print("KeyboardInterrupt: cleanup ran")
PY
	# (a job started in the background, as CI's, has SIGINT ignored:
	# Python keeps that, traced or not)
	same_as_untraced env --default-signal=INT,TERM /usr/bin/python3 kb.py
	grep -qx 'KeyboardInterrupt: cleanup ran' traced.out
	cat > sig.c <<'C'
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
static void h(int s) { (void)s; write(1, "handled\n", 8); }
int main(void)
{
	struct sigaction old;
	if (sigaction(SIGTERM, NULL, &old) != 0)
		return 1;
	printf("%s\n", old.sa_handler == SIG_DFL ? "default" : "other");
	fflush(stdout);
	if (signal(SIGTERM, h) != SIG_DFL || signal(SIGTERM, h) != h)
		return 2;
	raise(SIGTERM);
	return 0;
}
C
	cc -O2 -o sig sig.c
	run -0 --separate-stderr traced ./sig
	[ "$output" = $'default\nhandled' ]
}

@test "setbuf, setbuffer, setlinebuf: recorded as the buffering they set (a NULL buffer: unbuffered, mode 2)" {
	cat > sb.c <<'C'
#include <stdio.h>
int main(int argc, char **argv)
{
	static char big[BUFSIZ];
	FILE *a = fopen(argv[1], "w"), *b = fopen(argv[2], "w"), *c = fopen(argv[3], "w");

	if (!a || !b || !c)
		return 1;
	setbuf(a, NULL);
	setbuffer(b, big, sizeof(big));
	setlinebuf(c);
	fputs("a\n", a);
	return fclose(a) || fclose(b) || fclose(c);
}
C
	cc -O2 -o sb sb.c
	run -0 --separate-stderr traced ./sb "$T/a" "$T/b" "$T/c"
	decode_all trace/*.rec
	calls > got
	grep -qx 'stdio setbuf - stream=s3 buf=NULL mode=2' got
	grep -Eqx 'stdio setbuffer - stream=s4 buf=b[0-9]+ size=8192 mode=0' got
	grep -qx 'stdio setlinebuf - stream=s5 mode=1' got
}
