/*
 * test_flatten.c - MPI datatypes flattened from #type lines (tools/flatten.c):
 * exact block lists for each combiner, the unplaceable ones with their
 * reason, then a deterministic fuzz of the #type parser and tg_flat_map
 * (TG_FUZZ_ITERS rounds, 4000 by default; TG_FUZZ_SEED picks the run).
 * flatten.c is compiled in, so that its blocks can be looked at.
 */
#include "../../tools/flatten.c"
#include "tap.h"
#include "../../libcommon/banned.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ok() for "string @got is @want" */
#define is_str(got, want, ...)                                                \
	do {                                                                  \
		const char *g_ = (got), *w_ = (want);                         \
		if (!ok(strcmp(g_, w_) == 0, __VA_ARGS__))                    \
			tap_diag("got \"%s\", want \"%s\"", g_, w_);          \
	} while (0)

/* "lb/extent/size: off+len off+len ..." of @name, or "why: REASON" */
static const char *show(struct tg_types *ts, const char *name)
{
	static char buf[4096];
	struct tg_flat *f = lookup(ts, name);
	size_t i, o;

	if (!f)
		return "unknown";
	if (f->why) {
		snprintf(buf, sizeof(buf), "why: %s", f->why);
		return buf;
	}
	o = (size_t)snprintf(buf, sizeof(buf), "%" PRId64 "/%" PRId64 "/%" PRIu64 ":", f->lb,
			     f->extent, f->size);
	for (i = 0; i < f->n && o < sizeof(buf) - 64; i++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, " %" PRId64 "+%" PRIu64,
				      f->b[i].off, f->b[i].len);
	return buf;
}

static int def(struct tg_types *ts, const char *id, const char *comb, const char *ints,
	       const char *aints, const char *types)
{
	char line[2048];

	snprintf(line, sizeof(line), "#type\trank=0\tid=%s\tcombiner=MPI_COMBINER_%s\tints=%s"
		 "\taints=%s\ttypes=%s", id, comb, ints, aints, types);
	return tg_types_define(ts, line);
}

