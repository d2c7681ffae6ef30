#!/usr/bin/env bats
# trace-run: argument checks first, then the command run in its place under
# the tracer: its trace, its exit status, its environment.

bats_require_minimum_version 1.5.0

setup() {
	USAGE='usage: trace-run [-hnF] [-l layers] [-o dir] [-s sink] [-x exclude] -- command [arg ...]'
	SHIM=$(cd "$TG_TOP/lib" && pwd -P)/libtangram.so
	T=$BATS_TEST_TMPDIR
	unset TANGRAM_DIR TANGRAM_SINK TANGRAM_LAYERS TANGRAM_EXCLUDE \
		TANGRAM_FLUSH TANGRAM_NESTED TANGRAM_SKIP TANGRAM_OFF TANGRAM_LIB
	cd "$T"
	printf 'some data\n' > a
}

# The call records of the decoded trace in $output, as "layer func ret
# arg=value ..." lines (see tests/shim.bats).
calls() {
	printf '%s\n' "$output" | grep -v '^#' | cut -f7- | tr '\t' ' '
}

# The value of variable $1 in the environment printed by `env` in $output.
env_value() {
	printf '%s\n' "$output" | sed -n "s/^$1=//p"
}

# ---- arguments ----------------------------------------------------------

@test "no command" { run -2 --separate-stderr trace-run; [ -z "$output" ]; [ "$stderr" = "$USAGE" ]; }
@test "only options" { run -2 --separate-stderr trace-run -o d --; [ -z "$output" ]; [ "$stderr" = "$USAGE" ]; }
@test "--bogus" { run -2 --separate-stderr trace-run --bogus true; [ -z "$output" ]; [ "${stderr_lines[-1]}" = "$USAGE" ]; }
@test "-Z" { run -2 --separate-stderr trace-run -Z true; [ -z "$output" ]; [ "${stderr_lines[-1]}" = "$USAGE" ]; }
@test "-o without its argument" { run -2 --separate-stderr trace-run -o; [ -z "$output" ]; [ "${stderr_lines[-1]}" = "$USAGE" ]; }
@test "-h" { run -0 --separate-stderr trace-run -h; [ "$output" = "$USAGE" ]; [ -z "$stderr" ]; }
@test "--help" { run -0 --separate-stderr trace-run --help; [ "$output" = "$USAGE" ]; [ -z "$stderr" ]; }
@test "-h before a command" { run -0 --separate-stderr trace-run -h -- false; [ "$output" = "$USAGE" ]; [ ! -e tangram-trace ]; }

@test "missing command: 127, one line" {
	run -127 --separate-stderr trace-run -o d -- no-such-command-tg
	[ -z "$output" ]
	[ "$stderr" = "trace-run: cannot run 'no-such-command-tg': No such file or directory" ]
}

@test "command not executable: 126, one line" {
	run -126 --separate-stderr trace-run -o d -- ./a
	[ -z "$output" ]
	[ "$stderr" = "trace-run: cannot run './a': Permission denied" ]
}

@test "TANGRAM_LIB missing: 2, one line" {
	TANGRAM_LIB=$T/nope.so run -2 --separate-stderr trace-run -o d -- true
	[ -z "$output" ]
	[ "$stderr" = "trace-run: cannot find the tracer '$T/nope.so': No such file or directory" ]
	[ ! -e d ]
}

@test "-o FILE, a regular file: 2, one line, the command not run" {
	printf 'keep\n' > f
	run -2 --separate-stderr trace-run -o f -- touch ran
	[ -z "$output" ]
	[ "$stderr" = "trace-run: cannot write the trace to 'f': Not a directory" ]
	[ ! -e ran ]
	[ "$(cat f)" = keep ]
}

