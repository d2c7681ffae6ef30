/*
 * namedirs - names as the ranks share them: directories one rank makes and
 * others use, and a name taken as a lock.
 *
 *   namedirs MODE DIR
 *
 * MODE:
 *   barrier  rank 0 makes DIR/out, a barrier, every other rank creates and
 *            writes DIR/out/f.RANK, a barrier, rank 0 reads them (session)
 *   nosync   the same without the first barrier: ranks > 0 wait 0.3 s
 *            instead (the mkdir must come first: a race)
 *   late     rank 1 creates DIR/out/f.1 at once, rank 0 makes DIR/out 0.3 s
 *            later; rank 1's open fails with ENOENT (a race), no abort
 *   everyone every rank makes DIR/out itself (EEXIST where another was
 *            first: "mkdir -p" on every rank), then writes in it
 *            (session)
 *   probe    ranks > 0 stat DIR/out and make it if it is not there, as
 *            Python's os.makedirs does, before writing in it (session)
 *   lock     rank 0 takes the name DIR/lock (mkdir), writes DIR/data,
 *            closes it and gives the name up (rmdir); rank 1 takes the
 *            name in a loop until mkdir succeeds, then reads DIR/data: no
 *            message orders them, the lock does (session)
 *   excl     the same with a lock file made with O_CREAT|O_EXCL and
 *            removed with unlink (session)
 *   link     the same with a lock taken by link() of a file of the
 *            rank's own to the name (the NFS-safe way), and symlink
 *            with symlink() (Mercurial's): session
 *   nolock   rank 1 reads DIR/data 0.3 s later without taking the name
 *            (a race)
 *   leaf     every rank makes DIR/out/sub as a "mkdir -p" that tries the
 *            deepest directory first and makes the ones above it when
 *            that fails with ENOENT (EEXIST: made already), then writes
 *            in it (session)
 *   wait     rank 0 makes DIR/out 0.2 s late; the other ranks retry their
 *            create in it until it succeeds: they wait for it (session)
 *   unlink   rank 1 removes DIR/data, not there yet (ENOENT), while rank
 *            0 creates and writes it 0.1 s later, nothing between: had
 *            rank 0 come first, the unlink would have removed its file (a
 *            race); a barrier, rank 1 reads it
 *   spin     every rank in turn takes the lock file DIR/lock (O_EXCL),
 *            reads and rewrites DIR/data, closes it and gives the name up:
 *            the first and the last are ordered through the one between
 *            (session)
 */
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char path[8192];

static const char *at(const char *dir, const char *name)
{
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static void put(const char *p, char c)
{
	char buf[64];
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return;
	memset(buf, c, sizeof(buf));
	if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
		perror(p);
	close(fd);
}

static void get(const char *p)
{
	char buf[64];
	int fd = open(p, O_RDONLY);

	if (fd < 0)
		return;
	if (read(fd, buf, sizeof(buf)) < 0)
		perror(p);
	close(fd);
}

/* Take the name @p (@how: 0 mkdir, 1 a file with O_EXCL, 2 a link of a
 * file of the process's own to it, 3 a symbolic link), retrying. */
static void take(const char *p, int how)
{
	char own[8300];
	int fd;

	snprintf(own, sizeof(own), "%s.%d", p, (int)getpid());
	if (how == 2 && (fd = open(own, O_WRONLY | O_CREAT, 0644)) >= 0)
		close(fd);
	for (;;) {
		if (how == 0 && mkdir(p, 0755) == 0)
			return;
		if (how == 1 && (fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644)) >= 0) {
			close(fd);
			return;
		}
		if (how == 2 && link(own, p) == 0) {
			unlink(own);
			return;
		}
		if (how == 3 && symlink("holder", p) == 0)
			return;
		usleep(10000);
	}
}

/* mkdir -p @p, the deepest directory first. */
static void mkdir_leaf(char *p)
{
	char *slash;

	if (mkdir(p, 0755) == 0 || errno == EEXIST)
		return;
	if (errno != ENOENT || !(slash = strrchr(p, '/')) || slash == p)
		return;
	*slash = 0;
	mkdir_leaf(p);
	*slash = '/';
	if (mkdir(p, 0755) != 0 && errno != EEXIST)
		perror(p);
}

