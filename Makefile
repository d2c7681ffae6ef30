# Tangram - build, test, demo, benchmarks.  See README.md.
#
#   make            everything: bin/, lib/
#   make check      all tests (SANITIZE=1: tools, tfs-server and unit tests with ASan/UBSan)
#   make check-long the long variants of the fault and bounds tests, and make fuzz
#   make demo       the main job on the bundled example
#   make bench      benchmarks (tests/bench)
#   make fuzz       fuzz every parser FUZZ_SECONDS each (tests/fuzz)
#   make deps       install the Debian packages the project needs (demo and check
#                   run it first when one is missing; DEPS=no skips that)
#   make deps-apps  the third-party applications some tests run (tests skip without them)
#   make install PREFIX=/usr/local

PREFIX ?= /usr/local
CC = gcc
MPICC = mpicc.mpich
PYTHON ?= python3

WARN = -Wall -Wextra -Werror
CFLAGS = -O2 -g -std=gnu11 $(WARN)
ifeq ($(SANITIZE),1)
TOOLSAN = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
BUILD = build/san
BINDIR = build/san/bin
else
TOOLSAN =
BUILD = build/opt
BINDIR = bin
endif

JANSSON_LIBS = -ljansson
ZLIB_LIBS = -lz

COMMON_SRC = libcommon/stream.c libcommon/rec.c libcommon/rechead.c libcommon/names.c \
	libcommon/text.c libcommon/util.c libcommon/textin.c libcommon/calltab.gen.c \
	libcommon/mpinames.gen.c libcommon/h5names.c libcommon/h5names.gen.c \
	libcommon/hb.c libcommon/cfg.c libcommon/cfgsig.c libcommon/cfgtime.c libcommon/kinds.c libcommon/kindtext.c \
	libcommon/cfgcst.c libcommon/cfgrebuild.c libcommon/cfgcompress.c libcommon/cfgmerge.c \
	libcommon/cfgopt.c libcommon/cfgunify.c libcommon/cfgreshape.c libcommon/cfgwrite.c libcommon/cfgread.c libcommon/cfgdecode.c \
	libcommon/cfgpack.c libcommon/cfggram.c libcommon/cfgxtime.c \
	libcommon/sequitur.c libcommon/cfgcli.c libcommon/role.c libcommon/runs.c \
	libcommon/exe.c
