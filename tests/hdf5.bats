#!/usr/bin/env bats
# The HDF5 layer of the tracer: the programs of tests/hdf5/ (built with
# MPICH's HDF5), traced, and their HDF5 records asserted as tables.  A table
# line is a record as trace-decode prints it without rank, thread,
# sequence, times, depth and layer ("func ret args"), fields joined by one
# space, buffer ids written "b".  Then the levels beneath a collective
# H5Dwrite at 4 ranks, the tracer in a program without HDF5, and Debian's
# HDF5 tools (linked with the serial libhdf5) traced.

bats_require_minimum_version 1.5.0

H5INC=/usr/include/hdf5/mpich
H5LIB=/usr/lib/x86_64-linux-gnu/hdf5/mpich

setup_file() {
	command -v mpicc.mpich >/dev/null ||
		skip "mpicc.mpich is missing (make deps installs MPICH)"
	[ -f "$H5INC/hdf5.h" ] || skip "HDF5-MPICH is missing (make deps installs libhdf5-mpich-dev)"
	export UCX_TLS=${UCX_TLS:-sm,self}
	export MPIR_CVAR_POLLS_BEFORE_YIELD=${MPIR_CVAR_POLLS_BEFORE_YIELD:-1}
	export B=$BATS_FILE_TMPDIR/bin
	local p
	mkdir -p "$B"
	for p in serial parallel; do
		mpicc.mpich -O2 -Wall -Wextra -Werror -I"$H5INC" -o "$B/$p" \
			"$TG_TOP/tests/hdf5/$p.c" -L"$H5LIB" -lhdf5
	done
}

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# table AWK: turn trace-decode's output ($output) into table lines; the awk
# program chooses the records ($6 depth, $7 layer, $8 func).
table() {
	printf '%s\n' "$output" | awk -F'\t' -v OFS=' ' "$1"'
		function row(s, i) {
			s = $8
			for (i = 9; i <= NF; i++)
				s = s " " $i
			print s
		}' | sed -E 's/=b[0-9]+/=b/g'
}

# expect: $calls is the table on standard input (leading tabs cut)
expect() {
	diff -u - <(printf '%s\n' "$calls")
}

# chains FILE: for every record made inside another traced call, its depth,
# function and count= (if any), then the functions of the calls it ran
# inside, innermost first: "2 pwrite count=64 <- MPI_File_write_at_all <- H5Dwrite"
chains() {
	local out
	out=$(trace-decode "$1") || return 1
	printf '%s\n' "$out" | awk -F'\t' '
		/^#/ { next }
		{
			s = $3; f[s] = $8; d[s] = $6; p[s] = -1; c[s] = ""
			for (i = 9; i <= NF; i++) {
				if ($i ~ /^parent=/) p[s] = substr($i, 8)
				if ($i ~ /^count=/) c[s] = " " $i
			}
			order[++n] = s
		}
		END {
			for (k = 1; k <= n; k++) {
				s = order[k]
				if (p[s] < 0)
					continue
				line = d[s] " " f[s] c[s]
				for (q = p[s]; q >= 0 && (q in f); q = p[q])
					line = line " <- " f[q]
				print line
			}
		}'
}

# ---- a serial program -------------------------------------------------------

