/*
 * aio - POSIX AIO on a file, as a program on TangramFS makes it (run with
 * libtfs-posix.so preloaded, or on a local disk to compare): aio_write of
 * "0123456789" at 0 and notified by SIGEV_SIGNAL, aio_suspend, aio_return;
 * lio_listio(LIO_WAIT) of two writes at 10 and 20 and a LIO_NOP;
 * aio_fsync; aio_read of all 30 bytes; a request on a descriptor of the
 * local disk (the file named second) in the same list.  Prints one line
 * per step with what the calls returned.
 */
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t signalled;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	signalled = si->si_value.sival_int;
}

static void prep(struct aiocb *cb, int fd, void *buf, size_t n, off_t off, int op)
{
	memset(cb, 0, sizeof(*cb));
	cb->aio_fildes = fd;
	cb->aio_buf = buf;
	cb->aio_nbytes = n;
	cb->aio_offset = off;
	cb->aio_lio_opcode = op;
	cb->aio_sigevent.sigev_notify = SIGEV_NONE;
}

/* Wait for @cb and print its outcome under @what. */
static void done(const char *what, struct aiocb *cb)
{
	const struct aiocb *l[1] = { cb };

	while (aio_error(cb) == EINPROGRESS)
		aio_suspend(l, 1, NULL);
	printf("%s: error %d return %zd\n", what, aio_error(cb), aio_return(cb));
}

int main(int argc, char **argv)
{
	char a[] = "0123456789", b[] = "abcdefghij", c[] = "ABCDEFGHIJ", back[31] = "";
	char local[] = "local";
	struct aiocb w, x, y, nop, f, r, l;
	struct aiocb *list[4];
	struct sigaction sa;
	int fd, lfd;

	if (argc < 3) {
		fprintf(stderr, "usage: aio FILE LOCALFILE\n");
		return 2;
	}
	if ((fd = open(argv[1], O_CREAT | O_RDWR | O_TRUNC, 0644)) < 0 ||
	    (lfd = open(argv[2], O_CREAT | O_RDWR | O_TRUNC, 0644)) < 0) {
		perror("aio: open");
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, NULL);
	prep(&w, fd, a, 10, 0, LIO_WRITE);
	w.aio_sigevent.sigev_notify = SIGEV_SIGNAL;
	w.aio_sigevent.sigev_signo = SIGUSR1;
	w.aio_sigevent.sigev_value.sival_int = 42;
	printf("aio_write: %d\n", aio_write(&w));
	done("write", &w);
	while (!signalled)
		usleep(1000);
	printf("signal value: %d\n", (int)signalled);
	prep(&x, fd, b, 10, 10, LIO_WRITE);
	prep(&y, fd, c, 10, 20, LIO_WRITE);
	prep(&nop, fd, NULL, 0, 0, LIO_NOP);
	prep(&l, lfd, local, 5, 0, LIO_WRITE);
	list[0] = &x;
	list[1] = &nop;
	list[2] = &l;
	list[3] = &y;
	printf("lio_listio: %d\n", lio_listio(LIO_WAIT, list, 4, NULL));
	done("list write 10", &x);
	done("list write 20", &y);
	done("list write local", &l);
	prep(&f, fd, NULL, 0, 0, 0);
	printf("aio_fsync: %d\n", aio_fsync(O_SYNC, &f));
	done("fsync", &f);
	prep(&r, fd, back, 30, 0, LIO_READ);
	printf("aio_read: %d\n", aio_read(&r));
	done("read", &r);
	printf("read back: %s\n", back);
	close(fd);
	close(lfd);
	return 0;
}