COMMON_HDR = $(wildcard libcommon/*.h)
# What the shim needs of libcommon (no stdio, no jansson).
SHIM_COMMON_SRC = libcommon/stream.c libcommon/rechead.c libcommon/names.c libcommon/mpinames.gen.c \
	libcommon/calltab.gen.c libcommon/h5names.gen.c libcommon/runs.c libcommon/exe.c
SHIM_SRC = shim/core.c shim/hand.c shim/hooks.c shim/wrappers.gen.c
SHIM_MPI_SRC = shim/mpi.c shim/mpi-wrappers.gen.c
# ROMIO's own communication inside MPI-IO calls: not in the static tracer
SHIM_PMPI_SRC = shim/pmpi.c
SHIM_H5_SRC = shim/h5.c shim/h5-wrappers.gen.c
MPI_CFLAGS = -I/usr/include/x86_64-linux-gnu/mpich
# the HDF5 headers (MPICH build); the shim links no HDF5 library
H5_CFLAGS = -I/usr/include/hdf5/mpich
SHIM_HDR = $(wildcard shim/*.h) $(COMMON_HDR)

TOOLS = trace-decode trace-run overlap-find conflict-check hb-build hb-query \
	trace-compress trace-merge trace-merge-mpi trace-export trace-proxy
TOOLS += trace-report
BINS = $(addprefix $(BINDIR)/,$(TOOLS))
LIBS = lib/libtangram.so lib/libtangram-mpi.so lib/libtangram.a lib/tangram.wrap

COMMON_OBJ = $(patsubst %.c,$(BUILD)/%.o,$(COMMON_SRC))
SHIM_OBJ = $(patsubst %.c,build/shim/%.o,$(SHIM_SRC) $(SHIM_MPI_SRC) $(SHIM_PMPI_SRC) \
	$(SHIM_H5_SRC) $(SHIM_COMMON_SRC))
# x86-64: the calls that take MPI handles enter through shim/stubs.S, which
# sends them past the wrappers to an MPI library that is not MPICH's
SHIM_STUBS := $(filter x86_64,$(shell uname -m))
ifneq ($(SHIM_STUBS),)
SHIM_OBJ += build/shim/shim/stubs.o
SHIM_STUB_CFLAGS = -DTG_MPI_STUBS -Ibuild/shim
endif
# ... and with Open MPI's mpi.h (libopenmpi-dev), where they go for a
# program of Open MPI: the wrappers compiled once more (shim/mpi-ompi.c)
OMPI_INC = /usr/lib/x86_64-linux-gnu/openmpi/include
ifneq ($(SHIM_STUBS),)
ifneq ($(wildcard $(OMPI_INC)/mpi.h),)
SHIM_OBJ += build/shim/shim/mpi-ompi.o
endif
endif

.PHONY: all check check-long demo bench fuzz deps install clean regen lint-man test-apps deps-auto deps-apps
.DELETE_ON_ERROR:

all: $(BINS) $(LIBS)

$(BUILD)/%.o: %.c $(COMMON_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(TOOLSAN) -c -o $@ $<

$(BUILD)/libcommon.a: $(COMMON_OBJ)
	rm -f $@
	ar rcs $@ $^

$(BINDIR)/trace-decode: $(BUILD)/tools/trace-decode.o $(BUILD)/libcommon.a
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS) $(TOOLSAN) -o $@ $^ $(JANSSON_LIBS) $(ZLIB_LIBS) -lm

$(BINDIR)/trace-compress: $(BUILD)/tools/trace-compress.o $(BUILD)/libcommon.a
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS) $(TOOLSAN) -o $@ $^ $(JANSSON_LIBS) $(ZLIB_LIBS) -lm

# trace-merge links no MPI; trace-merge --mpi runs trace-merge-mpi, found
# next to it, which is the same merge over MPI (mpicc.mpich).
$(BINDIR)/trace-merge: $(BUILD)/tools/trace-merge.o $(BUILD)/tools/merge.o $(BUILD)/libcommon.a
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS) $(TOOLSAN) -o $@ $^ $(JANSSON_LIBS) $(ZLIB_LIBS) -lm

$(BINDIR)/trace-merge-mpi: $(BUILD)/tools/trace-merge-mpi.o $(BUILD)/tools/merge.o $(BUILD)/libcommon.a
	@mkdir -p $(BINDIR)
	$(MPICC) $(CFLAGS) $(TOOLSAN) -o $@ $^ $(JANSSON_LIBS) $(ZLIB_LIBS) -lm

$(BUILD)/tools/trace-merge-mpi.o: tools/trace-merge-mpi.c tools/merge.h $(COMMON_HDR)
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) $(TOOLSAN) -c -o $@ $<

$(BUILD)/tools/trace-merge.o $(BUILD)/tools/merge.o: tools/merge.h

$(BINDIR)/overlap-find: $(BUILD)/tools/overlap-find.o $(BUILD)/tools/flatten.o $(BUILD)/libcommon.a
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS) $(TOOLSAN) -o $@ $^ $(JANSSON_LIBS)

$(BUILD)/tools/overlap-find.o $(BUILD)/tools/flatten.o: tools/flatten.h

REPORT_OBJ = $(BUILD)/tools/trace-report.o $(BUILD)/tools/report-html.o \
	$(BUILD)/tools/report-svg.o $(BUILD)/tools/report-conf.o

$(BINDIR)/trace-report: $(REPORT_OBJ) $(BUILD)/libcommon.a
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS) $(TOOLSAN) -o $@ $^ $(JANSSON_LIBS) $(ZLIB_LIBS) -lm

$(REPORT_OBJ): tools/report.h

PROXY_OBJ = $(BUILD)/tools/trace-proxy.o $(BUILD)/tools/proxyfit.o $(BUILD)/tools/proxyemit.o \
	$(BUILD)/tools/proxyrt.o

$(BINDIR)/trace-proxy: $(PROXY_OBJ) $(BUILD)/libcommon.a
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS) $(TOOLSAN) -o $@ $^ $(JANSSON_LIBS) $(ZLIB_LIBS) -lm

$(PROXY_OBJ): tools/proxy.h

# the proxy's run-time support, tools/proxyrt.inc, as one C string
$(BUILD)/tools/proxyrt.c: tools/proxyrt.inc
	@mkdir -p $(dir $@)
	{ echo 'const char tg_proxy_rt[] ='; sed 's/\\/\\\\/g; s/"/\\"/g; s/^/"/; s/$$/\\n"/' $<; echo ';'; } > $@

$(BUILD)/tools/proxyrt.o: $(BUILD)/tools/proxyrt.c
	$(CC) $(CFLAGS) $(TOOLSAN) -c -o $@ $<

$(BINDIR)/conflict-check: $(BUILD)/tools/conflict-check.o $(BUILD)/libcommon.a
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS) $(TOOLSAN) -o $@ $^ $(JANSSON_LIBS) $(ZLIB_LIBS)

# hb-build is a folder: main.c, the passes (graph.c parses and runs them,
# walk.c, index.c) and util.c, the leaf they all use.
HB_OBJ = $(patsubst %.c,$(BUILD)/%.o,$(wildcard tools/hb-build/*.c))

$(BINDIR)/hb-build: $(HB_OBJ) $(BUILD)/libcommon.a
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS) $(TOOLSAN) -o $@ $^ $(JANSSON_LIBS) $(ZLIB_LIBS)

$(HB_OBJ): $(wildcard tools/hb-build/*.h)

$(BINDIR)/hb-query: $(BUILD)/tools/hb-query.o $(BUILD)/libcommon.a
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS) $(TOOLSAN) -o $@ $^ $(JANSSON_LIBS) $(ZLIB_LIBS)

EXPORT_OBJ = $(BUILD)/tools/export-chrome.o $(BUILD)/tools/export-sqlite.o \
	$(BUILD)/tools/export-otf2.o $(BUILD)/tools/export-hdtrace.o

$(BINDIR)/trace-export: $(BUILD)/tools/trace-export.o $(EXPORT_OBJ) $(BUILD)/libcommon.a
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS) $(TOOLSAN) -o $@ $^ $(JANSSON_LIBS) -lsqlite3 -lotf2 $(ZLIB_LIBS) -lm -pthread

$(BUILD)/tools/trace-export.o $(EXPORT_OBJ): tools/export.h

$(BINDIR)/trace-run: tools/trace-run.c $(COMMON_HDR) $(BUILD)/libcommon.a
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS) $(TOOLSAN) -DTG_LIBDIR='"$(PREFIX)/lib"' -o $@ tools/trace-run.c $(BUILD)/libcommon.a $(JANSSON_LIBS) $(ZLIB_LIBS)

# The sanitized trace-run finds the tracer in ../lib beside itself, as the
# installed one does: there, the one unsanitized lib/.
ifeq ($(SANITIZE),1)
all: build/san/lib
build/san/lib:
	@mkdir -p build/san
	ln -sfn ../../lib $@
endif

# The shim: position-independent, everything hidden but the wrappers, never
# sanitized (it is preloaded into programs that are not).
SHIM_CFLAGS = $(CFLAGS) -fPIC -fvisibility=hidden -fno-builtin -ftls-model=initial-exec

build/shim/%.o: %.c $(SHIM_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(SHIM_CFLAGS) $(SHIM_STUB_CFLAGS) $(MPI_CFLAGS) -c -o $@ $<

# every function whose wrapper is TG_MPINAME(NAME) or TG_PMPI_HAND(NAME, ...)
# (PMPI_NAME), with its index
build/shim/stubs.gen.h: shim/mpi.c shim/mpi-wrappers.gen.c shim/pmpi.c shim/pmpi.gen.c \
		shim/h5-wrappers.gen.c shim/h5-mpi-wrappers.gen.c
	@mkdir -p $(dir $@)
	grep -ho 'TG_MPINAME([A-Za-z0-9_]*)\|^TG_PMPI_HAND([A-Za-z0-9_]*,' $^ | \
		sed 's/^TG_MPINAME(\(.*\))$$/\1/; s/^TG_PMPI_HAND(\(.*\),$$/PMPI_\1/' | \
		LC_ALL=C sort -u | awk '{ printf "TG_STUB(%s, %d)\n", $$1, NR - 1 }' > $@

build/shim/shim/mpi.o build/shim/shim/stubs.o: build/shim/stubs.gen.h

build/shim/shim/mpi-ompi.o: shim/mpi-ompi.c shim/mpi.c shim/mpi-wrappers.gen.c shim/pmpi.c shim/pmpi.gen.c $(SHIM_HDR) \
		shim/h5-mpi-wrappers.gen.c build/shim/stubs.gen.h build/shim/ompi-absent.h \
		build/shim/ompi-predef.h
	@mkdir -p $(dir $@)
	$(CC) $(SHIM_CFLAGS) $(SHIM_STUB_CFLAGS) -I$(OMPI_INC) $(H5_CFLAGS) -c -o $@ $<

# the wrapped calls Open MPI's mpi.h does not declare (nor its persistent
# collectives' header, MPIX_*_init, when it has one): TG_NO_NAME each
OMPI_PCOLL = $(wildcard $(OMPI_INC)/openmpi/mpiext/mpiext_pcollreq_c.h)
build/shim/ompi-absent.h: shim/mpi-wrappers.gen.c $(OMPI_INC)/mpi.h $(OMPI_PCOLL)
	@mkdir -p $(dir $@)
	cat $(OMPI_INC)/mpi.h $(OMPI_PCOLL) | grep -o '[A-Za-z_][A-Za-z0-9_]* *(' | tr -d ' (' | \
		LC_ALL=C sort -u > $@.have
	{ echo '/* Made by the Makefile from Open MPI'"'"'s mpi.h: do not edit. */'; \
	  sed -n 's/^#ifndef TG_NO_//p' shim/mpi-wrappers.gen.c | LC_ALL=C sort -u | \
		LC_ALL=C comm -23 - $@.have | sed 's/^/#define TG_NO_/'; } > $@
	rm -f $@.have