@test "serial: file, group, 2-D dataset, two hyperslabs, writes, attributes, closes, read back" {
	run -0 --separate-stderr trace-run -o t -- "$B/serial" data.h5
	[ "$output" = "6 x 8, sum 120, errno kept" ]
	[ -z "$stderr" ]
	run -0 --separate-stderr trace-decode -l hdf5 t/*.rec
	[ -z "$stderr" ]
	calls=$(table '!/^#/ && $6 == 0 { row() }')
	expect <<-EOF
	H5open 0
	H5Fcreate F1 filename="$PWD/data.h5" flags=H5F_ACC_TRUNC fcpl_id=H5P_DEFAULT fapl_id=H5P_DEFAULT
	H5Gcreate2 G1 loc_id=F1 name="grid" lcpl_id=H5P_DEFAULT gcpl_id=H5P_DEFAULT gapl_id=H5P_DEFAULT
	H5Screate_simple S1 rank=2 dims=[6,8] maxdims=NULL
	H5Dcreate2 D1 loc_id=G1 name="values" type_id=H5T_NATIVE_INT space_id=S1 lcpl_id=H5P_DEFAULT dcpl_id=H5P_DEFAULT dapl_id=H5P_DEFAULT
	H5Screate_simple S2 rank=2 dims=[2,4] maxdims=[2,4]
	H5Sselect_hyperslab 0 space_id=S1 op=H5S_SELECT_SET start=[2,4] stride=NULL count=[2,4] block=NULL
	H5Dwrite 0 dset_id=D1 mem_type_id=H5T_NATIVE_INT mem_space_id=S2 file_space_id=S1 dxpl_id=H5P_DEFAULT buf=b
	H5Sselect_hyperslab 0 space_id=S1 op=H5S_SELECT_SET start=[0,0] stride=[4,4] count=[2,2] block=[1,2]
	H5Dwrite 0 dset_id=D1 mem_type_id=H5T_NATIVE_INT mem_space_id=S2 file_space_id=S1 dxpl_id=H5P_DEFAULT buf=b
	H5Sget_simple_extent_dims 2 space_id=S1 dims=[6,8] maxdims=[6,8]
	H5Sclose 0 space_id=S2
	H5Screate S2 type=H5S_SCALAR
	H5Acreate2 A1 loc_id=D1 attr_name="scale" type_id=H5T_NATIVE_DOUBLE space_id=S2 acpl_id=H5P_DEFAULT aapl_id=H5P_DEFAULT
	H5Awrite 0 attr_id=A1 type_id=H5T_NATIVE_DOUBLE buf=b
	H5Aclose 0 attr_id=A1
	H5Tcopy T1 type_id=H5T_C_S1
	H5Tset_size 0 type_id=T1 size=7
	H5Acreate2 A1 loc_id=G1 attr_name="units" type_id=T1 space_id=S2 acpl_id=H5P_DEFAULT aapl_id=H5P_DEFAULT
	H5Awrite 0 attr_id=A1 type_id=T1 buf=b
	H5Aclose 0 attr_id=A1
	H5Tclose 0 type_id=T1
	H5Sclose 0 space_id=S2
	H5Sclose 0 space_id=S1
	H5Dclose 0 dset_id=D1
	H5Gclose 0 group_id=G1
	H5Fclose 0 file_id=F1
	H5Fopen F1 filename="$PWD/data.h5" flags=H5F_ACC_RDONLY fapl_id=H5P_DEFAULT
	H5Lexists 1 loc_id=F1 name="grid" lapl_id=H5P_DEFAULT
	H5Dopen2 D1 loc_id=F1 name="/grid/values" dapl_id=H5P_DEFAULT
	H5Dopen2 -1 loc_id=F1 name="missing" dapl_id=H5P_DEFAULT
	H5Dget_space S1 dset_id=D1
	H5Dread 0 dset_id=D1 mem_type_id=H5T_NATIVE_INT mem_space_id=H5S_ALL file_space_id=H5S_ALL dxpl_id=H5P_DEFAULT buf=b
	H5Sclose 0 space_id=S1
	H5Dclose 0 dset_id=D1
	H5Fclose 0 file_id=F1
	EOF
}

@test "serial: the POSIX calls of H5Fcreate, H5Dwrite, H5Fclose carry them as parent, on the file they name" {
	run -0 trace-run -o t -- "$B/serial" data.h5
	calls=$(chains t/*.rec)
	# the file is opened under H5Fcreate and closed under H5Fclose
	run -0 trace-decode -l posix t/*.rec
	opened=$(printf '%s\n' "$output" | awk -F'\t' '$8 ~ /^open/ && $0 ~ /path="'"${PWD//\//\\/}"'\/data.h5"/ && /O_CREAT/' | wc -l)
	[ "$opened" -eq 1 ]
	printf '%s\n' "$calls" | grep -qx '1 open <- H5Fcreate'
	printf '%s\n' "$calls" | grep -qx '1 close <- H5Fclose'
	# the data: the second H5Dwrite reads back and writes the raw data
	printf '%s\n' "$calls" | grep -qx '1 pwrite count=112 <- H5Dwrite'
	# every POSIX call beneath an HDF5 one is at depth 1, nothing deeper
	[ -z "$(printf '%s\n' "$calls" | grep -E '<- H5' | grep -v '^1 ')" ]
}

@test "serial: JSON records: identifiers and names as strings, dimensions as arrays, NULL as null" {
	run -0 trace-run -o t -- "$B/serial" data.h5
	run -0 --separate-stderr trace-decode -j -l hdf5 t/*.rec
	sel=$(printf '%s\n' "$output" | grep '"func":"H5Sselect_hyperslab"' | head -1)
	[[ $sel == *'"args":{"space_id":"S1","op":"H5S_SELECT_SET","start":[2,4],"stride":null,"count":[2,4],"block":null}'* ]]
	[[ $sel == *'"layer":"hdf5"'* ]]
	[[ $sel == *'"ret":0'* ]]
	dc=$(printf '%s\n' "$output" | grep '"func":"H5Dcreate2"')
	[[ $dc == *'"ret":"D1"'* ]]
	[[ $dc == *'"type_id":"H5T_NATIVE_INT","space_id":"S1","lcpl_id":"H5P_DEFAULT"'* ]]
	[[ $(printf '%s\n' "$output" | grep '"name":"missing"') == *'"ret":-1'* ]]
}

# Since 2026-12-05 the calls HDF5 makes are HDF5's whether or not its
# layer is traced (they were the program's, at depth 0, and a parallel
# HDF5 program's verdict changed with the layers traced).
@test "TANGRAM_LAYERS=posix: no HDF5 record; HDF5's POSIX calls one deeper, with no parent, as inside the HDF5 calls not traced" {
	run -0 env TANGRAM_LAYERS=posix trace-run -o t -- "$B/serial" data.h5
	[ "$output" = "6 x 8, sum 120, errno kept" ]
	run -0 --separate-stderr trace-decode t/*.rec
	# no HDF5 record (not "H5": bats's random directory, in the paths, may
	# hold it)
	[[ $output != *$'\thdf5\t'* ]]
	[[ $output != *$'\tH5'[A-Z]* ]]
	[ -z "$(printf '%s\n' "$output" | grep -v '^#' | awk -F'\t' '$6 != 1 || /\tparent=/')" ]
	[[ $output == *pwrite* ]]
}

# ---- a parallel program -----------------------------------------------------

@test "parallel at 4 ranks: H5Pset_fapl_mpio, H5Pset_dxpl_mpio, each rank's hyperslab, a collective H5Dwrite" {
	run -0 --separate-stderr trace-run -o t -- mpirun.mpich -n 4 "$B/parallel" field.h5
	[ "$output" = "4 ranks, sum 10080" ]
	for r in 0 1 2 3; do
		run -0 --separate-stderr trace-decode -l hdf5 "t/rank-$r.rec"
		[ -z "$stderr" ]
		calls=$(table '!/^#/ && $6 == 0 { row() }' | sed -n '/^H5Pcreate/,/^H5Fclose/p')
		expect <<-EOF
		H5Pcreate P1 cls_id=H5P_FILE_ACCESS
		H5Pset_fapl_mpio 0 fapl_id=P1 comm=MPI_COMM_WORLD info=MPI_INFO_NULL
		H5Fcreate F1 filename="$PWD/field.h5" flags=H5F_ACC_TRUNC fcpl_id=H5P_DEFAULT fapl_id=P1
		H5Pclose 0 plist_id=P1
		H5Screate_simple S1 rank=2 dims=[8,8] maxdims=NULL
		H5Dcreate2 D1 loc_id=F1 name="field" type_id=H5T_NATIVE_INT space_id=S1 lcpl_id=H5P_DEFAULT dcpl_id=H5P_DEFAULT dapl_id=H5P_DEFAULT
		H5Screate_simple S2 rank=2 dims=[2,8] maxdims=NULL
		H5Sselect_hyperslab 0 space_id=S1 op=H5S_SELECT_SET start=[$((2 * r)),0] stride=NULL count=[2,8] block=NULL
		H5Pcreate P1 cls_id=H5P_DATASET_XFER
		H5Pset_dxpl_mpio 0 dxpl_id=P1 xfer_mode=H5FD_MPIO_COLLECTIVE
		H5Dwrite 0 dset_id=D1 mem_type_id=H5T_NATIVE_INT mem_space_id=S2 file_space_id=S1 dxpl_id=P1 buf=b
		H5Pclose 0 plist_id=P1
		H5Sclose 0 space_id=S2
		H5Sclose 0 space_id=S1
		H5Dclose 0 dset_id=D1
		H5Fclose 0 file_id=F1
		EOF
	done
}

@test "parallel at 4 ranks: MPI-IO at depth 1 under the H5Dwrite, pwrite at depth 2 under that; 256 bytes in all" {
	run -0 trace-run -o t -- mpirun.mpich -n 4 "$B/parallel" field.h5
	total=0
	for r in 0 1 2 3; do
		calls=$(chains "t/rank-$r.rec")
		# the collective write and the view it sets, beneath H5Dwrite
		printf '%s\n' "$calls" | grep -qx '1 MPI_File_set_view <- H5Dwrite'
		printf '%s\n' "$calls" | grep -qx '1 MPI_File_write_at_all count=64 <- H5Dwrite'
		# the file is opened collectively under H5Fcreate
		printf '%s\n' "$calls" | grep -qx '1 MPI_File_open <- H5Fcreate'
		# whatever rank writes the data, its pwrite leads up to H5Dwrite
		bytes=$(printf '%s\n' "$calls" | awk '
			$2 ~ /^pwrite/ && / <- MPI_File_write_at_all <- H5Dwrite$/ {
				sub(/^count=/, "", $3); n += $3 } END { print n + 0 }')
		total=$((total + bytes))
		# the H5Dwrite record itself: depth 0, no parent
		run -0 trace-decode -l hdf5 "t/rank-$r.rec"
		line=$(printf '%s\n' "$output" | awk -F'\t' '$8 == "H5Dwrite"')
		[ "$(printf '%s\n' "$line" | cut -f6)" = 0 ]
		[[ $line != *parent=* ]]
	done
	[ "$total" -eq 256 ]
}

@test "parallel: the MPI calls of the library's start are beneath H5open; TANGRAM_LAYERS=mpiio,posix leaves two levels, beneath the HDF5 call not traced" {
	run -0 trace-run -o t -- mpirun.mpich -n 4 "$B/parallel" field.h5
	calls=$(chains t/rank-2.rec)
	printf '%s\n' "$calls" | grep -qx '1 MPI_Comm_create_keyval <- H5open'
	run -0 env TANGRAM_LAYERS=mpiio,posix trace-run -o t2 -- mpirun.mpich -n 4 "$B/parallel" field.h5
	[ "$output" = "4 ranks, sum 10080" ]
	run -0 trace-decode t2/rank-3.rec
	# no HDF5 record (the paths may hold "H5": bats's random directory)
	[[ $output != *$'\thdf5\t'* ]]
	calls=$(chains t2/rank-3.rec)
	printf '%s\n' "$calls" | grep -qx '2 pwrite count=64 <- MPI_File_write_at_all'
}

@test "parallel, 10 collective writes: the same ids every time" {
	run -0 trace-run -o t -- mpirun.mpich -n 4 "$B/parallel" field.h5 10
	run -0 trace-decode -l hdf5 t/rank-3.rec
	calls=$(table '!/^#/ && $8 == "H5Dwrite" { row() }' | sort | uniq -c | sed 's/^ *//')
	expect <<-'EOF'
	10 H5Dwrite 0 dset_id=D1 mem_type_id=H5T_NATIVE_INT mem_space_id=S2 file_space_id=S1 dxpl_id=P1 buf=b
	EOF
}

