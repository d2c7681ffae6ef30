/*
 * kinds.c - the row of operations of each argument kind (see kinds.h).
 */
#include "kinds.h"

#include "banned.h"

#define ROW(n, a, rp, rg, sp, sg, ss) { n, a, rp, rg, sp, sg, ss }

const struct tg_kindops tg_kinds[TG_K_COUNT] = {
	/*	name, arr, .rec put, get, .cfg put, get, skip */
	[TG_K_VOID] = ROW("void", 0, tg_rk_put_u, NULL, NULL, NULL, NULL),
	[TG_K_INT] = ROW("int", 0, tg_rk_put_s, tg_rk_get_s, tg_sk_put_int, tg_sk_get_int,
			 tg_sk_skip_int),
	[TG_K_UINT] = ROW("uint", 0, tg_rk_put_u, tg_rk_get_u, tg_sk_put_plain, tg_sk_get_plain,
			  tg_sk_skip_plain),
	[TG_K_HEX] = ROW("hex", 0, tg_rk_put_u, tg_rk_get_u, tg_sk_put_plain, tg_sk_get_plain,
			 tg_sk_skip_plain),
	[TG_K_FD] = ROW("fd", 0, tg_rk_put_s, tg_rk_get_s, tg_sk_put_fd, tg_sk_get_fd,
			tg_sk_skip_pair),
	[TG_K_OFLAGS] = ROW("oflags", 0, tg_rk_put_u, tg_rk_get_u, tg_sk_put_plain,
			    tg_sk_get_plain, tg_sk_skip_plain),
	[TG_K_MODE] = ROW("mode", 0, tg_rk_put_u, tg_rk_get_u, tg_sk_put_plain, tg_sk_get_plain,
			  tg_sk_skip_plain),
	[TG_K_STR] = ROW("str", 0, tg_rk_put_str, tg_rk_get_str, tg_sk_put_str, tg_sk_get_str,
			 tg_sk_skip_str),
	[TG_K_PATH] = ROW("path", 0, tg_rk_put_str, tg_rk_get_str, tg_sk_put_str, tg_sk_get_str,
			  tg_sk_skip_str),
	[TG_K_STREAM] = ROW("stream", 0, tg_rk_put_u, tg_rk_get_u, tg_sk_put_plain,
			    tg_sk_get_plain, tg_sk_skip_plain),
	[TG_K_BUF] = ROW("buf", 0, tg_rk_put_u, tg_rk_get_u, tg_sk_put_buf, tg_sk_get_buf,
			 tg_sk_skip_pair),
	[TG_K_DIR] = ROW("dir", 0, tg_rk_put_u, tg_rk_get_u, tg_sk_put_plain, tg_sk_get_plain,
			 tg_sk_skip_plain),
	[TG_K_WHENCE] = ROW("whence", 0, tg_rk_put_s, tg_rk_get_s, tg_sk_put_plain,
			    tg_sk_get_plain, tg_sk_skip_plain),
	[TG_K_STAT] = ROW("stat", 0, tg_rk_put_stat, tg_rk_get_stat, tg_sk_put_stat,
			  tg_sk_get_stat, tg_sk_skip_stat),
	[TG_K_IOV] = ROW("iov", 1, tg_rk_put_uarr, tg_rk_get_uarr, tg_sk_put_arr, tg_sk_get_arr,
			 tg_sk_skip_arr),
	[TG_K_FCNTL] = ROW("fcntl", 0, tg_rk_put_s, tg_rk_get_s, tg_sk_put_plain,
			   tg_sk_get_plain, tg_sk_skip_plain),
	[TG_K_INTARR] = ROW("intarr", 1, tg_rk_put_sarr, tg_rk_get_sarr, tg_sk_put_arr,
			    tg_sk_get_arr, tg_sk_skip_arr),
	[TG_K_SIGNED_OFF] = ROW("off", 0, tg_rk_put_s, tg_rk_get_s, tg_sk_put_int, tg_sk_get_int,
				tg_sk_skip_int),
	[TG_K_MPIH] = ROW("mpih", 0, tg_rk_put_u, tg_rk_get_u, tg_sk_put_mpih, tg_sk_get_mpih,
			  tg_sk_skip_mpih),
	[TG_K_MPIHARR] = ROW("mpiharr", 1, tg_rk_put_uarr, tg_rk_get_uarr, tg_sk_put_mpiharr,
			     tg_sk_get_mpiharr, tg_sk_skip_mpiharr),
	[TG_K_MPISTATUS] = ROW("status", 0, tg_rk_put_status, tg_rk_get_status,
			       tg_sk_put_status, tg_sk_get_status, tg_sk_skip_status),
	[TG_K_MPISTATUSES] = ROW("statuses", 2, tg_rk_put_statuses, tg_rk_get_statuses,
				 tg_sk_put_statuses, tg_sk_get_statuses, tg_sk_skip_statuses),
	[TG_K_MPIIOSTATUS] = ROW("iostatus", 0, tg_rk_put_iostatus, tg_rk_get_iostatus,
				 tg_sk_put_iostatus, tg_sk_get_iostatus, tg_sk_skip_iostatus),
	[TG_K_HID] = ROW("hid", 0, tg_rk_put_u, tg_rk_get_u, tg_sk_put_plain, tg_sk_get_plain,
			 tg_sk_skip_plain),
	[TG_K_HSIZEARR] = ROW("dims", 1, tg_rk_put_hsizes, tg_rk_get_hsizes, tg_sk_put_hsizes,
			      tg_sk_get_hsizes, tg_sk_skip_hsizes),
	[TG_K_ENUM] = ROW("enum", 0, tg_rk_put_s, tg_rk_get_s, tg_sk_put_plain, tg_sk_get_plain,
			  tg_sk_skip_plain),
};
