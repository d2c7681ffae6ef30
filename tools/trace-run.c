/*
 * trace-run - run a command with the Tangram tracer preloaded.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../libcommon/tg.h"
#include "../libcommon/banned.h"

#ifndef TG_LIBDIR
#define TG_LIBDIR "/usr/local/lib"
#endif

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

/* The run a stream file named @name belongs to (rank-R.rec, pid-P.rec,
 * pid-P.N.rec: 1; the same with .runK before .rec: K), or 0 if the name is
 * not a stream's. */
static unsigned long stream_run(const char *name)
{
	size_t n = strlen(name);
	const char *p;

	if ((strncmp(name, "rank-", 5) != 0 && strncmp(name, "pid-", 4) != 0) ||
	    n < 4 || strcmp(name + n - 4, ".rec") != 0)
		return 0;
	for (p = name + n - 4; p > name && isdigit((unsigned char)p[-1]); p--)
		;
	if (p < name + n - 4 && p - name >= 4 && strncmp(p - 4, ".run", 4) == 0 &&
	    *p != '0')
		return strtoul(p, NULL, 10);
	return 1;
}

/* The number of the next run into @dir: one more than the last whose
 * streams are there, 1 for a directory without streams (or none). */
static unsigned long next_run(const char *dir)
{
	unsigned long last = 0, k;
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return 1;
	while ((e = readdir(d)))
		if ((k = stream_run(e->d_name)) > last && k < 1000000)
			last = k;
	closedir(d);
	return last + 1;
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
	}
	pre = getenv("LD_PRELOAD");
	if (asprintf(&preload, "%s%s%s", lib, pre && *pre ? ":" : "",
		     pre ? pre : "") < 0)
		err(TG_EXIT_ERROR, "out of memory");
	set("LD_PRELOAD", preload);
	execvp(argv[0], argv);
	err(errno == ENOENT ? 127 : 126, "cannot run '%s'", argv[0]);
}
