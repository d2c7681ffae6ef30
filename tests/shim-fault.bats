#!/usr/bin/env bats
# The tracer's own failures (libtangram(7)): its writes fail (ENOSPC, EINTR,
# EAGAIN, short writes, a reader that stalls), its mappings and allocations
# fail.  The traced program's output and exit status never change; a
# transient fault loses nothing; a lasting one leaves a trace that decodes
# up to the fault and one line from the tracer saying tracing stopped.
# tests/helpers/faultinj.so, preloaded before the tracer, makes the faults
# (TG_FAULT=KIND:N, see its source); the program is tests/apps/chatty.

bats_require_minimum_version 1.5.0

setup() {
	T=$BATS_TEST_TMPDIR/w
	SHIM=$TG_TOP/lib/libtangram.so
	FI=$TG_TOP/build/helpers/faultinj.so
	APP=$TG_TOP/build/apps/chatty
	unset TANGRAM_DIR TANGRAM_SINK TANGRAM_LAYERS TANGRAM_EXCLUDE \
		TANGRAM_FLUSH TANGRAM_NESTED TANGRAM_SKIP TANGRAM_OFF \
		TANGRAM_SINK_TIMEOUT TG_FAULT TG_FAULT_LOG
	ulimit -c 0
	mkdir "$T"
	cd "$T"
	run -3 --separate-stderr "$APP" 2000
	want_out=$output
	want_data=$(cksum < data)
	rm -f data
}