# MPICH's predefined handles (libcommon/mpinames.gen.c) that Open MPI's
# mpi.h defines too: TG_PREDEF(kind, MPICH's value, name) each
build/shim/ompi-predef.h: libcommon/mpinames.gen.c
	@mkdir -p $(dir $@)
	{ echo '/* Made by the Makefile from libcommon/mpinames.gen.c: do not edit. */'; \
	  awk '/^\t\{ TG_H_[A-Z]*, 0x/ { gsub(/[{},"]/, ""); \
		print "#ifdef " $$3; print "TG_PREDEF(" $$1 ", " $$2 ", " $$3 ")"; print "#endif" }' $<; } > $@
build/shim/shim/pmpi.o: shim/pmpi.gen.c

# every function whose wrapper is TG_HOOKNAME(NAME) (calls.tab: hooked)
build/shim/hooks.gen.h: shim/wrappers.gen.c
	@mkdir -p $(dir $@)
	grep -o 'TG_HOOKNAME([A-Za-z0-9_]*)(' $^ | sed 's/^TG_HOOKNAME(\(.*\))($$/TG_HOOK(\1)/' | \
		LC_ALL=C sort -u > $@

build/shim/shim/stubs.o: build/shim/hooks.gen.h

build/shim/shim/stubs.o: shim/stubs.S
	@mkdir -p $(dir $@)
	$(CC) -c -Ibuild/shim -o $@ $<

