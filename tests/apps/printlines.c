/* printlines N [FILE] - print N numbered lines with printf on standard
 * output (a program without MPI whose output a job script redirects), or
 * with fprintf into FILE, which it opens and closes. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int i, n = argc > 1 ? atoi(argv[1]) : 10;
	FILE *f = stdout;

	if (argc > 2 && !(f = fopen(argv[2], "w"))) {
		perror(argv[2]);
		return 2;
	}
	for (i = 0; i < n; i++)
		fprintf(f, "value %d\n", i);
	return f != stdout && fclose(f) != 0;
}
