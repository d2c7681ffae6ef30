/*
 * rechead.c - the stream header of a .rec (tangram-rec(5)): encoded here
 * for the tracer and tg_writer, released here for every reader.  Apart from
 * rec.c because the tracer links this file alone, not the readers and the
 * argument codecs.
 */
#include "rec.h"

#include <stdlib.h>
#include <string.h>

#include "varint.h"
#include "banned.h"

static unsigned char *put_str(unsigned char *p, unsigned char *end,
			      const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!p || (size_t)(end - p) < n + TG_VARINT_MAX)
		return NULL;
	p = tg_put_uvar(p, n);
	memcpy(p, s, n);
	return p + n;
}

size_t tg_header_encode(const struct tg_header *h, unsigned char *buf,
			size_t cap)
{
	unsigned char *p = buf, *end = buf + cap, *body;
	int i;

	if (cap < 16 + 6 * TG_VARINT_MAX)
		return 0;
	memcpy(p, TG_REC_MAGIC, TG_REC_MAGIC_LEN);
	p += TG_REC_MAGIC_LEN;
	*p++ = TG_REC_VERSION & 0xff;
	*p++ = TG_REC_VERSION >> 8;
	*p++ = (unsigned char)(h->flags & 0xff);
	*p++ = (unsigned char)(h->flags >> 8);
	body = p + 4;
	p = body;
	tg_put_le32(p, (uint32_t)(int32_t)h->rank);
	tg_put_le32(p + 4, (uint32_t)h->world);
	p += 8;
	p = tg_put_uvar(p, h->pid);
	p = tg_put_uvar(p, h->ppid);
	p = tg_put_uvar(p, h->clock_base);
	p = put_str(p, end, h->host);
	p = put_str(p, end, h->cwd);
	if (!p || end - p < TG_VARINT_MAX)
		return 0;
	p = tg_put_uvar(p, (uint64_t)h->argc);
	for (i = 0; i < h->argc && p; i++)
		p = put_str(p, end, h->argv[i]);
	/* a later run's number; the first run's streams end at argv */
	if (p && h->run > 1)
		p = end - p < TG_VARINT_MAX ? NULL : tg_put_uvar(p, h->run);
	if (!p)
		return 0;
	tg_put_le32(body - 4, (uint32_t)(p - body));
	return (size_t)(p - buf);
}

void tg_header_release(struct tg_header *h)
{
	int i;

	free(h->host);
	free(h->cwd);
	for (i = 0; i < h->argc; i++)
		free(h->argv[i]);
	free(h->argv);
	memset(h, 0, sizeof(*h));
}
