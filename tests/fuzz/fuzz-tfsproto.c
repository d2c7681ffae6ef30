/*
 * fuzz-tfsproto - libFuzzer harness for the TangramFS wire protocol decoder
 * (tfs/proto.c): a frame header, then its body read the way the server and
 * the clients read bodies -- u32, u64 and strings in an order the header's
 * request id spells out, two bits per field -- each string normalised as a
 * path.  A header that decodes must encode back to one that decodes the
 * same.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../tfs/proto.h"

static void body(const struct tfs_hdr *h, const uint8_t *p, size_t len)
{
	static char s[TFS_MAX_PATH + 1], norm[TFS_MAX_PATH + 1];
	struct tfs_rd r;
	uint64_t ops = h->id;
	int k;

	tfs_rd_init(&r, p, len);
	for (k = 0; k < 32 && !r.bad; k++, ops >>= 2) {
		switch (ops & 3) {
		case 0:
			(void)tfs_rd_u32(&r);
			break;
		case 1:
			(void)tfs_rd_u64(&r);
			break;
		case 2:
			tfs_rd_str(&r, s, sizeof(s));
			if (!r.bad)
				(void)tfs_path_norm(s, norm, sizeof(norm));
			break;
		default:
			tfs_rd_str(&r, s, 8);
			break;
		}
	}
	(void)tfs_rd_done(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char again[TFS_HDR_SIZE];
	struct tfs_hdr h, h2;

	if (size < TFS_HDR_SIZE)
		return 0;
	if (tfs_hdr_decode(data, &h) < 0)
		return 0;
	tfs_hdr_encode(&h, again);
	if (tfs_hdr_decode(again, &h2) < 0 || h2.type != h.type || h2.flags != h.flags ||
	    h2.len != h.len || h2.status != h.status || h2.id != h.id ||
	    !tfs_secret_eq(h.secret, h2.secret))
		abort();
	body(&h, data + TFS_HDR_SIZE,
	     h.len < size - TFS_HDR_SIZE ? h.len : size - TFS_HDR_SIZE);
	return 0;
}