$(patsubst %.c,build/shim/%.o,$(SHIM_H5_SRC)): MPI_CFLAGS += $(H5_CFLAGS)
$(patsubst %.c,build/shim/%.o,$(SHIM_H5_SRC)): shim/h5-mpi-wrappers.gen.c

lib/libtangram.so: $(SHIM_OBJ)
	@mkdir -p lib
	$(CC) -shared -Wl,-z,defs -Wl,--no-undefined -o $@ $^ -ldl -lpthread

# The tracer for static linking (libtangram(7), "Static executables"): the
# same sources built with TG_STATIC, each wrapper renamed __wrap_NAME, and a
# table of the __real_NAME functions; lib/tangram.wrap holds the matching
# -Wl,--wrap options: every wrapped function the C library's archive has.
LIBC_A := $(shell $(CC) -print-file-name=libc.a)
STATIC_OBJ = $(patsubst %.c,build/static/%.o,$(SHIM_SRC) $(SHIM_MPI_SRC) $(SHIM_COMMON_SRC)) \
	build/static/static-real.o

build/static/%.o: %.c $(SHIM_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(SHIM_CFLAGS) -DTG_STATIC $(MPI_CFLAGS) -c -o $@ $<
	@case $< in shim/hand.c|shim/wrappers.gen.c) \
		objcopy --redefine-syms=build/static/redefine.txt $@;; esac