@test "-o under a regular file: 2, one line, the command not run (it ran untraced before)" {
	printf 'keep\n' > f
	run -2 --separate-stderr trace-run -o f/sub/t -- touch ran
	[ -z "$output" ]
	[ "$stderr" = "trace-run: cannot write the trace to 'f/sub/t': Not a directory" ]
	[ ! -e ran ]
	# and made with its parents where it can be
	run -0 trace-run -o x/y/t -- touch ran
	[ -e ran ]
	ls x/y/t/pid-*.rec
}

@test "-l with a layer it does not know: 2, one line naming it, the command not run" {
	run -2 --separate-stderr trace-run -l posx,mpi -o d -- touch ran
	[ -z "$output" ]
	[ "$stderr" = "trace-run: unknown layer 'posx' (the layers: posix, stdio, mpi, mpiio, hdf5)" ]
	[ ! -e ran ]
	[ ! -e d ]
}

# ---- running the command --------------------------------------------------

@test "-o DIR -- cp a b: one stream in DIR with cp's records" {
	run -0 --separate-stderr trace-run -o d -- cp a b
	[ -z "$output" ]
	[ -z "$stderr" ]
	cmp a b
	files=(d/pid-*.rec)
	[ "${#files[@]}" -eq 1 ]
	run -0 --separate-stderr trace-decode "${files[0]}"
	[ -z "$stderr" ]
	[[ ${lines[0]} == '#proc	'*'	argv="cp" "a" "b"' ]]
	calls > got
	grep -E "^posix open(at)?(64)? [0-9]+ (dirfd=AT_FDCWD )?path=\"$T/a\" flags=O_RDONLY " got
	grep -E "^posix open(at)?(64)? [0-9]+ (dirfd=AT_FDCWD )?path=\"$T/b\" flags=O_WRONLY\|O_CREAT\|O_EXCL " got
}

@test "the -- is optional: trace-run -o d cp a b" {
	run -0 --separate-stderr trace-run -o d cp a b
	cmp a b
	[ -f d/pid-*.rec ]
}

@test "no -o: the streams go to ./tangram-trace" {
	run -0 --separate-stderr trace-run cp a b
	[ -f tangram-trace/pid-*.rec ]
}

@test "the command keeps trace-run's pid: its stream is pid-PID.rec" {
	run -0 --separate-stderr trace-run -o d -- sh -c 'echo $$'
	ls d > got
	[ "$(cat got)" = "pid-$output.rec" ]
}

@test "the exit status of the command is passed through" {
	run -7 --separate-stderr trace-run -o d -- sh -c 'exit 7'
	[ -z "$output" ]
	[ -z "$stderr" ]
	[ -f d/pid-*.rec ]
	run -1 --separate-stderr trace-run -o d2 -- false
	run -0 --separate-stderr trace-run -o d3 -- true
}

@test "a command killed by a signal: the shell sees the signal" {
	run -143 --separate-stderr trace-run -o d -- sh -c 'kill -TERM $$'
}

@test "output and errors of the command are its own" {
	run -3 --separate-stderr trace-run -o d -- sh -c 'echo out; echo err >&2; exit 3'
	[ "$output" = out ]
	[ "$stderr" = err ]
}

