/*
 * fortified - built with _FORTIFY_SOURCE=2 so that glibc's checking entry
 * points (__read_chk, __fprintf_chk, __printf_chk, __open_2) are the ones
 * called; the shim must still record them as read, fprintf, printf, open.
 * The Makefile builds test programs with -O1, which is enough for fortify.
 */
#undef _FORTIFY_SOURCE
#define _FORTIFY_SOURCE 2
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[16];
	size_t want = sizeof(buf) + 1 - (size_t)argc;	/* 16, not constant */
	int flags = argc > 5 ? O_CREAT : 0;	/* not constant: __open_2 */
	FILE *f;
	int fd;

	(void)argv;
	f = fopen("out", "w");
	if (!f)
		return 1;
	if (fprintf(f, "%s-%d\n", "fort", 7) != 7)
		return 1;
	if (fclose(f) != 0)
		return 1;
	fd = open("out", O_RDONLY | flags);
	if (fd < 0)
		return 1;
	if (read(fd, buf, want) != 7)
		return 1;
	close(fd);
	printf("read %d\n", 7);
	return 0;
}
