/*
 * trace-run - run a command with the Tangram tracer preloaded.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "../libcommon/exe.h"
#include "../libcommon/rec.h"
#include "../libcommon/runs.h"
#include "../libcommon/stream.h"
#include "../libcommon/tg.h"
#include "../libcommon/banned.h"

#ifndef TG_LIBDIR
#define TG_LIBDIR "/usr/local/lib"
#endif

/* -l: every name a layer the tracer knows (it would ignore the others,
 * and a misspelt layer would go untraced without a word) */
static void check_layers(const char *s)
{
	char name[32];

	while (*s) {
		size_t n = strcspn(s, ",: ");
		if (n > 0 && (n >= sizeof(name) ||
			      (memcpy(name, s, n), name[n] = 0, tg_layer_parse(name) < 0)))
			errx(TG_EXIT_ERROR, "unknown layer '%.*s' (the layers: posix, stdio, "
			     "mpi, mpiio, hdf5)", (int)n, s);
		s += n;
		s += strspn(s, ",: ");
	}
}

/* mkdir -p: the trace directory and its parents (a parent that is a file
 * would leave the program untraced with a warning and exit 0) */
static int make_dirs(const char *path)
{
	char p[PATH_MAX];
	size_t i, n = strlen(path);

	if (n >= sizeof(p)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(p, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (p[i] != '/' && p[i] != 0)
			continue;
		p[i] = 0;
		if (mkdir(p, 0777) < 0 && errno != EEXIST)
			return -1;
		p[i] = i < n ? '/' : 0;
	}
	struct stat st;
	if (stat(path, &st) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

static const char usage_text[] =
	"usage: trace-run [-hnF] [-l layers] [-o dir] [-s sink] [-x exclude] -- command [arg ...]\n";

static void usage(int status)
{
	fputs(usage_text, status ? stderr : stdout);
	exit(status);
}

/* The shim next to this program (../lib), else the installed one. */
static void find_lib(char *out, size_t cap)
{
	const char *env = getenv("TANGRAM_LIB");
	char self[PATH_MAX];
	ssize_t n;
	int w;

	if (env && *env) {
		snprintf(out, cap, "%s", env);
		return;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = 0;
		w = snprintf(out, cap, "%s/../lib/libtangram.so", dirname(self));
		if (w > 0 && (size_t)w < cap && access(out, R_OK) == 0) {
			char *r = realpath(out, NULL);
			if (r) {
				snprintf(out, cap, "%s", r);
				free(r);
			}
			return;
		}
	}
	snprintf(out, cap, "%s/libtangram.so", TG_LIBDIR);
}


/* Whether this process is a rank that a parallel launcher started (mpirun,
 * mpiexec, srun with PMIx): then the launch's other ranks run trace-run at
 * the same moment, and may have created this run's streams already. */
static int launched_rank(void)
{
	static const char *const vars[] = {
		"PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK",
	};
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (getenv(vars[i]))
			return 1;
	return 0;
}

/* When process @pid started, in CLOCK_REALTIME nanoseconds, rounded down
 * to the kernel's clock tick; 0 if unknown. */
static uint64_t proc_start(pid_t pid)
{
	char path[64], buf[1024], *p;
	struct timespec rt, bt;
	unsigned long long ticks;
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f;
	size_t n;
	int field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (hz <= 0 || !(f = fopen(path, "r")))
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* field 2, the command, is in parentheses and may hold anything */
	if (!(p = strrchr(buf, ')')))
		return 0;
	for (field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &ticks) != 1 ||
	    clock_gettime(CLOCK_REALTIME, &rt) < 0 ||
	    clock_gettime(CLOCK_BOOTTIME, &bt) < 0)
		return 0;
	return (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec -
	       ((uint64_t)bt.tv_sec * 1000000000u + (uint64_t)bt.tv_nsec) +
	       ticks * (1000000000u / (uint64_t)hz);
}

/* Whether process @pid of this host is running, and started at most a
 * clock tick after @t (CLOCK_REALTIME ns): the process that wrote a stream
 * whose header says @pid and @t, not a later one given its pid. */
static int running_since(uint64_t pid, uint64_t t)
{
	uint64_t start;

	if (pid == 0 || pid > INT_MAX || (kill((pid_t)pid, 0) < 0 && errno != EPERM))
		return 0;
	start = proc_start((pid_t)pid);
	return start && start <= t + 1000000000u / (uint64_t)sysconf(_SC_CLK_TCK);
}

/* Whether the stream @name in @dir was written by a process of an earlier
 * run (1), of this launch (0), or cannot be told yet (-1: its process is
 * writing its header now; a damaged one last written before @since is an
 * earlier run's).  One of this launch started after @since, when
 * the launcher's agent of this node started, and on this host it is still
 * running: the kernel counts start times in clock ticks (10 ms), and a
 * short process of an earlier run may have started in the agent's tick. */
static int stream_older(const char *dir, const char *name, uint64_t since)
{
	char *path, msg[256];
	struct tg_stream *s;
	struct tg_reader *r;
	struct utsname u;
	struct stat st;
	int older = -1;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		err(TG_EXIT_ERROR, "out of memory");
	/* a stream whose header cannot be read (damaged, or being written):
	 * an earlier run's if nothing wrote to it since the agent started */
	if (stat(path, &st) == 0 &&
	    (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec < since)
		older = 1;
	s = tg_stream_open(path, "r");
	free(path);
	if (!s)
		return older;
	if ((r = tg_reader_open(s, msg, sizeof(msg)))) {
		const struct tg_header *h = tg_reader_header(r);
		older = h->clock_base < since ||
			(uname(&u) == 0 && h->host && strcmp(h->host, u.nodename) == 0 &&
			 !running_since(h->pid, h->clock_base));
		tg_reader_free(r);
	}
	tg_stream_close(s);
	return older;
}

/* The largest run number among the streams in @dir, 0 for none; with
 * @since, the largest run that a process started before @since wrote to:
 * a run's streams are all of one launch, so a stream of each run, from the
 * last down, tells whether it is this launch's. */
static unsigned long last_run(const char *dir, uint64_t since)
{
	struct run_name { unsigned long k; char *name; } *v = NULL, *nv;
	size_t n = 0, cap = 0, i;
	unsigned long last = 0, k;
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (!(k = tg_run_of_name(e->d_name)) || k >= 1000000)
			continue;
		if (k > last)
			last = k;
		if (!since)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			if (!(nv = realloc(v, cap * sizeof(*v))))
				err(TG_EXIT_ERROR, "out of memory");
			v = nv;
		}
		if (!(v[n].name = strdup(e->d_name)))
			err(TG_EXIT_ERROR, "out of memory");
		v[n++].k = k;
	}
	closedir(d);
	for (; since && last > 0; last--) {
		int older = -1;
		for (i = 0; i < n && older != 1; i++)
			if (v[i].k == last && (older = stream_older(dir, v[i].name, since)) == 0)
				break;
		if (older == 1)
			break;
	}
	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	return last;
}

/* When the parent process (the launcher's agent on this node) started:
 * every process of this launch started after it; every process of an
 * earlier run into the directory started before this launch did. */
static uint64_t parent_start(void)
{
	return proc_start(getppid());
}

/* The number of the next run into @dir: one more than the last whose
 * streams are there, 1 for a directory without streams (or none).  In a
 * rank of a parallel launch, the streams of the launch's other ranks (whose
 * processes started after the launcher's agent did) are not an earlier
 * run's, so that every rank of the launch takes the same number. */
static unsigned long next_run(const char *dir)
{
	return last_run(dir, launched_rank() ? parent_start() : 0) + 1;
}

static void set(const char *name, const char *value)
{
	if (setenv(name, value, 1) < 0)
		err(TG_EXIT_ERROR, "setenv %s", name);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "flush", no_argument, NULL, 'F' },
		{ "layers", required_argument, NULL, 'l' },
		{ "nested", no_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "sink", required_argument, NULL, 's' },
		{ "exclude", required_argument, NULL, 'x' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = "tangram-trace", *sink = NULL, *pre;
	struct stat st;
	char lib[PATH_MAX], absdir[2 * PATH_MAX + 2], *preload;
	int c;

	while ((c = getopt_long(argc, argv, "+hFl:no:s:x:", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(TG_EXIT_OK);
			break;
		case 'F':
			set("TANGRAM_FLUSH", "always");
			break;
		case 'l':
			check_layers(optarg);
			set("TANGRAM_LAYERS", optarg);
			break;
		case 'n':
			set("TANGRAM_NESTED", "1");
			break;
		case 'o':
			dir = optarg;
			break;
		case 's':
			sink = optarg;
			break;
		case 'x':
			set("TANGRAM_EXCLUDE", optarg);
			break;
		default:
			usage(TG_EXIT_ERROR);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0)
		usage(TG_EXIT_ERROR);
	find_lib(lib, sizeof(lib));
	if (access(lib, R_OK) < 0)
		err(TG_EXIT_ERROR, "cannot find the tracer '%s'", lib);
	if (dir[0] != '/') {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof(cwd)))
			err(TG_EXIT_ERROR, "getcwd");
		snprintf(absdir, sizeof(absdir), "%s/%s", cwd, dir);
	} else {
		snprintf(absdir, sizeof(absdir), "%s", dir);
	}
	/* the tracer would warn in the program and run it untraced */
	if (!sink && stat(absdir, &st) == 0 && !S_ISDIR(st.st_mode))
		errx(TG_EXIT_ERROR, "cannot write the trace to '%s': %s", dir,
		     strerror(ENOTDIR));
	if (!sink && make_dirs(absdir) < 0)
		errx(TG_EXIT_ERROR, "cannot write the trace to '%s': %s", dir, strerror(errno));
	set("TANGRAM_DIR", absdir);
	if (sink) {
		set("TANGRAM_SINK", sink);
	} else {
		/* a later run into the same directory keeps the earlier runs'
		 * streams: its own are named rank-R.runK.rec */
		unsigned long k = next_run(absdir);
		char run[24];
		snprintf(run, sizeof(run), "%lu", k);
		if (k > 1)
			set("TANGRAM_RUN", run);
		else if (unsetenv("TANGRAM_RUN") < 0)
			err(TG_EXIT_ERROR, "unsetenv TANGRAM_RUN");
		/* a launch after the first inside the command (a job script's
		 * second mpirun) takes the next run (libtangram(7)) */
		set("TANGRAM_RUN_AUTO", "1");
	}
	pre = getenv("LD_PRELOAD");
	if (asprintf(&preload, "%s%s%s", lib, pre && *pre ? ":" : "",
		     pre ? pre : "") < 0)
		err(TG_EXIT_ERROR, "out of memory");
	set("LD_PRELOAD", preload);
	{	/* a program the preload cannot get into runs, untraced, said */
		char file[PATH_MAX];

		if (tg_exe_find(argv[0], getenv("PATH"), file, sizeof(file)) == 0) {
			enum tg_exe x = tg_exe_check(file);

			if (x == TG_EXE_STATIC)
				warnx("'%s' is statically linked: the tracer cannot be preloaded "
				      "into it, and it runs untraced (link it with libtangram.a: "
				      "libtangram(7), Static executables)", file);
			else if (x == TG_EXE_SECURE)
				warnx("'%s' is set-user-ID or set-group-ID: the dynamic linker "
				      "ignores LD_PRELOAD for it, and it runs untraced", file);
		}
	}
	execvp(argv[0], argv);
	err(errno == ENOENT ? 127 : 126, "cannot run '%s'", argv[0]);
}