static const struct {
	const char *comb, *ints, *aints, *types, *want;
} cases[] = {
	/* darray, 1-D cyclic(2) of 10 ints over 3, rank 1: indices 2-3, 8-9 */
	{ "DARRAY", "[3,1,1,10,122,2,3,56]", "[]", "[MPI_INT]", "0/40/16: 8+8 32+8" },
	/* block, default darg: ceil(10 / 3) = 4, rank 2 has 8-9 */
	{ "DARRAY", "[3,2,1,10,121,-49767,3,56]", "[]", "[MPI_INT]", "0/40/8: 32+8" },
	/* a rank with nothing: block(5) over 3 of 10, rank 2 */
	{ "DARRAY", "[3,2,1,10,121,5,3,56]", "[]", "[MPI_INT]", "0/40/0:" },
	/* Fortran 4 x 2 bytes, block x none over 2 x 1, rank 1: rows 2-3 */
	{ "DARRAY", "[2,1,2,4,2,121,123,-49767,-49767,2,1,57]", "[]", "[MPI_BYTE]",
	  "0/8/4: 2+2 6+2" },
	/* C 2 x 4 bytes, cyclic x cyclic(2) over 2 x 2 (row-major grid),
	 * rank 1 = (0, 1): row 0 and cols 2-3 */
	{ "DARRAY", "[4,1,2,2,4,122,122,1,2,2,2,56]", "[]", "[MPI_BYTE]", "0/8/2: 2+2" },
	{ "DARRAY", "[4,1,2,2,4,122,122,1,2,2,3,56]", "[]", "[MPI_BYTE]", "why: malformed darray" },
	{ "DARRAY", "[4,1,1,10,121,2,4,56]", "[]", "[MPI_BYTE]", "why: malformed darray" },
	{ "SUBARRAY", "[2,4,3,2,2,1,1,57]", "[]", "[MPI_BYTE]", "0/12/4: 5+2 9+2" },
	{ "SUBARRAY", "[2,3,4,2,2,1,1,56]", "[]", "[MPI_SHORT]", "0/24/8: 10+4 18+4" },
	{ "SUBARRAY", "[2,3,4,2,2,2,1,56]", "[]", "[MPI_SHORT]", "why: malformed subarray" },
	/* MPICH pads a struct to its largest alignment */
	{ "STRUCT", "[2,2,1]", "[0,12]", "[MPI_INT,MPI_SHORT]", "0/16/10: 0+8 12+2" },
	{ "STRUCT", "[2,1,1]", "[-4,0]", "[MPI_INT,MPI_CHAR]", "-4/8/5: -4+5" },
	{ "STRUCT", "[2,0,3]", "[0,0]", "[MPI_INT,MPI_CHAR]", "0/3/3: 0+3" },
	{ "STRUCT", "[2,1,1]", "[0,16]", "[MPI_SHORT,MPI_LONG_DOUBLE]", "0/32/18: 0+2 16+16" },
	/* MPI-1 markers, as MPICH 4 places them: the struct of the rest,
	 * resized to the last MPI_LB and the last MPI_UB (values checked
	 * with MPI_Type_get_extent) */
	{ "STRUCT", "[3,1,1,1]", "[0,4,16]", "[MPI_LB,MPI_INT,MPI_UB]", "0/16/4: 4+4" },
	{ "STRUCT", "[3,1,1,1]", "[-8,0,4]", "[MPI_LB,MPI_INT,MPI_CHAR]", "-8/16/5: 0+5" },
	{ "STRUCT", "[2,1,1]", "[0,12]", "[MPI_INT,MPI_UB]", "0/12/4: 0+4" },
	{ "STRUCT", "[3,1,1,1]", "[20,0,8]", "[MPI_UB,MPI_INT,MPI_UB]", "0/8/4: 0+4" },
	{ "STRUCT", "[2,1,0]", "[0,32]", "[MPI_INT,MPI_UB]", "0/32/4: 0+4" },
	/* the PnetCDF buffer type of issue 22: type-map order kept */
	{ "STRUCT", "[2,10,10]", "[0,-498128]", "[MPI_INT,MPI_INT]",
	  "-498128/498168/80: 0+40 -498128+40" },
	{ "VECTOR", "[3,1,2]", "[]", "[MPI_DOUBLE_INT]", "0/80/36: 0+12 32+12 64+12" },
	{ "HVECTOR", "[2,2,]", "[]", "[MPI_INT]", "corrupt" },
	{ "HVECTOR", "[2,2]", "[-16]", "[MPI_INT]", "-16/24/16: 0+8 -16+8" },
	{ "INDEXED", "[4,2,0,3,0]", "[]", "[MPI_INT]", "why: malformed or unknown combiner" },
	{ "INDEXED", "[4,2,0,3,0,0,1,4,20]", "[]", "[MPI_INT]", "0/28/20: 0+8 16+12" },
	{ "HINDEXED_BLOCK", "[3,2]", "[0,8,4]", "[MPI_BYTE]", "0/10/6: 0+2 8+2 4+2" },
	{ "INDEXED_BLOCK", "[2,1,3,0]", "[]", "[MPI_SHORT]", "0/8/4: 6+2 0+2" },
	{ "RESIZED", "[]", "[-3,24]", "[MPI_INT]", "-3/24/4: 0+4" },
	{ "DUP", "[]", "[]", "[MPI_SHORT_INT]", "0/8/6: 0+2 4+4" },
	{ "F90_REAL", "[10,-32766]", "[]", "[]", "0/8/8: 0+8" },
	{ "F90_INTEGER", "[30]", "[]", "[]", "why: malformed or unknown combiner" },
	{ "CONTIGUOUS", "[1099511627776]", "[]", "[MPI_BYTE]", "0/1099511627776/1099511627776: 0+1099511627776" },
	{ "CONTIGUOUS", "[4611686018427387904]", "[]", "[MPI_INT]", "why: offsets overflow" },
	{ "VECTOR", "[1099511627776,1,2]", "[]", "[MPI_INT]", "why: too many blocks" },
	{ "VECTOR", "[2,1,2]", "[]", "[t99]", "why: built from an unknown type" },
	{ "VECTOR", "[-2,1,2]", "[]", "[MPI_INT]", "why: negative count" },
	{ "MPI_COMBINER_LIKE_NOTHING", "[]", "[]", "[MPI_INT]", "why: malformed or unknown combiner" },
};

static void test_cases(void)
{
	size_t i;

	for (i = 0; i < N(cases); i++) {
		struct tg_types *ts = tg_types_new();
		int rc = def(ts, "t1", cases[i].comb, cases[i].ints, cases[i].aints, cases[i].types);
		if (!strcmp(cases[i].want, "corrupt"))
			ok(rc < 0, "%s %s: a corrupt line", cases[i].comb, cases[i].ints);
		else
			is_str(show(ts, "t1"), cases[i].want, "%s %s %s %s", cases[i].comb,
				cases[i].ints, cases[i].aints, cases[i].types);
		tg_types_free(ts);
	}
}

