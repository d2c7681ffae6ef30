/*
 * lines - text I/O by line, as an input deck is read: fputs three lines
 * into FILE, then read them back, the first two with fgets, the third
 * with getline, and fgets once more at the end of the file.
 *
 * usage: lines FILE
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	char buf[64], *line = NULL;
	size_t cap = 0;
	FILE *f;

	if (argc != 2 || !(f = fopen(argv[1], "w+"))) {
		fputs("usage: lines FILE\n", stderr);
		return 2;
	}
	if (fputs("alpha 1\n", f) < 0 || fputs("beta 22\n", f) < 0 ||
	    fputs("gamma 333\n", f) < 0)
		return 1;
	rewind(f);
	if (!fgets(buf, sizeof(buf), f) || !fgets(buf, sizeof(buf), f) ||
	    getline(&line, &cap, f) != 10 || fgets(buf, sizeof(buf), f))
		return 1;
	free(line);
	return fclose(f) != 0;
}