build/static/shim/hand.o build/static/shim/wrappers.gen.o: build/static/redefine.txt

build/static/wrap.names: shim/wrapnames.gen.txt
	@mkdir -p build/static
	nm -g --defined-only $(LIBC_A) 2>/dev/null | awk 'NF == 3 { print $$3 }' | \
		LC_ALL=C sort -u > $@.libc
	LC_ALL=C sort -u shim/wrapnames.gen.txt | LC_ALL=C comm -12 - $@.libc > $@
	rm -f $@.libc

build/static/redefine.txt: build/static/wrap.names
	awk '{ print $$1, "__wrap_" $$1 }' $< > $@

build/static/static-real.c: build/static/wrap.names
	{ echo '/* Generated by the Makefile from shim/wrapnames.gen.txt: do not edit. */'; \
	  echo '#include "../../shim/shim.h"'; \
	  awk '{ print "extern void __real_" $$1 "(void);" }' $<; \
	  echo 'const struct tg_static_fn tg_static_real[] = {'; \
	  awk '{ print "\t{ \"" $$1 "\", (void *)__real_" $$1 " }," }' $<; \
	  echo '};'; \
	  echo 'const unsigned tg_static_nreal = sizeof(tg_static_real) / sizeof(tg_static_real[0]);'; \
	} > $@

build/static/static-real.o: build/static/static-real.c $(SHIM_HDR)
	$(CC) $(SHIM_CFLAGS) -c -o $@ $<

lib/libtangram.a: $(STATIC_OBJ)
	@mkdir -p lib
	rm -f $@
	ar rcs $@ $^

# --undefined makes the linker take every wrapper from libtangram.a, also
# those only the C library's own objects call (_exit from exit, fprintf
# from malloc), which it meets after the archive.
lib/tangram.wrap: build/static/wrap.names Makefile
	@mkdir -p lib
	sed 's/^/--wrap=/' $< > $@
	sed 's/^/--undefined=__wrap_/' $< >> $@

# The same tracer for linking into MPI programs (mpicc app.c -ltangram-mpi):
# it names libmpich as a dependency, which the preloaded one must not (it
# goes into programs without MPI) and which a linked one needs, since the
# program's MPI symbols then all resolve to the tracer and the linker's
# --as-needed would otherwise drop libmpich.
lib/libtangram-mpi.so: $(SHIM_OBJ)
	@mkdir -p lib
	$(CC) -shared -Wl,-z,defs -Wl,--no-as-needed -o $@ $^ -ldl -lpthread -L/usr/lib/x86_64-linux-gnu -lmpich

