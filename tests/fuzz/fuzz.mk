# tests/fuzz/fuzz.mk - the fuzz harnesses, built with clang: libFuzzer ones
# (fuzz-*.c, each linking the parser it fuzzes) and AFL++ builds of the
# tools that parse text input whole (overlap-find, conflict-check).  Run
# from the top of the tree by "make fuzz", which passes COMMON_SRC.

FUZZ = build/fuzz
FCC = clang
SAN = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FCFLAGS = -O1 -g -std=gnu11 -Wall -Wextra -Werror $(SAN)
FLIBS = -ljansson -lz -lm

HARNESSES = rec cfg text hb types tfsproto
FUZZ_BINS = $(addprefix $(FUZZ)/fuzz-,$(HARNESSES))
AFL_TOOLS = overlap-find conflict-check
AFL_BINS = $(addprefix $(FUZZ)/afl/,$(AFL_TOOLS))

COMMON_FOBJ = $(patsubst %.c,$(FUZZ)/obj/%.o,$(COMMON_SRC))
TFS_FOBJ = $(FUZZ)/obj/tfs/proto.o

.DELETE_ON_ERROR:
all: $(FUZZ_BINS) $(AFL_BINS)

$(FUZZ)/obj/%.o: %.c $(wildcard libcommon/*.h tfs/*.h tools/*.h)
	@mkdir -p $(dir $@)
	$(FCC) $(FCFLAGS) -fsanitize=fuzzer-no-link -pthread -c -o $@ $<

$(FUZZ)/libcommon.a: $(COMMON_FOBJ)
	rm -f $@
	ar rcs $@ $^

$(FUZZ)/fuzz-%: tests/fuzz/fuzz-%.c $(FUZZ)/libcommon.a
	$(FCC) $(FCFLAGS) -fsanitize=fuzzer -o $@ $(filter-out %.a,$^) $(filter %.a,$^) $(FLIBS)

$(FUZZ)/fuzz-types: $(FUZZ)/obj/tools/flatten.o
$(FUZZ)/fuzz-tfsproto: $(TFS_FOBJ)

# The whole tools, for afl-fuzz: their own sources and libcommon, compiled
# by afl-clang-fast with ASan and UBSan.
AFL_ENV = AFL_QUIET=1 AFL_USE_ASAN=1 AFL_USE_UBSAN=1
$(FUZZ)/afl/overlap-find: tools/overlap-find.c tools/flatten.c $(COMMON_SRC)
	@mkdir -p $(dir $@)
	$(AFL_ENV) afl-clang-fast -O1 -g -std=gnu11 -fno-sanitize-recover=undefined -o $@ $^ $(FLIBS)

$(FUZZ)/afl/conflict-check: tools/conflict-check.c $(COMMON_SRC)
	@mkdir -p $(dir $@)
	$(AFL_ENV) afl-clang-fast -O1 -g -std=gnu11 -fno-sanitize-recover=undefined -o $@ $^ $(FLIBS)
