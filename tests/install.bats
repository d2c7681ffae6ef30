#!/usr/bin/env bats
# make install: every program of bin/ and pipelines/ has a man page and is
# installed with it, and every program the README names is one of them.

bats_require_minimum_version 1.5.0

setup_file() {
	D=$BATS_FILE_TMPDIR/dest
	export D
	env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$TG_TOP" install DESTDIR="$D" PREFIX=/usr/local \
		> "$BATS_FILE_TMPDIR/install.log" 2>&1
}

setup() {
	cd "$TG_TOP"
}

programs() { for f in bin/* pipelines/*; do [ -x "$f" ] && echo "${f##*/}"; done; }

@test "make install DESTDIR=... installs every program of bin/ and pipelines/" {
	[ -d "$D/usr/local/bin" ] || { cat "$BATS_FILE_TMPDIR/install.log"; false; }
	for p in $(programs); do
		[ -x "$D/usr/local/bin/$p" ] || { echo "not installed: $p"; false; }
	done
	# the installed tfs-bench finds the installed libtfs.so (../lib beside it)
	run -0 --separate-stderr env -u LD_LIBRARY_PATH "$D/usr/local/bin/tfs-bench" -h
	[[ $output == "usage: tfs-bench "* ]]
}

@test "every program of bin/ and pipelines/ has a man page, installed, whose NAME is one line" {
	for p in $(programs); do
		m=$(ls man/"$p".[18] 2>/dev/null) || { echo "no man page: $p"; false; }
		s=${m##*.}
		[ -f "$D/usr/local/share/man/man$s/$p.$s" ] || { echo "man page not installed: $p.$s"; false; }
		# man -k reads the NAME section: one .Nm, then one .Nd
		[ "$(sed -n '/^\.Sh NAME/,/^\.Sh /p' "$m" | grep -c '^\.Nd ')" -eq 1 ]
		sed -n '/^\.Sh NAME/,/^\.Sh /p' "$m" | grep -qx ".Nm $p"
	done
}

@test "the man pages keep the No of a quoted \"No such file or directory\" on a macro line; make lint-man catches one lost" {
	command -v mandoc >/dev/null || skip "mandoc is missing (make deps installs it)"
	for f in man/*.[0-9]; do
		! mandoc -T utf8 "$f" | col -b | tr -s ' \n' '  ' | grep -o '[^ ]* such file or directory' |
			grep -v '^No ' || { echo "$f lost its No"; false; }
	done
	mkdir "$BATS_TEST_TMPDIR/m" && cp -r Makefile man "$BATS_TEST_TMPDIR/m/"
	printf '.Sh BUGS\n.Dl x: No such file or directory\n' >> "$BATS_TEST_TMPDIR/m/man/hb-query.1"
	run -2 --separate-stderr env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$BATS_TEST_TMPDIR/m" lint-man
	[ "$output" = "man/hb-query.1: the No macro ate a word: x: such file or directory" ]
}

@test "the man pages' examples preload a library by its path, not by a bare name the loader finds only in its own path" {
	run grep -n 'LD_PRELOAD=lib[a-z-]*\.so' man/*.[0-9]
	[ "$status" -eq 1 ] || { echo "$output"; false; }
}

@test "every program the README names is built into bin/ or is in pipelines/" {
	names=$(grep -oP '(?:(?<![/\w-])|(?<=bin/)|(?<=pipelines/))(trace|tfs|hb|overlap|conflict|verify)-[a-z0-9-]+(?![\w/-]|\.\w)' README.md | sort -u)
	[[ $names == *tfs-bench* ]]
	for p in $names; do
		[ -x "bin/$p" ] || [ -x "pipelines/$p" ] || { echo "README names $p, which is not built"; false; }
	done
}

@test "every TANGRAM_* and TFS_* variable the sources read is in the README's table and the man pages it names" {
	vars=$(grep -rhoE 'getenv\("(TANGRAM|TFS)_[A-Z_]+"\)' shim tools tfs libcommon | grep -oE '(TANGRAM|TFS)_[A-Z_]+' | sort -u)
	[ "$(wc -w <<< "$vars")" -ge 25 ]
	for v in $vars; do
		row=$(grep -E "^\| \`$v\` \|" README.md) || { echo "not in the README's table: $v"; false; }
		pages=$(awk -F' \\| ' '{ print $4 }' <<< "$row" | grep -oE '[a-z-]+\([0-9]\)')
		[ -n "$pages" ]
		for p in $pages; do
			f=man/${p%(*}.${p//[^0-9]/}
			grep -qE "^\.(It )?Ev (.* )?$v( |$)" "$f" || { echo "$v: not in $f"; false; }
		done
	done
}

@test "make regen reproduces the checked-in call tables and wrappers (no hand edit of a generated file)" {
	json=$TG_TOP/../shared/mpi/apis.json
	[ -r "$json" ] || skip "the MPI Forum's apis.json is not at ../shared/mpi"
	[ -r /usr/include/x86_64-linux-gnu/mpich/mpi_proto.h ] || skip "MPICH's headers are missing"
	cp -r Makefile shim libcommon "$BATS_TEST_TMPDIR/"
	run -0 make -C "$BATS_TEST_TMPDIR" regen MPI_JSON="$json"
	for f in shim/mpi.tab libcommon/calltab.gen.c libcommon/funcid.gen.h libcommon/mpinames.gen.c \
		shim/wrappers.gen.c shim/mpi-wrappers.gen.c shim/h5-wrappers.gen.c shim/wrapnames.gen.txt; do
		cmp "$f" "$BATS_TEST_TMPDIR/$f" || { echo "make regen changes $f"; false; }
	done
}
