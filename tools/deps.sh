#!/usr/bin/env bash
# deps.sh - install the Debian packages Tangram needs, leaving the system's
# MPI choice as it was.
#
#   tools/deps.sh [-a] [-n] package ...
#
# Installs the named packages that dpkg does not list as installed (apt-get,
# through sudo when not root) and says which.  -a ("auto", for make demo and
# make check): print nothing when none is missing.  -n: print what would be
# run instead of running it.
#
# Installing a package can switch Debian's "mpi" (mpicc) and "mpirun"
# alternatives: libscalapack-mpich, which nwchem-mpich needs, depends on
# mpi-default-bin, i.e. Open MPI, whose higher priority wins in auto mode.
# A user's plain mpicc would then build against Open MPI (libopenmpi-dev,
# whose mpi.h the tracer's Open MPI wrappers are built with, does the
# same).  So each alternative is read before the install and set back to
# what it was after it (manual mode: auto mode would pick the higher
# priority again); one that did not exist before is set to MPICH if the
# install made it point elsewhere.  Each change is said.
set -u

auto=0 dry=0
while getopts an o; do
	case $o in
	a) auto=1 ;;
	n) dry=1 ;;
	*) echo "usage: tools/deps.sh [-a] [-n] package ..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

# not Debian: the packages are the user's to install; the build goes on
if ! command -v dpkg-query > /dev/null; then
	echo "deps: no dpkg-query, so not Debian: install the equivalents of these yourself: $*" >&2
	[ $auto = 1 ] && exit 0
	exit 1
fi

missing=
for p in "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ -z "$missing" ]; then
	[ $auto = 1 ] || echo "deps: all Debian packages present"
	exit 0
fi
[ $auto = 1 ] && echo "deps: Debian packages this build needs are missing; installing them first (make deps)"
echo "deps: installing:$missing"

run() {	# run "$@" (as root), or only print it with -n
	if [ $dry = 1 ]; then
		echo "+ $*"
		return 0
	fi
	if [ "$(id -u)" -ne 0 ]; then
		sudo "$@"
	else
		"$@"
	fi
}

altvalue() {	# the value of alternative $1, or nothing when it does not exist
	update-alternatives --query "$1" 2>/dev/null | sed -n 's/^Value: //p'
}

altmpich() {	# the MPICH candidate of alternative $1, if there is one
	update-alternatives --query "$1" 2>/dev/null |
		sed -n 's/^Alternative: \(.*[./]mpich\)$/\1/p' | head -n 1
}

# Not mpi-ARCH (/usr/include/ARCH/mpi, mpi.pc, libmpi.so), which
# libopenmpi-dev switches too: Open MPI's own mpif90 links -lmpi through
# it, and nothing of Tangram's uses it (MPICH's wrappers name their paths).
alts="mpi mpirun"
declare -A before
for a in $alts; do
	before[$a]=$(altvalue "$a")
done

rc=0
run apt-get update -qq &&
	run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends $missing || rc=$?

# set back even after a failed install: it may have got as far as a switch
for a in $alts; do
	now=$(altvalue "$a")
	was=${before[$a]}
	[ "$now" = "$was" ] && continue
	if [ -n "$was" ]; then
		echo "deps: the install switched alternative '$a' to ${now:-nothing}; setting it back to $was"
		run update-alternatives --set "$a" "$was" > /dev/null || rc=1
		continue
	fi
	want=$(altmpich "$a")
	[ -n "$want" ] && [ "$now" != "$want" ] || continue
	echo "deps: alternative '$a' was unset and now points to $now; setting it to MPICH ($want), which Tangram is built with"
	run update-alternatives --set "$a" "$want" > /dev/null || rc=1
done
[ $rc = 0 ] || echo "deps: installing the packages failed" >&2
exit $rc
