/*
 * shellout - output written by a shell command the program runs, as
 * programs do with system(): "printf 'hi there' | cat > out" makes the
 * shell's child open out onto its standard output and exec cat, which
 * writes it.  Then the program reads out back.
 */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	char b[16] = "";
	FILE *f;

	if (system("printf 'hi there' | cat > out") != 0)
		return 1;
	if (!(f = fopen("out", "r")) || !fgets(b, sizeof(b), f))
		return 1;
	fclose(f);
	printf("%s\n", b);
	return 0;
}
