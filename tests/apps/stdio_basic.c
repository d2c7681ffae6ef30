/*
 * stdio_basic - a fixed sequence of stdio calls whose records
 * tests/shim.bats asserts.  Writes "text" in the current directory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(int ok, const char *what)
{
	if (!ok) {
		perror(what);
		_Exit(1);
	}
}

int main(void)
{
	char buf[64];
	FILE *f, *g;
	long pos;

	f = fopen("text", "w+");
	check(f != NULL, "fopen text");
	check(fwrite("0123456789", 1, 10, f) == 10, "fwrite");
	check(fprintf(f, "n=%d;", 42) == 5, "fprintf");
	check(fputs("tail\n", f) >= 0, "fputs");
	check(fflush(f) == 0, "fflush");
	check(fseek(f, 2, SEEK_SET) == 0, "fseek");
	pos = ftell(f);
	check(pos == 2, "ftell");
	memset(buf, 0, sizeof(buf));
	check(fread(buf, 1, 8, f) == 8, "fread");
	g = fopen("missing", "r");
	check(g == NULL, "fopen missing");
	g = fopen("other", "w");
	check(g != NULL, "fopen other");
	check(fwrite("ab", 2, 1, g) == 1, "fwrite other");
	check(fclose(g) == 0, "fclose other");
	check(fclose(f) == 0, "fclose text");
	return 0;
}