# Each rank writes its own rows: its hyperslab's start, its datatype's
# displacement, its lock's range and its pwrite's offset differ from the
# other ranks' (tangram-cfg(5), Unified streams).
@test "parallel, 3 ranks, 10 writes: merged, the ranks' writes share their rules; each rank decodes as its stream" {
	run -0 trace-run -o t -- mpirun.mpich -n 3 "$B/parallel" field.h5 10
	run -0 trace-merge -q -o u.cfg t/rank-0.rec t/rank-1.rec t/rank-2.rec
	run -0 env TANGRAM_UNIFY=0 trace-merge -q -o p.cfg t/rank-0.rec t/rank-1.rec t/rank-2.rec
	for r in 0 1 2; do
		cmp <(trace-decode -r $r u.cfg | grep -v $'^#timing\t' | cut -f1-3,6-) <(trace-decode t/rank-$r.rec | cut -f1-3,6-)
	done
	# the offsets, lock ranges, starts and displacements are local values
	[ "$(stat -c %s u.cfg)" -lt "$(stat -c %s p.cfg)" ]
	[ "$(od -An -tu1 -j8 -N1 u.cfg | tr -d ' ')" = 13 ]
	# ranks 1 and 2 make their datatypes with the same signatures: each
	# takes the one mean duration of all of them (whether the rule around
	# their locks is shared too depends on which of the merge's cuts gives
	# the smaller file: tangram-cfg(5))
	run -0 trace-decode u.cfg
	[ "$(printf '%s\n' "$output" | awk -F'\t' '$1 > 0 && $8 == "MPI_Type_create_hindexed" { print $5 - $4 }' | sort -u | wc -l)" -eq 1 ]
}

