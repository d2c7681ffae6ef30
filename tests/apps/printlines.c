/* printlines N - print N numbered lines on standard output with printf
 * (a program without MPI whose output a job script redirects). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int i, n = argc > 1 ? atoi(argv[1]) : 10;

	for (i = 0; i < n; i++)
		printf("value %d\n", i);
	return 0;
}