@test "-o relative: made absolute, so children that change directory write there too" {
	mkdir elsewhere
	run -0 --separate-stderr trace-run -o d -- sh -c 'cd elsewhere && cat ../a'
	[ "$output" = 'some data' ]
	[ ! -e elsewhere/d ]
	run -0 --separate-stderr trace-decode d/*.rec
	printf '%s\n' "$output" | grep -F "path=\"$T/a\""
}

@test "TANGRAM_DIR in the environment is replaced by -o" {
	TANGRAM_DIR=$T/other run -0 --separate-stderr trace-run -o d -- printenv TANGRAM_DIR
	[ "$output" = "$T/d" ]
	[ ! -e other ]
}

@test "LD_PRELOAD already set is kept, after the tracer" {
	other=$(gcc -print-file-name=libm.so.6)
	[ -f "$other" ]
	LD_PRELOAD=$other run -0 --separate-stderr trace-run -o d -- printenv LD_PRELOAD
	[ "$output" = "$SHIM:$other" ]
	[ -z "$stderr" ]
}

@test "without LD_PRELOAD: the tracer only" {
	run -0 --separate-stderr env -u LD_PRELOAD trace-run -o d -- printenv LD_PRELOAD
	[ "$output" = "$SHIM" ]
}

@test "TANGRAM_LIB names the tracer to preload" {
	cp "$SHIM" copy.so
	TANGRAM_LIB=$T/copy.so run -0 --separate-stderr trace-run -o d -- printenv LD_PRELOAD
	[ "$output" = "$T/copy.so" ]
}

# ---- options become the tracer's variables --------------------------------

@test "-F, --flush: TANGRAM_FLUSH=always" {
	run -0 --separate-stderr trace-run -F -o d -- env
	[ "$(env_value TANGRAM_FLUSH)" = always ]
	run -0 --separate-stderr trace-run --flush -o d -- env
	[ "$(env_value TANGRAM_FLUSH)" = always ]
}

@test "-l, --layers: TANGRAM_LAYERS" {
	run -0 --separate-stderr trace-run -l stdio,posix -o d -- env
	[ "$(env_value TANGRAM_LAYERS)" = stdio,posix ]
	run -0 --separate-stderr trace-run --layers=stdio -o d -- env
	[ "$(env_value TANGRAM_LAYERS)" = stdio ]
}

@test "-n, --nested: TANGRAM_NESTED=1" {
	run -0 --separate-stderr trace-run -n -o d -- env
	[ "$(env_value TANGRAM_NESTED)" = 1 ]
	run -0 --separate-stderr trace-run --nested -o d -- env
	[ "$(env_value TANGRAM_NESTED)" = 1 ]
}

@test "-s, --sink: TANGRAM_SINK" {
	run -0 --separate-stderr trace-run -s "$T/x-%p.rec" -o d -- env
	[ "$(env_value TANGRAM_SINK)" = "$T/x-%p.rec" ]
	run -0 --separate-stderr trace-run --sink="$T/y.rec" -o d -- env
	[ "$(env_value TANGRAM_SINK)" = "$T/y.rec" ]
}

@test "-x, --exclude: TANGRAM_EXCLUDE" {
	run -0 --separate-stderr trace-run -x '/proc,/usr' -o d -- env
	[ "$(env_value TANGRAM_EXCLUDE)" = /proc,/usr ]
	run -0 --separate-stderr trace-run --exclude=/x -o d -- env
	[ "$(env_value TANGRAM_EXCLUDE)" = /x ]
}

@test "no options: only TANGRAM_DIR, TANGRAM_RUN_AUTO and LD_PRELOAD are set" {
	run -0 --separate-stderr env -u LD_PRELOAD trace-run -- env
	printf '%s\n' "$output" | grep '^TANGRAM_' | sort > got || true
	[ "$(cat got)" = "TANGRAM_DIR=$T/tangram-trace
TANGRAM_RUN_AUTO=1" ]
}

@test "-l stdio: the command's trace has no posix record" {
	run -0 --separate-stderr trace-run -l stdio -o d -- cp a b
	run -0 --separate-stderr trace-decode d/*.rec
	[ "$(printf '%s\n' "$output" | grep -vc '^#')" -gt 0 ]
	[ "$(printf '%s\n' "$output" | grep -v '^#' | cut -f7 | sort -u)" = stdio ]
}

@test "-s '|cat > FILE': the stream goes through the command, not into -o" {
	run -0 --separate-stderr trace-run -s "|cat > '$T/piped.rec'" -o d -- cp a b
	[ ! -e d ]
	run -0 --separate-stderr trace-decode piped.rec
	[ -z "$stderr" ]
	printf '%s\n' "$output" | grep -F "path=\"$T/b\""
}

# ---- run numbers --------------------------------------------------------

@test "a later run into the directory is numbered: TANGRAM_RUN=2, then 3" {
	run -0 --separate-stderr trace-run -o d -- true
	run -0 --separate-stderr trace-run -o d -- env
	[ "$(env_value TANGRAM_RUN)" = 2 ]
	run -0 --separate-stderr trace-run -o d -- env
	[ "$(env_value TANGRAM_RUN)" = 3 ]
}

# A rank that a launcher started (PMI_RANK...) counts the streams of
# processes that started after its parent, the launcher's agent, and still
# run on its host, as its own launch's: the first trace-run of each sh
# below stands for a rank that started first.  Without PMI_RANK the same
# two are two runs.  A process of an earlier run that still runs but
# started before the agent is of that run.
@test "a launched rank takes the run of its launch's ranks that started before it" {
	run -0 --separate-stderr trace-run -o d -- true
	run -0 --separate-stderr sh -c 'trace-run -o d sleep 1 & sleep 0.3; PMI_RANK=1 trace-run -o d env; wait'
	[ "$(env_value TANGRAM_RUN)" = 2 ]
	run -0 --separate-stderr sh -c 'trace-run -o d sleep 1 & sleep 0.3; trace-run -o d env; wait'
	[ "$(env_value TANGRAM_RUN)" = 4 ]
	run -0 --separate-stderr sh -c 'OMPI_COMM_WORLD_RANK=0 trace-run -o e env'
	[ -z "$(env_value TANGRAM_RUN)" ]
	trace-run -o f sleep 2 &
	local bg=$!
	sleep 0.3
	run -0 --separate-stderr sh -c 'PMIX_RANK=3 trace-run -o f env'
	wait "$bg"
	[ "$(env_value TANGRAM_RUN)" = 2 ]
	# a damaged stream (no header to read) last written before the agent
	# started is an earlier run's too: never taken over
	mkdir g && : > g/rank-0.rec && touch -d '1 minute ago' g/rank-0.rec
	run -0 --separate-stderr sh -c 'PMI_RANK=0 trace-run -o g env'
	[ "$(env_value TANGRAM_RUN)" = 2 ]
}

# Until 2026-12-04 a program a traced process exec'd without the tracer
# in its environment was said by the tracer as it ran, and verify-io then
# judged the rest as if the run were whole.
@test "a program exec'd without the tracer (env -i): verify-io says it ran untraced, naming it; a launcher the tracer leaves out on purpose is not named" {
	run -0 --separate-stderr trace-run -o t -- sh -c 'env -i /bin/cp a b; cat b > c'
	[[ $stderr == *"tangram: '/bin/cp' is started without the tracer (LD_PRELOAD is not in its environment): it runs untraced"* ]]
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" t
	[ "$stderr" = "verify-io: 1 program a process exec'd ran untraced (the first: '/bin/cp' (pid $(trace-decode t/*.rec | awk -F'\t' '$8 == "execvp" { sub(/^p/, "", $1); print $1; exit }')); started without the tracer in its environment, or static): its calls are not in the trace, and the verdict is of the traced processes only" ]
	run -0 --separate-stderr trace-run -o u -- sh -c 'cp a b; cat b > c'
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" u
	[ -z "$stderr" ]
	# Python's subprocess tries each directory of PATH: exec calls that
	# failed, recorded before and after, and one that worked (traced)
	run -0 --separate-stderr trace-run -o w -- python3 -c 'import subprocess; subprocess.run(["cp", "a", "d"], check=True)'
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" w
	[ -z "$stderr" ]
	# the shell execs mpirun, which the tracer leaves out (TANGRAM_SKIP)
	command -v mpirun.mpich >/dev/null || return 0
	run -0 --separate-stderr trace-run -o v -- sh -c 'exec mpirun.mpich -n 1 cat a' < /dev/null
	run --separate-stderr "$TG_TOP/pipelines/verify-io" v
	[[ $stderr != *"ran untraced"* ]]
}
