/*
 * cfggram.h - a read-only view of a compressed trace's grammar
 * (tangram-cfg(5)), for tools that follow its structure rather than the
 * records it expands to (trace-proxy: rules become functions, repetitions
 * loops).  Everything returned is borrowed from the tg_cfg and stays
 * valid until it is changed or freed.
 */
#ifndef TG_CFGGRAM_H
#define TG_CFGGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "sequitur.h"

struct tg_cfg;

/* Rules of the grammar; rule i names only rules below i. */
size_t tg_cfg_nrules(const struct tg_cfg *c);

/* The body of rule @r (< tg_cfg_nrules()): *@n symbols, each a signature
 * (sym even: signature sym >> 1) or a rule (sym odd: rule sym >> 1) raised
 * to its repetition count exp.  NULL if there is no rule @r. */
const struct tg_sym *tg_cfg_rule_body(const struct tg_cfg *c, size_t r, size_t *n);

/* The start rule of stream @i (< tg_cfg_nstreams()). */
uint32_t tg_cfg_stream_rule(const struct tg_cfg *c, size_t i);

/* Signatures in the call signature table; a symbol's signature is below. */
size_t tg_cfg_nsigs(const struct tg_cfg *c);

/* The words of signature @t (tangram-cfg(5), "Signatures"), *@n of them;
 * NULL if there is no signature @t. */
const int64_t *tg_cfg_sig_words(const struct tg_cfg *c, size_t t, size_t *n);

#endif