/* the extents of @n bytes from @from, as "off+len ..." */
static const char *map(const struct tg_flat *f, uint64_t disp, uint64_t from, uint64_t n)
{
	static char buf[1024];
	struct tg_extent ex[4];
	size_t o = 0, k, i;

	buf[0] = 0;
	while (n > 0 && (k = tg_flat_map(f, disp, from, n, ex, N(ex))) > 0) {
		for (i = 0; i < k; i++) {
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%" PRIu64 "+%" PRIu64,
					      o ? " " : "", ex[i].off, ex[i].len);
			from += ex[i].len;
			n -= ex[i].len;
		}
		if (o > sizeof(buf) - 64)
			break;
	}
	if (n)
		snprintf(buf + o, sizeof(buf) - o, "%sunplaced %" PRIu64, o ? " " : "", n);
	return buf;
}

static void test_map(void)
{
	struct tg_types *ts = tg_types_new();
	struct tg_flat *f, *keep;

	def(ts, "t1", "STRUCT", "[2,10,10]", "[0,-498128]", "[MPI_INT,MPI_INT]");
	f = tg_types_get(ts, "t1");
	is_str(map(f, 0, 0, 80), "0+40 unplaced 40", "a negative offset is unplaced, not wrapped");
	is_str(map(f, 600000, 0, 80), "600000+40 101872+40", "the same type at a displacement");
	def(ts, "t2", "RESIZED", "[]", "[0,-8]", "[MPI_INT]");
	is_str(map(tg_types_get(ts, "t2"), 8, 0, 16), "8+4 0+4 unplaced 8",
		"a negative extent walks back to offset 0, then stops");
	def(ts, "t3", "VECTOR", "[2,1,2]", "[]", "[MPI_BYTE]");
	is_str(map(tg_types_get(ts, "t3"), 10, 3, 4), "15+2 18+2",
		"vector tiles, from inside a tile");
	is_str(map(tg_types_get(ts, "MPI_INT"), 5, 1ULL << 40, 1ULL << 62),
		"1099511627781+4611686018427387904", "a dense type maps any length in one extent");
	is_str(map(tg_types_get(ts, "MPI_INT"), UINT64_MAX - 2, 0, 4), "unplaced 4",
		"a displacement past 2^63 is unplaced");
	is_str(map(tg_types_get(ts, "t3"), 0, UINT64_MAX - 1, 4), "unplaced 4",
		"a tile past 2^63 is unplaced");
	/* an id defined again: what was got of it stays valid */
	keep = tg_types_get(ts, "t3");
	def(ts, "t3", "CONTIGUOUS", "[2]", "[]", "[t99]");
	ok(tg_types_get(ts, "t3") == NULL, "t3 redefined from an unknown type: unplaceable");
	has_str(tg_types_why(ts, "t3"), "built from an unknown type", "with its reason");
	is_str(map(keep, 0, 0, 2), "0+1 2+1", "the old t3 a view holds still maps");
	ok(tg_types_why(ts, "t1") == NULL, "a placeable type has no reason");
	has_str(tg_types_why(ts, "t42"), "unknown type", "an id never defined");
	ok(tg_types_define(ts, "#type\trank=0\tid=t1\tcombiner=X\tints=[1\taints=[]\ttypes=[]") < 0,
	   "an unclosed array is a corrupt line");
	ok(tg_types_define(ts, "#type\trank=0\tid=t1\tcombiner=X\tints=[]\taints=[]\ttypes=[a,]") < 0,
	   "an empty type name is a corrupt line");
	ok(tg_types_define(ts, "#type\trank=0\tcombiner=X\tints=[]\taints=[]\ttypes=[]") < 0,
	   "no id is a corrupt line");
	tg_types_free(ts);
}

/* ---- fuzz ------------------------------------------------------------------ */

static uint64_t rng = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* The #type lines of real runs (tests/mpi/views.c, PnetCDF's vard test)
 * and of crashes found, as seeds. */
