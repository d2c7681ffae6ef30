/*
 * mark.h - a marker record for the happens-before tests: access(2) on a
 * path named after the point of the program, so that a test finds the seq
 * of that point in the decoded trace by the path.
 */
#ifndef HB_MARK_H
#define HB_MARK_H

#include <unistd.h>

static inline void mark(const char *name)
{
	(void)access(name, F_OK);
}

#endif
