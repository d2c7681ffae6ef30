/*
 * graph.h - building the happens-before graph of an MPI run from the text
 * records of trace-decode (tangram-text(5)): the parser, the matching of
 * seed paper 000 (sends to receives, collectives by order, communicators by
 * their creation), and the vector-clock index of tangram-hb(5).
 *
 * The builder owns everything it makes; the graph that hbb_graph() returns
 * points into it and lives until hbb_free().
 */
#ifndef TG_HBGRAPH_H
#define TG_HBGRAPH_H

#include <stddef.h>
#include <stdio.h>

struct hbb;
struct tg_hbgraph;

/* A new, empty builder; exits with an error when out of memory. */
struct hbb *hbb_new(void);

/* Order by what MPI promises only (hb-build -m): the MPI calls a library
 * makes inside MPI-IO calls are left out like any nested MPI call, and a
 * file collective orders nothing.  Before the first hbb_feed(). */
void hbb_mpi_only(struct hbb *b);

/* Release the builder and the graph it made. */
void hbb_free(struct hbb *b);

/*
 * Parse @len more bytes of text records; a line may continue in the next
 * call.  @name names the input in messages.  Returns 0, or -1 with a
 * one-line message in @err ("NAME: line N: what") on a malformed line.
 */
int hbb_feed(struct hbb *b, const char *data, size_t len, const char *name,
	     char *err, size_t errlen);

/* The input ended: parse a last line without its newline.  0 or -1. */
int hbb_finish(struct hbb *b, char *err, size_t errlen);

/*
 * The ranks whose threads made MPI calls need the times of every record
 * (tangram-hb(5), Threads).  Keep them as the text is read
 * (hbb_keep_times(), before the first hbb_feed(), for input that can be
 * read once only); or, when hbb_times_needed() says so after
 * hbb_finish(), call hbb_times_begin() and feed the same text again, then
 * hbb_finish().  Without them such ranks are taken as one thread.
 */
void hbb_keep_times(struct hbb *b);
int hbb_times_needed(const struct hbb *b);
void hbb_times_begin(struct hbb *b);

/*
 * Match the calls and build the graph and its index.  Returns 0, or -1
 * with a message in @err when the trace is broken (duplicate records,
 * a cycle).  Problems (unmatched calls...) are not errors: they are kept
 * in the graph and told by hbb_report().
 */
int hbb_build(struct hbb *b, char *err, size_t errlen);

/* The graph hbb_build() made (its span and func arrays included). */
const struct tg_hbgraph *hbb_graph(const struct hbb *b);

#endif