# ---- the tracer's setting -------------------------------------------------------

@test "preloaded into cat, which has no HDF5, the tracer maps no HDF5 library" {
	run -0 --separate-stderr env TANGRAM_DIR=t LD_PRELOAD="$TG_TOP/lib/libtangram.so" cat /proc/self/maps
	[ -z "$stderr" ]
	[[ $output == *"$TG_TOP/lib/libtangram.so"* ]]
	[[ $output != *libhdf5* ]]
	[[ $output != *libmpi* ]]
}

@test "h5dump (hdf5-tools, serial libhdf5) prints the same traced and untraced; its calls are recorded by name" {
	command -v h5dump >/dev/null || skip "h5dump is missing (make deps installs hdf5-tools)"
	run -0 "$B/serial" data.h5
	run -0 --separate-stderr h5dump data.h5
	plain=$output
	[[ $plain == *'ATTRIBUTE "units"'*'"kelvin"'* ]]
	run -0 --separate-stderr trace-run -o t -- h5dump data.h5
	[ "$output" = "$plain" ]
	[ -z "$stderr" ]
	run -0 --separate-stderr trace-decode -l hdf5 t/*.rec
	[ -z "$stderr" ]
	calls=$(table '!/^#/ && $8 ~ /^H5F(open|close)$/ && $6 == 0 { row() }')
	expect <<-EOF
	H5Fopen F1 filename="$PWD/data.h5" flags=H5F_ACC_RDONLY fapl_id=H5P_DEFAULT
	H5Fclose 0 file_id=F1
	EOF
	# the calls h5dump makes from its iteration callbacks: beneath the
	# H5Lvisit_by_name, H5Aiterate2 ... that called them
	calls=$(chains t/*.rec)
	printf '%s\n' "$calls" | grep -qx '1 H5Dopen2 <- H5Lvisit_by_name'
	printf '%s\n' "$calls" | grep -q '^2 H5Aread <- H5Aiterate2 <- '
	printf '%s\n' "$calls" | grep -q '^[0-9]* H5Dread <- '
}

@test "h5ls -r and a missing file: the same output, the failed H5Fopen with errno=ENOENT" {
	command -v h5ls >/dev/null || skip "h5ls is missing (make deps installs hdf5-tools)"
	run -0 "$B/serial" data.h5
	run -0 --separate-stderr h5ls -r data.h5
	plain=$output
	run -0 --separate-stderr trace-run -o t -- h5ls -r data.h5
	[ "$output" = "$plain" ]
	[[ $output == *"/grid/values             Dataset {6, 8}"* ]]
	run -1 --separate-stderr h5dump missing.h5
	plain=$stderr
	run -1 --separate-stderr trace-run -o t2 -- h5dump missing.h5
	[ "$stderr" = "$plain" ]
	run -0 trace-decode -l hdf5 t2/*.rec
	calls=$(table '!/^#/ && $8 == "H5Fopen" { row() }' | head -1)
	expect <<-EOF
	H5Fopen -1 filename="$PWD/missing.h5" flags=H5F_ACC_RDONLY fapl_id=H5P_DEFAULT errno=ENOENT
	EOF
}

@test "built with h5pcc (HDF5 linked in statically): the output is the same, and the tracer says once that HDF5 is not traced; -shlib is traced" {
	command -v h5pcc.mpich >/dev/null || skip "h5pcc.mpich is missing (make deps installs libhdf5-mpich-dev)"
	h5pcc.mpich -o static "$TG_TOP/tests/hdf5/parallel.c"
	h5pcc.mpich -shlib -o shared "$TG_TOP/tests/hdf5/parallel.c"
	run -0 --separate-stderr trace-run -o t -- mpirun.mpich -n 2 ./static field.h5
	[ "$output" = "2 ranks, sum 1840" ]
	[ "$stderr" = "tangram: HDF5 is linked into this program statically (h5pcc's default): its HDF5 calls are not traced, only the MPI and POSIX calls HDF5 makes; build with 'h5pcc -shlib' or link -lhdf5" ]
	run -0 --separate-stderr trace-decode -l hdf5 t/rank-0.rec
	[ -z "$(grep -v '^#' <<<"$output")" ]
	run -0 --separate-stderr trace-run -o t2 -- mpirun.mpich -n 2 ./shared field.h5
	[ "$output" = "2 ranks, sum 1840" ]
	[ -z "$stderr" ]
	run -0 --separate-stderr trace-decode -l hdf5 t2/rank-0.rec
	grep -q $'\tH5Dwrite\t' <<<"$output"
	# a program that never starts MPI: HDF5's own opens are HDF5's too
	h5pcc.mpich -o serial-static "$TG_TOP/tests/hdf5/serial.c"
	run -0 --separate-stderr trace-run -o t4 -- ./serial-static s.h5
	run -0 trace-decode t4/*.rec
	[ "$(table '!/^#/ && $8 == "open" && $10 ~ /s\.h5"/ { print $6, ($0 ~ /\tparent=/) }' | sort -u)" = "1 0" ]
	# stripped: no symbol tables to find HDF5's code by; said so
	cp static stripped
	strip -s stripped
	run -0 --separate-stderr trace-run -o t3 -- mpirun.mpich -n 2 ./stripped field.h5
	[ "$output" = "2 ranks, sum 1840" ]
	[ "$stderr" = "tangram: HDF5 is linked into this stripped program statically: its HDF5 calls are not traced, and the calls HDF5 makes count as the program's; build with 'h5pcc -shlib' or link -lhdf5" ]
}

# HDF5 linked into the program (h5pcc's default) makes its MPI-IO calls
# from the program's own executable: they are recorded one deeper, with no
# parent, as inside an HDF5 call (the tracer finds HDF5's code in the
# executable's symbol table), so HDF5's MPI_File_get_size in H5Fclose is
# not the program's look at the size: the static build's verdicts are the
# -shlib build's (posix at the MPI-IO layer before, from that look paired
# with rank 1's write).  The program's own MPI calls stay at depth 0
# (its MPI_Comm_rank; HDF5 makes its own).
@test "built with h5pcc: the MPI-IO calls HDF5 makes are recorded as inside HDF5 (depth 1, no parent), and the verdicts are those of the -shlib build" {
	command -v h5pcc.mpich >/dev/null || skip "h5pcc.mpich is missing (make deps installs libhdf5-mpich-dev)"
	h5pcc.mpich -o static "$TG_TOP/tests/hdf5/parallel.c"
	h5pcc.mpich -shlib -o shared "$TG_TOP/tests/hdf5/parallel.c"
	run -0 --separate-stderr trace-run -o t -- mpirun.mpich -n 2 ./static field.h5
	[ "$output" = "2 ranks, sum 1840" ]
	run -0 --separate-stderr trace-run -o t2 -- mpirun.mpich -n 2 ./shared field.h5
	[ "$output" = "2 ranks, sum 1840" ]
	run -0 trace-decode t/rank-0.rec
	calls=$(table '!/^#/ && ($8 == "MPI_File_get_size" || $8 == "MPI_File_write_at_all" || $8 == "MPI_Comm_rank") { print $6, $8, ($0 ~ /\tparent=/ ? "parent" : "none") }' | sort -u)
	expect <<-EOF
	0 MPI_Comm_rank none
	1 MPI_Comm_rank none
	1 MPI_File_get_size none
	1 MPI_File_write_at_all none
	EOF
	# ROMIO's pwrite inside HDF5's collective write: one deeper again
	[ "$(table '!/^#/ && $8 == "pwrite" { print $6 }' | sort -u)" = 2 ]
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" t
	static=$output
	[[ $static == *"MPI-IO layer: recommended consistency: session"* ]]
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" t2
	[ "${static//field.h5/}" = "${output//field.h5/}" ]
	# the calls HDF5 made are the program's for --top, and an export's
	run -0 trace-decode --top -l mpiio t/rank-0.rec
	grep -q $'\tMPI_File_write_at_all\t' <<<"$output"
	run -0 trace-export -f hdtrace -o hd t/*.rec
	grep -q '<File_get_size ' hd/*_0_0.trc
	# the HDF5 layer not traced: a shared HDF5's calls are HDF5's all the same
	run -0 --separate-stderr trace-run -l posix,stdio,mpi,mpiio -o t3 -- mpirun.mpich -n 2 ./shared field.h5
	run -0 trace-decode t3/rank-0.rec
	[ "$(table '!/^#/ && $8 == "MPI_File_get_size" { print $6, ($0 ~ /\tparent=/) }' | sort -u)" = "1 0" ]
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" t3
	[[ $output == *"MPI-IO layer: recommended consistency: session"* ]]
}

# Which calls count as made inside a linked-in HDF5 is decided by where
# they return to: tests/hdf5/H5sites.c makes POSIX, stdio, MPI and MPI-IO
# calls from a file named as HDF5's sources are, and each wrapper must
# take the program's call site (not one inside the tracer: open, fcntl,
# the printf family and stdio's helpers were recorded at depth 0 before).
# The same code in a file of another name is the program's: a function
# named H5_something is not enough.
@test "built with h5pcc: every call made from HDF5's code is one deeper with no parent, whatever the wrapper; the same code in a program's own file stays the program's" {
	command -v h5pcc.mpich >/dev/null || skip "h5pcc.mpich is missing (make deps installs libhdf5-mpich-dev)"
	h5pcc.mpich -o sites "$TG_TOP/tests/hdf5/H5sites.c"
	cp "$TG_TOP/tests/hdf5/H5sites.c" mysites.c
	h5pcc.mpich -o mysites mysites.c
	mkdir d
	run -0 --separate-stderr trace-run -o t -- mpirun.mpich -n 2 ./sites "$PWD/d"
	[[ $output == "HDF5 1."* ]]
	run -0 trace-decode t/rank-0.rec
	# between the two markers: how many records at each depth (thread 0)
	between='!/^#/ && $2 == 0 { if ($8 == "access" && $10 ~ /path="\/"/) { m++; next } if (m == 1) print ($6 == 0 ? "top" : "inside") }'
	[ "$(table "$between" | grep -c top)" -eq 0 ]
	[ "$(table "$between" | grep -c inside)" -ge 60 ]
	for f in open openat creat fcntl flock fopen fprintf fgets fread fclose rename mkdir MPI_File_get_size MPI_Barrier; do
		[ "$(table '!/^#/ && $2 == 0 && $8 == "'$f'" && $6 == 1 && $0 !~ /\tparent=/' | wc -l)" -ge 1 ] || { echo "$f"; false; }
	done
	[ "$(table '!/^#/ && $8 == "MPI_Comm_rank" { print $6 }' | head -1)" = 0 ]
	run -0 --separate-stderr trace-run -o t2 -- mpirun.mpich -n 2 ./mysites "$PWD/d"
	run -0 trace-decode t2/rank-0.rec
	# (inside: what MPI-IO calls do, at depth 1 under the program's call)
	[ "$(table "$between" | grep -c top)" -ge 35 ]
	[ "$(table "$between" | grep -c inside)" -lt 40 ]
}

# Fortran's HDF5 library calls the C one: a program built with h5pfc
# -shlib (tests/hdf5/neighbour.f90) has its H5Dwrite and H5Dread traced as a
# C program's, and each rank's read of its neighbour's hyperslab after the
# reopening is a pair between processes that session orders.
@test "a Fortran parallel HDF5 program (h5pfc -shlib): its HDF5 calls traced through the Fortran library; its neighbour reads after reopening, session" {
	command -v h5pfc.mpich >/dev/null || skip "h5pfc.mpich is missing (make deps installs libhdf5-mpich-dev)"
	h5pfc.mpich -shlib -o neighbour "$TG_TOP/tests/hdf5/neighbour.f90" 2>/dev/null ||
		skip "h5pfc.mpich cannot build (no HDF5 Fortran module)"
	run -0 --separate-stderr trace-run -o t -- mpirun.mpich -n 3 ./neighbour "$PWD/n.h5"
	[ "$output" = "3 ranks ok" ]
	run -0 --separate-stderr trace-decode -l hdf5 t/rank-1.rec
	[ "$(grep -c $'\tH5Dwrite\t' <<<"$output")" -eq 1 ]
	[ "$(grep -c $'\tH5Dread\t' <<<"$output")" -eq 1 ]
	trace-decode t/*.rec > text
	run -0 overlap-find -l mpiio text
	[ "$(awk -F'\t' '$1 == "pair" && $3 != $11 && $8 ~ /write/ && $16 ~ /read/' <<<"$output" | wc -l)" -ge 3 ]
	run -0 --separate-stderr "$TG_TOP/pipelines/verify-io" t
	[[ $output == *"POSIX layer: recommended consistency: session"* ]]
	[[ $output == *"MPI-IO layer: recommended consistency: session"* ]]
}

# h5py's extension modules link libhdf5 and are loaded RTLD_LOCAL: the
# program's HDF5 calls reach the tracer's wrappers first, and the library
# is not where RTLD_NEXT looks (every call failed there before)
@test "HDF5 loaded out of the global scope (dlopen RTLD_LOCAL of a part that links libhdf5, as h5py does): the calls reach HDF5 and are traced" {
	mpicc.mpich -DPART -shared -fPIC -I"$H5INC" -o libpart.so "$TG_TOP/tests/hdf5/dlh5.c" \
		-L"$H5LIB" -lhdf5
	cc -O2 -Wall -o dlh5 "$TG_TOP/tests/hdf5/dlh5.c" -ldl
	run -0 --separate-stderr trace-run -o t -- ./dlh5 ./libpart.so "$PWD/x.h5"
	[ "$output" = "0 10 20 30 40 50 60 70" ]
	[ -z "$stderr" ]
	run -0 trace-decode t/*.rec
	calls=$(table '$7 == "hdf5" && $6 == 0 { row() }')
	# the predefined type by its name: the library's globals are looked
	# for where its functions are (T1 before)
	grep -qx 'H5Dwrite 0 dset_id=D1 mem_type_id=H5T_NATIVE_INT mem_space_id=H5S_ALL file_space_id=H5S_ALL dxpl_id=H5P_DEFAULT buf=b' <<<"$calls"
	grep -q '^H5Dread 0 ' <<<"$calls"
}

# Two HDF5 libraries in one process, each loaded RTLD_LOCAL by a shared
# object linked with it (tests/hdf5/twolibs.c: MPICH's HDF5 and the serial
# one; in Python, h5py's parallel HDF5 and the one NetCDF links).  The
# shim's one wrapper of each function takes both objects' calls; until
# 2026-12-03 it sent them all to the library it found first, and the other
# object's file failed ("Inappropriate type"), traced only.  Each call now
# goes to the library its caller links.
@test "two HDF5 libraries in one process: each object's calls reach its own library, traced as untraced" {
	local serial=/usr/lib/x86_64-linux-gnu/libhdf5_serial.so.103
	[ -e "$serial" ] || skip "the serial HDF5 library is missing"
	mpicc.mpich -O2 -Wall -shared -fPIC -I"$H5INC" -o p-mpich.so "$TG_TOP/tests/hdf5/twolibs-part.c" \
		-L"$H5LIB" -lhdf5
	mpicc.mpich -O2 -Wall -shared -fPIC -I"$H5INC" -o p-serial.so "$TG_TOP/tests/hdf5/twolibs-part.c" \
		-l:libhdf5_serial.so.103
	gcc -O2 -Wall -o twolibs "$TG_TOP/tests/hdf5/twolibs.c" -ldl
	run -0 ./twolibs ./p-mpich.so ./p-serial.so
	[ "$output" = $'1: ok\n2: ok' ]
	rm -f part*.h5
	run -0 --separate-stderr timeout 120 trace-run -o t -- ./twolibs ./p-serial.so ./p-mpich.so
	[ "$output" = $'1: ok\n2: ok' ]
	[ -z "$stderr" ]
	run -0 trace-decode t/*.rec
	[ "$(grep -c $'\tH5Dwrite\t0\t' <<<"$output")" = 2 ]
}