int main(int argc, char **argv)
{
	char dir[4096], f[64];
	int rank, size, i;
	const char *mode;
	struct stat st;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 3)
		MPI_Abort(MPI_COMM_WORLD, 2);
	mode = argv[1];
	snprintf(dir, sizeof(dir), "%s/out", argv[2]);
	snprintf(f, sizeof(f), "f.%d", rank);
	if (!strcmp(mode, "barrier") || !strcmp(mode, "nosync") || !strcmp(mode, "late")) {
		int late = !strcmp(mode, "late");
		if (rank == 0) {
			if (late)
				usleep(300000);
			mkdir(dir, 0755);
		}
		if (!strcmp(mode, "barrier"))
			MPI_Barrier(MPI_COMM_WORLD);
		else if (rank > 0 && !late)
			usleep(300000);
		if (rank > 0)
			put(at(dir, f), 'a' + rank);
		MPI_Barrier(MPI_COMM_WORLD);
		for (i = 1; rank == 0 && i < size; i++) {
			snprintf(f, sizeof(f), "f.%d", i);
			get(at(dir, f));
		}
	} else if (!strcmp(mode, "everyone") || !strcmp(mode, "probe")) {
		if (!strcmp(mode, "everyone") || rank == 0 || stat(dir, &st) != 0)
			if (mkdir(dir, 0755) != 0 && errno != EEXIST)
				perror(dir);
		put(at(dir, f), 'a' + rank);
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 0)
			get(at(dir, "f.1"));
	} else if (!strcmp(mode, "leaf")) {
		char sub[4096];
		snprintf(sub, sizeof(sub), "%s/sub", dir);
		mkdir_leaf(sub);
		put(at(sub, f), 'a' + rank);
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 0)
			get(at(sub, "f.1"));
	} else if (!strcmp(mode, "wait")) {
		int fd;
		if (rank == 0) {
			usleep(200000);
			mkdir(dir, 0755);
		} else {
			while ((fd = open(at(dir, f), O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
				usleep(10000);
			if (write(fd, "abcd", 4) != 4)
				perror(path);
			close(fd);
		}
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 0)
			get(at(dir, "f.1"));
	} else if (!strcmp(mode, "unlink")) {
		char data[4096];
		snprintf(data, sizeof(data), "%s/data", argv[2]);
		if (rank == 1)
			unlink(data);
		else if (rank == 0) {
			usleep(100000);
			put(data, 'a');
		}
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 1)
			get(data);
	} else if (!strcmp(mode, "spin")) {
		char lock[4096], data[4096], buf[4];
		int fd;
		snprintf(lock, sizeof(lock), "%s/lock", argv[2]);
		snprintf(data, sizeof(data), "%s/data", argv[2]);
		take(lock, 1);
		if ((fd = open(data, O_RDWR | O_CREAT, 0644)) >= 0) {
			if (pread(fd, buf, sizeof(buf), 0) < 0 || pwrite(fd, "abcd", 4, 0) != 4)
				perror(data);
			close(fd);
		}
		if (unlink(lock))
			perror(lock);
	} else {
		int excl = !strcmp(mode, "excl") ? 1 : !strcmp(mode, "link") ? 2 :
			   !strcmp(mode, "symlink") ? 3 : 0,
		    nolock = !strcmp(mode, "nolock");
		char lock[4096], data[4096];
		snprintf(lock, sizeof(lock), "%s/lock", argv[2]);
		snprintf(data, sizeof(data), "%s/data", argv[2]);
		if (rank == 0) {
			take(lock, excl);
			MPI_Barrier(MPI_COMM_WORLD);	/* rank 1 now waits for the name */
			usleep(100000);
			put(data, 'a');
			if (excl ? unlink(lock) : rmdir(lock))
				perror(lock);
		} else if (rank == 1) {
			MPI_Barrier(MPI_COMM_WORLD);
			if (nolock)
				usleep(300000);
			else
				take(lock, excl);
			get(data);
		} else {
			MPI_Barrier(MPI_COMM_WORLD);
		}
	}
	MPI_Finalize();
	return 0;
}
