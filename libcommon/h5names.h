/*
 * h5names.h - names of the HDF5 values that appear in traces: predefined
 * identifiers (H5T_NATIVE_INT, H5P_FILE_ACCESS ...), the letters of
 * symbolic identifiers, and named constants (H5S_SELECT_SET ...).  The
 * tables (h5names.gen.c) are generated from the HDF5 headers by
 * shim/gen-calls.py; the shim uses tg_h5_predef to find the identifiers'
 * values in the running library, the decoders to print them.
 */
#ifndef TG_H5NAMES_H
#define TG_H5NAMES_H

#include <stddef.h>
#include <stdint.h>

struct tg_h5predef {
	const char *name;	/* as the program writes it: "H5T_NATIVE_INT" */
	const char *global;	/* the library's variable: "H5T_NATIVE_INT_g" */
};

/* Predefined identifier n (1 <= n < tg_h5_npredef) is tg_h5_predef[n]. */
extern const struct tg_h5predef tg_h5_predef[];
extern const unsigned tg_h5_npredef;

struct tg_enumname {
	uint8_t table;		/* enum tg_enum */
	int64_t val;
	const char *name;
};

/* Every table's names, ended by a NULL name. */
extern const struct tg_enumname tg_h5_enums[];

/* Letter of the symbolic identifiers of HDF5 type @type (H5I_type_t):
 * 'F' files, 'D' datasets, 'S' dataspaces... */
char tg_h5_type_letter(unsigned type);

/* Name of predefined identifier @n, or NULL. */
const char *tg_h5_predef_name(uint64_t n);

/* Write the name of value @v of table @table (enum tg_enum) into @buf (cap
 * bytes): "H5S_SELECT_SET", flags as "H5F_ACC_RDWR|H5F_ACC_CREAT", the
 * number when it has no name.  Returns @buf. */
const char *tg_enum_str(char *buf, size_t cap, int table, int64_t v);

/* The text of an HDF5 identifier as encoded in a trace (TG_K_HID), whose
 * 0 is named by @zero (enum tg_hidzero): "D3", "H5T_NATIVE_INT",
 * "H5P_DEFAULT", "-1" for an invalid one.  Returns @buf. */
const char *tg_hid_str(char *buf, size_t cap, int zero, uint64_t enc);

#endif
