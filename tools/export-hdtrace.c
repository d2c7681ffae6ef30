/* placeholder */
#include "export.h"
static void *o_open(const struct xopts *o) { (void)o; return NULL; }
static int o_stream(void *x, const struct xstream *s) { (void)x; (void)s; return 0; }
static int o_rec(void *x, const struct xstream *s, const struct tg_rec *r) { (void)x; (void)s; (void)r; return 0; }
static int o_close(void *x, int ok) { (void)x; (void)ok; return 0; }
const struct exporter tg_export_hdtrace = { "hdtrace", o_open, o_stream, o_rec, o_close };
