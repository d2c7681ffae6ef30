/*
 * call ADDR SECRET TYPE [BODY-HEX]: send one request through the transport
 * (transport.h, any backend) with SECRET (32 hex digits, "bad": zeros) and
 * print the reply's status, "status N", or "failed ERRNO-TEXT" when the
 * request could not be carried.  Links the internals of lib/libtfs.a.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tfs/transport.h"

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static size_t unhex(const char *s, unsigned char *out, size_t max)
{
	size_t n = 0;

	while (s[0] && s[1] && n < max && hexval(s[0]) >= 0 && hexval(s[1]) >= 0) {
		out[n++] = (unsigned char)(hexval(s[0]) * 16 + hexval(s[1]));
		s += 2;
	}
	return n;
}

int main(int argc, char **argv)
{
	unsigned char secret[TFS_SECRET_LEN] = { 0 }, body[4096];
	struct tfs_ep *ep;
	struct iovec v;
	size_t blen = 0, rlen;
	void *rbody = NULL;
	int rc;

	if (argc < 4 || argc > 5) {
		fputs("usage: call ADDR SECRET TYPE [BODY-HEX]\n", stderr);
		return 2;
	}
	if (strcmp(argv[2], "bad") != 0 && unhex(argv[2], secret, sizeof(secret)) != sizeof(secret)) {
		fputs("call: bad secret\n", stderr);
		return 2;
	}
	if (argc == 5)
		blen = unhex(argv[4], body, sizeof(body));
	if (!(ep = tfs_ep_connect(argv[1], secret, 5000))) {
		printf("failed %s\n", strerror(errno));
		return 0;
	}
	v.iov_base = body;
	v.iov_len = blen;
	rc = tfs_ep_call(ep, (uint16_t)atoi(argv[3]), &v, 1, NULL, 0, &rbody, &rlen, 5000);
	if (rc < 0)
		printf("failed %s\n", strerror(errno));
	else
		printf("status %d\n", rc);
	free(rbody);
	tfs_ep_close(ep);
	return 0;
}