# run_mode MODE FAULT: chatty under the fault and the tracer, its stream in
# $T/t.rec (dir: the one file of $T/trace).  MODE is dir (a mapped file),
# write (a file written with write(2)) or pipe ('|cat > FILE').  Asserts
# that the program's exit status, output and file are those of a run
# without the tracer; the tracer's stderr is left in $stderr.
run_mode() {
	local mode=$1 fault=$2

	rm -rf trace t.rec data fault.log
	case $mode in
	dir) export TANGRAM_DIR=$T/trace ;;
	write) export TANGRAM_SINK=$T/t.rec TANGRAM_FLUSH=1 ;;
	pipe) export TANGRAM_SINK="|cat > $T/t.rec" ;;
	esac
	run -3 --separate-stderr timeout 60 env TANGRAM_SINK_TIMEOUT=0.3 TG_FAULT="$fault" \
		TG_FAULT_LOG="$T/fault.log" LD_PRELOAD="$FI $SHIM" "$APP" 2000
	unset TANGRAM_DIR TANGRAM_SINK TANGRAM_FLUSH
	[ "$output" = "$want_out" ]
	[ "$(cksum < data)" = "$want_data" ]
	# (none when tracing stopped before the tracer made its file)
	if [ "$mode" = dir ] && [ -n "$(ls trace 2>/dev/null)" ]; then
		mv trace/*.rec t.rec
	fi
	shim_err=$stderr
	last_mode=$mode
}

# The fault happened at least once.
faulted() {
	[ -s fault.log ]
}

# The whole trace is there: it decodes cleanly, with every call.
whole_trace() {
	[ -z "$shim_err" ]
	run -0 --separate-stderr trace-decode t.rec
	[ -z "$stderr" ]
	[ "$(printf '%s\n' "$output" | cut -f8 | grep -cx pwrite)" = 2000 ]
	[ "$(printf '%s\n' "$output" | cut -f8 | grep -cx write)" = 2000 ]
}

# Tracing stopped at the fault: one line from the tracer saying so; what
# was written before decodes (cleanly, or up to a frame the fault cut
# short, which the decoder names in one line), with fewer calls; a trace
# file's header says the tracer stopped, and the decoder says so.
stopped_trace() {
	[ "$(printf '%s\n' "$shim_err" | wc -l)" = 1 ]
	[[ $shim_err == "tangram: "*"; tracing is off" ||
	   $shim_err == "tangram: "*"nothing read it for 0.3 s; tracing is off" ]]
	if [ ! -s t.rec ]; then
		return 0	# the fault came before the header
	fi
	run --separate-stderr trace-decode t.rec
	[ "$status" -eq 0 ] || {
		[ "$status" -eq 2 ]
		[ "$(printf '%s\n' "$stderr" | wc -l)" = 1 ]
	}
	# a file says it is incomplete (its header's flag), unless the
	# header itself never reached it; a pipe's reader cannot be told
	if [ "$last_mode" != pipe ]; then
		[ "$status" -eq 2 ]
		[[ $stderr == "trace-decode: t.rec: incomplete: the tracer stopped before its process ended "* ||
		   $stderr == "trace-decode: t.rec: truncated header" ||
		   $stderr == "trace-decode: t.rec: not a Tangram record stream (bad magic)" ]]
	fi
	[ "$(printf '%s\n' "$output" | cut -f8 | grep -cxE 'pwrite|write')" -lt 4000 ]
}

@test "no fault (faultinj.so loaded, TG_FAULT unset): the whole trace, every mode" {
	for mode in dir write pipe; do
		run_mode $mode ""
		whole_trace
	done
}

@test "EINTR, EAGAIN and short writes (transient): the whole trace, nothing said" {
	for mode in write pipe; do
		for fault in eintr:1 eintr:2 eagain:1 eagain:2 short:1 short:2; do
			run_mode $mode $fault
			faulted
			whole_trace
		done
	done
}

@test "ENOSPC on the header, on a later write, on a window: said once, the trace decodes up to it" {
	for mode in dir write pipe; do
		for fault in enospc:1 enospc:2 enospc:3; do
			run_mode $mode $fault
			faulted
			stopped_trace
		done
	done
}

@test "a reader that stops reading: said once after TANGRAM_SINK_TIMEOUT, the program goes on" {
	run_mode pipe stall:2
	faulted
	stopped_trace
}

@test "mmap of a window fails: said once, the trace decodes up to it" {
	for fault in mmap:1 mmap:2; do
		run_mode dir $fault
		faulted
		stopped_trace
	done
}

@test "the tracer's allocations fail (a thread's state, a buffer): said once, never a silent gap" {
	for mode in dir write pipe; do
		run_mode $mode nomem:1
		faulted
		stopped_trace
	done
	# the second thread's state
	run_mode dir nomem:2
	faulted
	stopped_trace
}

@test "long (TG_LONG=1, make check-long): every fault at each of its first 6 chances, every mode" {
	[ "${TG_LONG:-}" = 1 ] || skip "long: TG_LONG=1 (make check-long)"
	local mode k fault

	for mode in dir write pipe; do
		for k in 1 2 3 4 5 6; do
			for fault in eintr eagain short; do
				[ "$mode" = dir ] && continue
				run_mode $mode $fault:$k
				whole_trace
			done
			for fault in enospc mmap nomem; do
				run_mode $mode $fault:$k
				# a fault the tracer gets round (a failed realloc
				# of its list of windows: no compaction at exit)
				# loses nothing; any other it says
				if [ -z "$shim_err" ]; then
					whole_trace
				else
					stopped_trace
				fi
			done
		done
	done
	run_mode pipe stall:1
	stopped_trace
}

@test "a file size limit (ulimit -f) the trace meets: no SIGXFSZ for the program, one line, and the stream says it is incomplete" {
	for mode in dir write; do
		rm -rf trace t.rec data
		case $mode in
		dir) export TANGRAM_DIR=$T/trace ;;
		write) export TANGRAM_SINK=$T/t.rec TANGRAM_FLUSH=1 ;;
		esac
		# 48 KiB: room for the program's 32,000 bytes, not for the trace
		run -3 --separate-stderr bash -c 'ulimit -f 48; LD_PRELOAD=$1 exec "$2" 2000' - "$SHIM" "$APP"
		unset TANGRAM_DIR TANGRAM_SINK TANGRAM_FLUSH
		[ "$output" = "$want_out" ]
		[ "$(cksum < data)" = "$want_data" ]
		[[ $stderr == "tangram: cannot write trace to '"*"': File too large; tracing is off" ]]
		[ "$mode" = write ] || mv trace/*.rec t.rec
		run -2 --separate-stderr trace-decode t.rec
		[ "$stderr" = "trace-decode: t.rec: incomplete: the tracer stopped before its process ended (it could not write the trace, or see the calls: the process's standard error says why): the calls after its last record are missing" ]
		# (before: the program was killed by SIGXFSZ, status 153)
	done
}

@test "the program's own fork and limits: errno 0 at main, fork in a threaded program and from a signal handler, a file size limit it sets itself: as untraced, no hang" {
	local APP2=$TG_TOP/build/apps/forkstress
	for mode in errno threads handler fsize; do
		run -0 "$APP2" $mode "$T"
		local want=$output
		for flush in auto buffered; do
			rm -rf trace
			# (errno 17 at main, a child hung in fopen about 1 run in 3,
			# a fork from a handler hung, SIGXFSZ killed the program)
			run -0 --separate-stderr timeout 60 env TANGRAM_DIR="$T/trace" TANGRAM_FLUSH=$flush \
				LD_PRELOAD="$SHIM" "$APP2" $mode "$T"
			[ "$output" = "$want" ] || { echo "$mode $flush: $output"; false; }
		done
	done
}