static const char *seeds[] = {
	"combiner=MPI_COMBINER_DARRAY\tints=[4,0,2,8,6,121,121,-49767,-49767,2,2,56]\taints=[]\ttypes=[MPI_INT]",
	"combiner=MPI_COMBINER_DARRAY\tints=[4,3,3,7,3,10,121,123,122,4,-49767,2,2,1,2,57]\taints=[]\ttypes=[MPI_INT]",
	"combiner=MPI_COMBINER_SUBARRAY\tints=[3,4,5,6,2,2,3,2,2,0,56]\taints=[]\ttypes=[MPI_SHORT]",
	"combiner=MPI_COMBINER_SUBARRAY\tints=[3,4,5,6,2,2,3,0,2,3,57]\taints=[]\ttypes=[MPI_SHORT]",
	"combiner=MPI_COMBINER_STRUCT\tints=[2,2,1]\taints=[0,12]\ttypes=[MPI_INT,MPI_SHORT]",
	"combiner=MPI_COMBINER_STRUCT\tints=[2,10,10]\taints=[0,-498128]\ttypes=[MPI_INT,MPI_INT]",
	"combiner=MPI_COMBINER_STRUCT\tints=[2,3,2]\taints=[140735340871936,140735340871976]\ttypes=[MPI_INT,MPI_INT]",
	"combiner=MPI_COMBINER_STRUCT\tints=[2,1,2]\taints=[1,8]\ttypes=[t1,MPI_INT]",
	"combiner=MPI_COMBINER_VECTOR\tints=[3,1,4]\taints=[]\ttypes=[t1]",
	"combiner=MPI_COMBINER_HVECTOR\tints=[2,1]\taints=[128]\ttypes=[t2]",
	"combiner=MPI_COMBINER_INDEXED\tints=[3,1,2,1,0,3,7]\taints=[]\ttypes=[MPI_INT]",
	"combiner=MPI_COMBINER_INDEXED\tints=[4,2,0,3,0,0,1,4,20]\taints=[]\ttypes=[MPI_INT]",
	"combiner=MPI_COMBINER_HINDEXED\tints=[3,4,0,4]\taints=[0,100,8]\ttypes=[MPI_BYTE]",
	"combiner=MPI_COMBINER_HINDEXED_BLOCK\tints=[3,2]\taints=[0,8,4]\ttypes=[MPI_BYTE]",
	"combiner=MPI_COMBINER_INDEXED_BLOCK\tints=[2,1,3,0]\taints=[]\ttypes=[MPI_SHORT]",
	"combiner=MPI_COMBINER_RESIZED\tints=[]\taints=[0,24]\ttypes=[t3]",
	"combiner=MPI_COMBINER_RESIZED\tints=[]\taints=[-3,24]\ttypes=[t1]",
	"combiner=MPI_COMBINER_CONTIGUOUS\tints=[8]\taints=[]\ttypes=[MPI_BYTE]",
	"combiner=MPI_COMBINER_DUP\tints=[]\taints=[]\ttypes=[t2]",
	"combiner=MPI_COMBINER_F90_REAL\tints=[10,-32766]\taints=[]\ttypes=[]",
	"combiner=MPI_COMBINER_VECTOR\tints=[1099511627776,1,2]\taints=[]\ttypes=[MPI_INT]",
	"combiner=MPI_COMBINER_CONTIGUOUS\tints=[4611686018427387904]\taints=[]\ttypes=[MPI_INT]",
};

static const char *combs[] = {
	"DUP", "CONTIGUOUS", "VECTOR", "HVECTOR", "HVECTOR_INTEGER", "INDEXED", "HINDEXED",
	"HINDEXED_INTEGER", "INDEXED_BLOCK", "HINDEXED_BLOCK", "STRUCT", "STRUCT_INTEGER",
	"SUBARRAY", "DARRAY", "RESIZED", "F90_REAL", "F90_COMPLEX", "F90_INTEGER", "NAMED",
};

static const char *tnames[] = { "t1", "t2", "t3", "t4", "MPI_INT", "MPI_BYTE", "MPI_DOUBLE_INT",
				"MPI_LONG_DOUBLE", "MPI_UB", "" };

static int64_t interesting(void)
{
	static const int64_t v[] = {
		0, 1, -1, 2, 3, 4, 7, 8, 56, 57, 121, 122, 123, -49767, -32766, 65535, 65536,
		INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, INT64_MAX / 2, 1LL << 32, 1LL << 40,
		-(1LL << 40), 4611686018427387904LL,
	};

	if (rnd() % 4 == 0)
		return (int64_t)(rnd() % 64) - 16;
	return v[rnd() % N(v)];
}

/* A mutation of a seed: numbers replaced, added or dropped, the combiner
 * or a type name swapped, a byte flipped, the line cut. */
