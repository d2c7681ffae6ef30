/*
 * h5names.c - printing HDF5 identifiers and named constants (h5names.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "h5names.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "calltab.h"
#include "banned.h"

char tg_h5_type_letter(unsigned type)
{
	/* by H5I_type_t: file, group, datatype, dataspace, dataset, attribute,
	 * reference, file driver, property class, property list, error
	 * class, error message, error stack */
	static const char letters[] = "?FGTSDARVCPEMK";

	return type < sizeof(letters) - 1 ? letters[type] : 'H';
}

const char *tg_h5_predef_name(uint64_t n)
{
	return n > 0 && n < tg_h5_npredef ? tg_h5_predef[n].name : NULL;
}

const char *tg_enum_str(char *buf, size_t cap, int table, int64_t v)
{
	const struct tg_enumname *e;
	uint64_t left = (uint64_t)v;
	size_t o = 0;

	for (e = tg_h5_enums; e->name; e++)
		if (e->table == table && e->val == v) {
			snprintf(buf, cap, "%s", e->name);
			return buf;
		}
	if (table != TG_E_H5F_ACC || v <= 0) {
		snprintf(buf, cap, "%" PRId64, v);
		return buf;
	}
	/* flags: the names of the bits, then what is left in hex */
	buf[0] = 0;
	for (e = tg_h5_enums; e->name; e++) {
		uint64_t bit = (uint64_t)e->val;
		if (e->table != table || !bit || (bit & (bit - 1)) || !(left & bit))
			continue;
		o += (size_t)snprintf(buf + o, o < cap ? cap - o : 0, "%s%s",
				      o ? "|" : "", e->name);
		left &= ~bit;
	}
	if (left)
		o += (size_t)snprintf(buf + o, o < cap ? cap - o : 0, "%s0x%" PRIx64,
				      o ? "|" : "", left);
	return buf;
}

const char *tg_hid_str(char *buf, size_t cap, int zero, uint64_t enc)
{
	static const char *const zeros[] = { "0", "H5P_DEFAULT", "H5S_ALL", "H5E_DEFAULT" };
	const char *n;

	if (enc == 0)
		return zero >= 0 && zero <= TG_HZ_ESTACK ? zeros[zero] : "0";
	if (enc == 1)
		return "-1";
	if (enc & 1) {
		if ((n = tg_h5_predef_name(enc >> 1)))
			return n;
		snprintf(buf, cap, "H5?%" PRIu64, enc >> 1);
		return buf;
	}
	snprintf(buf, cap, "%c%" PRIu64, tg_h5_type_letter((unsigned)((enc >> 1) & 0x7f)),
		 enc >> 8);
	return buf;
}