# The call table is generated; the outputs are checked in.  The MPI Forum's
# apis.json is an input we do not ship (its README asks that only what is
# generated from it be committed): give MPI_JSON=path when it lives elsewhere.
MPI_JSON = ../shared/mpi/apis.json
MPI_PROTO = /usr/include/x86_64-linux-gnu/mpich/mpi_proto.h
MPIO_PROTO = /usr/include/x86_64-linux-gnu/mpich/mpio.h
regen:
	@test -r $(MPI_JSON) || { echo "make regen: cannot read $(MPI_JSON): the MPI Forum's apis.json (pympistandard); give MPI_JSON=path" >&2; exit 2; }
	$(PYTHON) shim/gen-mpi-tab.py $(MPI_JSON) $(MPI_PROTO) shim/mpi.tab $(MPIO_PROTO) > shim/mpi.tab.new
	mv shim/mpi.tab.new shim/mpi.tab
	$(PYTHON) shim/gen-mpi-tab.py --names /usr/include/x86_64-linux-gnu/mpich/mpi.h libcommon/mpinames.gen.c
	$(PYTHON) shim/gen-calls.py libcommon/calls.tab shim/mpi.tab shim/h5.tab

# ---- TangramFS (tfs/) ----------------------------------------------------
# One set of position-independent objects, never sanitized (libtfs-posix is
# preloaded into programs that are not); each library exports only its API
# through a version script.
# The UCX transport (tp_ucx.c) is a plugin, lib/libtfs-ucx.so, built when
# UCX's headers are there and loaded by transport.c for the first "ucx:"
# address only: nothing else links UCX, so a program libtfs-posix.so is
# preloaded into never maps it on sockets.  Without the plugin a "ucx:"
# address is refused.
TFS_UCX := $(shell test -r /usr/include/ucp/api/ucp.h && echo yes)
TFS_UCX_PLUGIN = $(if $(TFS_UCX),lib/libtfs-ucx.so)
TFS_LIB_SRC = tfs/proto.c tfs/itree.c tfs/tp_sock.c tfs/serverfile.c tfs/client.c tfs/lock.c tfs/transport.c
TFS_HDR = $(wildcard tfs/*.h) $(COMMON_HDR)
TFS_CFLAGS = $(CFLAGS) -fPIC -pthread
TFS_LIB_OBJ = $(patsubst %.c,build/tfs/%.o,$(TFS_LIB_SRC))
TFS_BINS = $(BINDIR)/tfs-server
TFS_BINS += $(BINDIR)/tfs-bench
TFS_LIBS = lib/libtfs.so lib/libtfs.a lib/libtfs-posix.so $(TFS_UCX_PLUGIN)

all: $(TFS_BINS) $(TFS_LIBS)

build/tfs/%.o: %.c $(TFS_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(TFS_CFLAGS) -c -o $@ $<

# where an installed libtfs looks for the plugin last
build/tfs/tfs/transport.o: TFS_CFLAGS += -DTFS_LIBDIR='"$(PREFIX)/lib"'

# tfs-server: with SANITIZE=1 (build/san/bin) its own objects are built
# with ASan/UBSan too; the libraries never are.
TFS_SRV_SRC = tfs/tfs-server.c tfs/proto.c tfs/itree.c tfs/tp_sock.c tfs/serverfile.c tfs/recover.c tfs/transport.c
TFS_SRV_OBJ = $(if $(TOOLSAN),$(patsubst %.c,$(BUILD)/%.o,$(TFS_SRV_SRC)),$(patsubst %.c,build/tfs/%.o,$(TFS_SRV_SRC)))

$(BUILD)/tfs/%.o: tfs/%.c $(TFS_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(TOOLSAN) -pthread -c -o $@ $<

$(BUILD)/tfs/transport.o: CFLAGS += -DTFS_LIBDIR='"$(PREFIX)/lib"'

$(BINDIR)/tfs-server: $(TFS_SRV_OBJ) $(BUILD)/libcommon.a
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS) $(TOOLSAN) -pthread -o $@ $^ -ldl

# tfs-bench(1): TangramFS's write bandwidth, an MPI program; it finds
# libtfs.so in ../lib beside itself, in the tree and installed.
$(BINDIR)/tfs-bench: tests/bench/tfs-bench.c tfs/tfs.h lib/libtfs.so
	@mkdir -p $(BINDIR)
	$(MPICC) $(CFLAGS) -o $@ $< -Llib -ltfs -Wl,-rpath,'$$ORIGIN/../lib'

lib/libtfs.so: $(TFS_LIB_OBJ) tfs/libtfs.map
	@mkdir -p lib
	$(CC) -shared -pthread -Wl,-z,defs -Wl,--version-script=tfs/libtfs.map -o $@ $(TFS_LIB_OBJ) -ldl

lib/libtfs.a: $(TFS_LIB_OBJ)
	@mkdir -p lib
	rm -f $@
	ar rcs $@ $^

lib/libtfs-posix.so: build/tfs/tfs/posix.o build/tfs/tfs/spawn.o $(TFS_LIB_OBJ) tfs/libtfs-posix.map
	@mkdir -p lib
	$(CC) -shared -pthread -Wl,-z,defs -Wl,--version-script=tfs/libtfs-posix.map -o $@ \
		build/tfs/tfs/posix.o build/tfs/tfs/spawn.o $(TFS_LIB_OBJ) -ldl

lib/libtfs-ucx.so: build/tfs/tfs/tp_ucx.o build/tfs/tfs/proto.o tfs/libtfs-ucx.map
	@mkdir -p lib
	$(CC) -shared -pthread -Wl,-z,defs -Wl,--version-script=tfs/libtfs-ucx.map -o $@ \
		build/tfs/tfs/tp_ucx.o build/tfs/tfs/proto.o -lucp -lucs

# ---- tests ---------------------------------------------------------------

TEST_APPS_SRC = $(wildcard tests/apps/*.c)
TEST_APPS = $(patsubst tests/apps/%.c,build/apps/%,$(TEST_APPS_SRC))
UNIT_SRC = $(wildcard tests/unit/*.c)
UNIT = $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(UNIT_SRC))
$(BUILD)/unit/test_flatten: tools/flatten.c tools/flatten.h
$(BUILD)/unit/test_itree: tfs/itree.c tfs/itree.h
HELPERS = $(BUILD)/helpers/trace-gen $(BUILD)/helpers/hb-gen $(BUILD)/helpers/bitflip

build/apps/%: tests/apps/%.c
	@mkdir -p build/apps
	$(CC) -O1 -g -Wall -Wextra -Werror -std=gnu11 -o $@ $< -lpthread

$(BUILD)/unit/%: tests/unit/%.c $(BUILD)/libcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(TOOLSAN) -o $@ $< $(BUILD)/libcommon.a $(JANSSON_LIBS) $(ZLIB_LIBS)

$(BUILD)/helpers/trace-gen: tests/helpers/trace-gen.c $(BUILD)/libcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(TOOLSAN) -o $@ $< $(BUILD)/libcommon.a $(JANSSON_LIBS)

$(BUILD)/helpers/bitflip: tests/helpers/bitflip.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(TOOLSAN) -o $@ $<

$(BUILD)/helpers/hb-gen: tests/helpers/hb-gen.c $(BUILD)/libcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(TOOLSAN) -o $@ $< $(BUILD)/libcommon.a $(JANSSON_LIBS) $(ZLIB_LIBS)

test-apps: $(TEST_APPS) $(UNIT) $(HELPERS) build/helpers/faultinj.so build/helpers/inithooks.so

# a test-only preload that fails the tracer's own writes (tests/shim-fault.bats)
build/helpers/faultinj.so: tests/helpers/faultinj.c
	@mkdir -p build/helpers
	$(CC) $(CFLAGS) -fPIC -shared -o $@ $< -ldl

# a test-only preload that starts as libfaketime and jemalloc do (tests/shim.bats)
build/helpers/inithooks.so: tests/helpers/inithooks.c
	@mkdir -p build/helpers
	$(CC) $(CFLAGS) -fPIC -shared -o $@ $< -ldl -lpthread

# demo and check install what is missing first (tools/deps.sh -a), then
# build: a second make, so that no compiler runs before the headers are there.
check: deps-auto
	@$(MAKE) --no-print-directory all test-apps lint-man
	TG_BUILD=$(BUILD) TG_BINDIR=$(BINDIR) SANITIZE=$(SANITIZE) tests/run-tests

# the long variants (TG_LONG=1) of the fault and bounds tests, then every
# fuzz harness for a minute
check-long: all test-apps
	TG_LONG=1 TG_BUILD=$(BUILD) TG_BINDIR=$(BINDIR) SANITIZE=$(SANITIZE) tests/run-tests \
		tests/shim-fault.bats tests/bounds.bats tests/golden-bad.bats
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=60

# mandoc's lint passes a quoted error message whose "No" a macro line took
# for the No macro and left out: the rendered pages are checked for it
lint-man:
	@out=$$(mandoc -T lint -W warning man/*.[0-9] 2>&1); \
	if [ -n "$$out" ]; then echo "$$out"; exit 1; fi; \
	out=$$(for f in man/*.[0-9]; do \
		mandoc -T utf8 "$$f" | col -b | tr -s ' \n' '  ' | \
			grep -o '[^ ]* such file or directory' | grep -v '^No ' | \
			sed "s|^|$$f: the No macro ate a word: |"; \
	done); \
	if [ -n "$$out" ]; then echo "$$out"; exit 1; fi; \
	echo "man pages: mandoc lint clean"

# ---- demo and benchmarks -----------------------------------------------

demo: deps-auto
	@$(MAKE) --no-print-directory all
	tests/demo/run

bench: all $(HELPERS)
	tests/bench/run

# fuzz harnesses (tests/fuzz/), each run FUZZ_SECONDS; fails on a finding
FUZZ_SECONDS ?= 10
fuzz: all test-apps
	@$(MAKE) --no-print-directory -f tests/fuzz/fuzz.mk COMMON_SRC="$(COMMON_SRC)"
	TG_BUILD=$(BUILD) TG_BINDIR=$(BINDIR) tests/fuzz/run $(FUZZ_SECONDS)

# ---- dependencies and installation ------------------------------------

DEB_PACKAGES = build-essential pkg-config python3 mpich libmpich-dev zlib1g-dev \
	libjansson-dev libsqlite3-dev bats libhdf5-mpich-dev hdf5-tools \
	libucx-dev libotf2-trace-dev mandoc valgrind coreutils tar gfortran \
	otf2-tools chromium libxml2-utils clang afl++ strace libopenmpi-dev jq sqlite3
# Applications only tests run (tests/mpi.bats, tests/overlap.bats skip
# without them), kept apart: nwchem-mpich pulls in Open MPI.
APP_PACKAGES = netpipe-mpich2 nwchem-mpich python3-mpi4py python3-h5py-mpi

# tools/deps.sh leaves the "mpi" and "mpirun" alternatives as it found them.
deps:
	@tools/deps.sh $(DEB_PACKAGES)

deps-apps:
	@tools/deps.sh $(APP_PACKAGES)

DEPS ?= auto
deps-auto:
	@[ "$(DEPS)" = no ] || tools/deps.sh -a $(DEB_PACKAGES)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include \
		$(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man3 \
		$(DESTDIR)$(PREFIX)/share/man/man5 $(DESTDIR)$(PREFIX)/share/man/man7 \
		$(DESTDIR)$(PREFIX)/share/man/man8
	install -m 755 $(BINS) $(TFS_BINS) pipelines/verify-io $(DESTDIR)$(PREFIX)/bin
	install -m 755 lib/libtangram.so lib/libtangram-mpi.so $(DESTDIR)$(PREFIX)/lib
	install -m 644 lib/libtangram.a lib/tangram.wrap $(DESTDIR)$(PREFIX)/lib
	install -m 755 lib/libtfs.so lib/libtfs-posix.so $(TFS_UCX_PLUGIN) $(DESTDIR)$(PREFIX)/lib
	install -m 644 lib/libtfs.a $(DESTDIR)$(PREFIX)/lib
	install -m 644 tfs/tfs.h $(DESTDIR)$(PREFIX)/include
	for s in 1 3 5 7 8; do for m in man/*.$$s; do \
		install -m 644 $$m $(DESTDIR)$(PREFIX)/share/man/man$$s || exit 1; done; done

clean:
	rm -rf build bin lib
