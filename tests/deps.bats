#!/usr/bin/env bats
# tools/deps.sh (make deps, and make demo / make check on a fresh machine):
# run against a fake dpkg-query and apt-get that keep their package list in
# a file, and the real update-alternatives confined to a directory
# (--root), so nothing is installed and the system's alternatives are not
# touched.  The fake apt-get does what Debian's packages do: installing
# mpich registers MPICH's mpicc and mpirun (priority 40), installing
# nwchem-mpich pulls in Open MPI, which registers its own (priority 50).

bats_require_minimum_version 1.5.0

setup() {
	cd "$BATS_TEST_TMPDIR"
	R=$BATS_TEST_TMPDIR/root
	F=$BATS_TEST_TMPDIR/fake
	mkdir -p "$R/usr/bin" "$R/etc/alternatives" "$R/var/lib/dpkg/alternatives" "$F"
	: > "$F/installed"
	: > "$F/log"
	cat > "$F/dpkg-query" <<-EOF
	#!/bin/sh
	for p; do :; done
	grep -qx "\$p" "$F/installed" && printf 'install ok installed'
	exit 0
	EOF
	cat > "$F/update-alternatives" <<-EOF
	#!/bin/sh
	exec /usr/bin/update-alternatives --root "$R" "\$@"
	EOF
	cat > "$F/sudo" <<-'EOF'
	#!/bin/sh
	exec "$@"
	EOF
	cat > "$F/apt-get" <<-EOF
	#!/bin/bash
	echo "apt-get \$*" >> "$F/log"
	[ "\$1" = update ] && exit 0
	reg() {	# MPI PRIORITY: register its mpicc and mpirun
		touch "$R/usr/bin/mpicc.\$1" "$R/usr/bin/mpirun.\$1"
		chmod +x "$R/usr/bin/mpicc.\$1" "$R/usr/bin/mpirun.\$1"
		update-alternatives --install /usr/bin/mpicc mpi /usr/bin/mpicc.\$1 \$2 > /dev/null
		update-alternatives --install /usr/bin/mpirun mpirun /usr/bin/mpirun.\$1 \$2 > /dev/null
	}
	inc() {	# MPI DIR PRIORITY: register its headers (and mpi.pc, libmpi.so)
		mkdir -p "$R\$2"
		update-alternatives --install /usr/include/$(uname -m)-linux-gnu/mpi mpi-$(uname -m)-linux-gnu \$2 \$3 > /dev/null
	}
	for p; do
		case \$p in
		-*|install) continue ;;
		mpich) reg mpich 40; inc mpich /usr/include/$(uname -m)-linux-gnu/mpich 40 ;;
		nwchem-mpich) reg openmpi 50 ;;
		libopenmpi-dev) reg openmpi 50; inc openmpi /usr/lib/$(uname -m)-linux-gnu/openmpi/include 50 ;;
		esac
		echo "\$p" >> "$F/installed"
	done
	[ -z "\${FAKE_APT_FAIL:-}" ] || exit 100
	EOF
	chmod +x "$F"/*
	export PATH="$F:$PATH"
	# never the real ones
	[ "$(command -v apt-get)" = "$F/apt-get" ] && [ "$(command -v update-alternatives)" = "$F/update-alternatives" ]
	D=$TG_TOP/tools/deps.sh
}

value() { update-alternatives --query "$1" | sed -n 's/^Value: //p'; }

# ---- which packages ---------------------------------------------------------

@test "-a with every package installed: prints nothing, runs nothing" {
	printf '%s\n' mpich zlib1g-dev > "$F/installed"
	run -0 --separate-stderr "$D" -a mpich zlib1g-dev
	[ -z "$output" ]
	[ -z "$stderr" ]
	[ ! -s "$F/log" ]
}

@test "every package installed: says so" {
	echo mpich > "$F/installed"
	run -0 --separate-stderr "$D" mpich
	[ "$output" = "deps: all Debian packages present" ]
	[ ! -s "$F/log" ]
}

@test "missing packages: says which and installs only those" {
	echo zlib1g-dev > "$F/installed"
	run -0 --separate-stderr "$D" -a mpich zlib1g-dev libjansson-dev
	[ "${lines[0]}" = "deps: Debian packages this build needs are missing; installing them first (make deps)" ]
	[ "${lines[1]}" = "deps: installing: mpich libjansson-dev" ]
	[ "$(cat "$F/log")" = "apt-get update -qq
apt-get install -y -qq --no-install-recommends mpich libjansson-dev" ]
	[ -z "$stderr" ]
}

@test "-n prints the commands and runs none" {
	run -0 --separate-stderr "$D" -n mpich
	[ "$output" = "deps: installing: mpich
+ apt-get update -qq
+ env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mpich" ]
	[ ! -s "$F/log" ]
}

# ---- the system's MPI --------------------------------------------------------

@test "mpi and mpirun pointing at MPICH before: still MPICH after an install that brings Open MPI" {
	run -0 "$D" mpich
	[ "$(value mpi)" = /usr/bin/mpicc.mpich ]
	run -0 --separate-stderr "$D" nwchem-mpich
	[ "$(value mpi)" = /usr/bin/mpicc.mpich ]
	[ "$(value mpirun)" = /usr/bin/mpirun.mpich ]
	[ "${lines[1]}" = "deps: the install switched alternative 'mpi' to /usr/bin/mpicc.openmpi; setting it back to /usr/bin/mpicc.mpich" ]
	[ "${lines[2]}" = "deps: the install switched alternative 'mpirun' to /usr/bin/mpirun.openmpi; setting it back to /usr/bin/mpirun.mpich" ]
	[ -z "$stderr" ]
}

@test "Open MPI's headers installed (libopenmpi-dev): mpicc and mpirun stay MPICH's; mpi.h, mpi.pc and libmpi.so go where Debian puts them (Open MPI's mpif90 links -lmpi through them)" {
	local a=mpi-$(uname -m)-linux-gnu
	run -0 "$D" mpich
	[ "$(value $a)" = /usr/include/$(uname -m)-linux-gnu/mpich ]
	run -0 --separate-stderr "$D" libopenmpi-dev
	[ "$(value mpi)" = /usr/bin/mpicc.mpich ]
	[ "$(value mpirun)" = /usr/bin/mpirun.mpich ]
	[ "$(value $a)" = /usr/lib/$(uname -m)-linux-gnu/openmpi/include ]
	[ "${#lines[@]}" -eq 3 ]
}

@test "mpi pointing at Open MPI before: left at Open MPI (the user's choice)" {
	run -0 "$D" nwchem-mpich
	[ "$(value mpi)" = /usr/bin/mpicc.openmpi ]
	run -0 --separate-stderr "$D" mpich
	[ "$(value mpi)" = /usr/bin/mpicc.openmpi ]
	[ "$(value mpirun)" = /usr/bin/mpirun.openmpi ]
	[ "$output" = "deps: installing: mpich" ]
}

@test "no MPI before: MPICH is set when the install would leave Open MPI, and it says so" {
	run -0 --separate-stderr "$D" mpich nwchem-mpich
	[ "$(value mpi)" = /usr/bin/mpicc.mpich ]
	[ "$(value mpirun)" = /usr/bin/mpirun.mpich ]
	[[ ${lines[1]} == "deps: alternative 'mpi' was unset and now points to /usr/bin/mpicc.openmpi; setting it to MPICH (/usr/bin/mpicc.mpich), which Tangram is built with" ]]
}

@test "a failed install exits non-zero and still sets the alternatives back" {
	run -0 "$D" mpich
	FAKE_APT_FAIL=1 run -100 --separate-stderr "$D" nwchem-mpich
	[ "$stderr" = "deps: installing the packages failed" ]
	[ "$(value mpi)" = /usr/bin/mpicc.mpich ]
	[ "$(value mpirun)" = /usr/bin/mpirun.mpich ]
}

# ---- make demo and make check on a fresh machine --------------------------------

@test "make demo and make check install what is missing before building anything" {
	for t in demo check; do
		: > "$F/log"
		: > "$F/installed"
		FAKE_APT_FAIL=1 run -2 timeout 120 env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -C "$TG_TOP" $t
		[[ $output == *"deps: Debian packages this build needs are missing; installing them first (make deps)"* ]]
		[[ $output == *"deps: installing: build-essential "*" libjansson-dev "* ]]
		[[ $output != *gcc* ]]
		grep -q '^apt-get install .* libjansson-dev' "$F/log"
	done
}

@test "make deps-apps installs the test applications; make deps does not" {
	run -0 env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$TG_TOP" deps-apps
	[[ $output == *"deps: installing: netpipe-mpich2 nwchem-mpich"* ]]
	: > "$F/log"
	run -0 env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$TG_TOP" deps
	! grep -q nwchem "$F/log" || false
}

@test "DEPS=no: make demo and make check do not look" {
	run -0 --separate-stderr env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$TG_TOP" DEPS=no deps-auto
	[ -z "$output" ]
	[ ! -s "$F/log" ]
}