static void mutate(char *out, size_t cap, const char *seed)
{
	char tmp[4096];
	const char *s;
	size_t o = 0;
	int n = 1 + (int)(rnd() % 4), i;

	snprintf(tmp, sizeof(tmp), "#type\trank=0\tid=t%d\t%s", 1 + (int)(rnd() % 4), seed);
	for (i = 0; i < n; i++) {
		o = 0;
		for (s = tmp; *s && o < cap - 64; s++) {
			int r = (int)(rnd() % 64);
			if (s - tmp < 8) {
				out[o++] = *s;
				continue;
			}
			if ((*s == '-' || (*s >= '0' && *s <= '9')) && (s[-1] == '[' || s[-1] == ',') &&
			    r < 6) {
				/* a number: replaced, dropped or doubled */
				size_t k = strspn(s + 1, "0123456789");
				if (r < 3)
					o += (size_t)snprintf(out + o, cap - o, "%" PRId64, interesting());
				else if (r == 4)
					o += (size_t)snprintf(out + o, cap - o, "%.*s,%.*s", (int)k + 1, s,
							      (int)k + 1, s);
				else if (r == 5 && s[k + 1] == ',')
					s++;	/* and the comma */
				s += k;
				continue;
			}
			if (!strncmp(s, "MPI_COMBINER_", 13) && r < 4) {
				o += (size_t)snprintf(out + o, cap - o, "MPI_COMBINER_%s",
						      combs[rnd() % N(combs)]);
				s += 13 + strspn(s + 13, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789") - 1;
				continue;
			}
			if (s[-1] == '[' && s[-2] == '=' && s[-3] == 's' && s[-4] == 'e' && r < 4) {
				o += (size_t)snprintf(out + o, cap - o, "%s,",
						      tnames[rnd() % N(tnames)]);
			}
			out[o++] = *s;
		}
		out[o] = 0;
		if (rnd() % 16 == 0 && o > 0)
			out[rnd() % o] ^= (char)(1 << (rnd() % 7));
		if (rnd() % 32 == 0 && o > 0)
			out[rnd() % o] = 0;
		snprintf(tmp, sizeof(tmp), "%s", out);
	}
}

/* Map random ranges of t1-t4; returns how many extents were wrong (empty,
 * or more bytes than asked). */
static long fuzz_map(struct tg_types *ts)
{
	struct tg_extent ex[8];
	long bad = 0;
	int i, j;

	for (i = 1; i <= 4; i++) {
		char id[8];
		struct tg_flat *f;
		snprintf(id, sizeof(id), "t%d", i);
		f = tg_types_get(ts, id);
		tg_types_why(ts, id);
		tg_flat_size(f);
		for (j = 0; j < 3; j++) {
			uint64_t disp = rnd() % 3 ? rnd() % 4096 : rnd();
			uint64_t from = rnd() % 2 ? rnd() % 4096 : rnd();
			uint64_t n = rnd() % 2 ? rnd() % 4096 : rnd();
			size_t k, q, calls = 0;
			while (n > 0 && calls++ < 8 &&
			       (k = tg_flat_map(f, disp, from, n, ex, 1 + rnd() % N(ex))) > 0) {
				for (q = 0; q < k; q++) {
					if (ex[q].len == 0 || ex[q].len > n) {
						bad++;
						break;
					}
					from += ex[q].len;
					n -= ex[q].len;
				}
				if (q < k)
					break;
			}
		}
	}
	return bad;
}

static void test_fuzz(void)
{
	const char *e = getenv("TG_FUZZ_ITERS"), *sd = getenv("TG_FUZZ_SEED");
	long iters = e ? strtol(e, NULL, 10) : 4000, i;
	long defined = 0, placeable = 0, corrupt = 0, bad = 0;
	static char line[8192];

	if (sd)
		rng ^= (uint64_t)strtoull(sd, NULL, 10) * 0x9e3779b97f4a7c15ULL;
	for (i = 0; i < iters; i++) {
		struct tg_types *ts = tg_types_new();
		int k, nl = 1 + (int)(rnd() % 6);
		for (k = 0; k < nl; k++) {
			mutate(line, sizeof(line), seeds[rnd() % N(seeds)]);
			if (tg_types_define(ts, line) < 0) {
				corrupt++;
				continue;
			}
			defined++;
		}
		for (k = 1; k <= 4; k++) {
			char id[8];
			snprintf(id, sizeof(id), "t%d", k);
			placeable += tg_types_get(ts, id) != NULL;
		}
		bad += fuzz_map(ts);
		tg_types_free(ts);
	}
	tap_diag("fuzz: %ld rounds, %ld lines defined, %ld corrupt, %ld placeable lookups",
		 iters, defined, corrupt, placeable);
	ok(defined > 0 && corrupt > 0 && placeable > 0,
	   "fuzz: %ld rounds of mutated #type lines and maps, no crash", iters);
	is_int(bad, 0, "fuzz: every extent mapped is non-empty and within what was asked");
}

int main(void)
{
	test_cases();
	test_map();
	test_fuzz();
	return tap_done();
}
