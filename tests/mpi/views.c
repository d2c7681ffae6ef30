/*
 * views - MPI-IO file views of every datatype shape, selected by the first
 * argument; run on 2 or 4 ranks, writing "f" in the working directory.
 *
 * Every data byte rank r writes holds r + 1 and no byte is written by two
 * ranks, so reading "f" back tells which rank wrote each byte: the test
 * compares that with the bytes overlap-find places.  Rank 0 makes "f"
 * 8192 zeros first.
 *
 *   darray-block    2-D darray, block x block (default dargs), C order
 *   darray-cyclic   2-D darray, cyclic(1) x cyclic(2), Fortran order
 *   darray-bc       3-D darray, block(3) x none x cyclic(2), C and Fortran
 *                   order (two files' worth, at two displacements)
 *   subarray        3-D subarrays in C order, then in Fortran order
 *   nested          vector of struct, then hvector of indexed
 *   resized         an indexed type resized to a new lb and extent
 *   lb-ub           MPI-1 bound markers: MPI_Type_struct with MPI_LB and
 *                   MPI_UB, alone and under a contiguous type
 *   zero-blocks     indexed and hindexed types with zero-length blocks
 *   buffers         contiguous view, memory types: a struct with a negative
 *                   displacement, a struct at absolute addresses (MPI_BOTTOM)
 *   struct-file     hindexed and struct file types
 *   reuse           a vector view whose type is freed, its id reused by a
 *                   memory type written through it, then by an indexed
 *                   type for a second view
 *   zero-count      count-0 writes (independent and collective) between
 *                   ordinary ones
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;
static char *data;
static MPI_File fh;

static void fill(size_t n)
{
	data = realloc(data, n + 1);
	memset(data, rank + 1, n + 1);
}

/* Set a view of @ft at @disp (etype MPI_BYTE) and write @tiles instances
 * of it collectively. */
static void view_write(MPI_Offset disp, MPI_Datatype ft, int tiles)
{
	int sz;

	MPI_Type_commit(&ft);
	MPI_Type_size(ft, &sz);
	fill((size_t)sz * tiles);
	MPI_File_set_view(fh, disp, MPI_BYTE, ft, "native", MPI_INFO_NULL);
	MPI_File_write_all(fh, data, sz * tiles, MPI_BYTE, MPI_STATUS_IGNORE);
}

static void darray(MPI_Offset disp, int nd, const int *g, const int *dist, const int *darg,
		   const int *ps, int order)
{
	MPI_Datatype t;
	int sz;

	MPI_Type_create_darray(size, rank, nd, g, dist, darg, ps, order, MPI_INT, &t);
	MPI_Type_commit(&t);
	MPI_Type_size(t, &sz);
	fill((size_t)sz);
	MPI_File_set_view(fh, disp, MPI_INT, t, "native", MPI_INFO_NULL);
	MPI_File_write_all(fh, data, sz / 4, MPI_INT, MPI_STATUS_IGNORE);
	MPI_Type_free(&t);
}

static void case_darray(const char *c)
{
	int g2[2] = { 8, 6 }, ps2[2] = { size / 2, 2 };
	int bb[2] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK };
	int cc[2] = { MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_CYCLIC };
	int dflt[2] = { MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG };
	int c12[2] = { 1, 2 };
	int g3[3] = { 7, 3, 10 }, ps3[3] = { size / 2, 1, 2 };
	int d3[3] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_CYCLIC };
	int a3[3] = { 4, MPI_DISTRIBUTE_DFLT_DARG, 2 };

	if (!strcmp(c, "darray-block")) {
		darray(0, 2, g2, bb, dflt, ps2, MPI_ORDER_C);
	} else if (!strcmp(c, "darray-cyclic")) {
		darray(0, 2, g2, cc, c12, ps2, MPI_ORDER_FORTRAN);
	} else {
		/* block(4) over 2 ranks of 7: 4 and 3; over 1 of 7 (size 2) */
		if (size == 2)
			a3[0] = 7;
		darray(0, 3, g3, d3, a3, ps3, MPI_ORDER_C);
		darray(7 * 3 * 10 * 4, 3, g3, d3, a3, ps3, MPI_ORDER_FORTRAN);
	}
}

static void case_subarray(void)
{
	int sizes[3] = { 4, 5, 6 }, sub[3] = { 2, 2, 3 }, st[3];
	MPI_Datatype t;

	/* rank r takes the (r / 2, r % 2) quarter of the first two
	 * dimensions, half the last, the other half in the second file */
	st[0] = 2 * ((rank / 2) % 2);
	st[1] = 2 * (rank % 2);
	st[2] = 0;
	MPI_Type_create_subarray(3, sizes, sub, st, MPI_ORDER_C, MPI_SHORT, &t);
	view_write(0, t, 1);
	MPI_Type_free(&t);
	st[2] = 3;
	MPI_Type_create_subarray(3, sizes, sub, st, MPI_ORDER_FORTRAN, MPI_SHORT, &t);
	view_write(4 * 5 * 6 * 2, t, 1);
	MPI_Type_free(&t);
}

static void case_nested(void)
{
	MPI_Datatype s, v, rv, idx, hv;
	int bl[2] = { 2, 1 }, ib[3] = { 1, 2, 1 }, id[3] = { 0, 3, 7 };
	MPI_Aint sd[2] = { 0, 12 };
	MPI_Datatype st[2] = { MPI_INT, MPI_SHORT };

	/* struct {2 ints at 0, a short at 12}: 10 data bytes, extent 16 */
	MPI_Type_create_struct(2, bl, sd, st, &s);
	/* each rank's structs every size-th one, tiles resized to follow
	 * each other */
	MPI_Type_vector(3, 1, size, s, &v);
	MPI_Type_create_resized(v, 0, 3 * 16 * size, &rv);
	view_write((MPI_Offset)rank * 16, rv, 2);
	MPI_Type_free(&rv);
	MPI_Type_free(&v);
	/* indexed ints at 0, 3-4, 7 (extent 32), 2 of them rank-interleaved */
	MPI_Type_indexed(3, ib, id, MPI_INT, &idx);
	MPI_Type_create_hvector(2, 1, 32 * size, idx, &hv);
	view_write(4096 + (MPI_Offset)rank * 32, hv, 1);
	MPI_Type_free(&hv);
	MPI_Type_free(&idx);
	MPI_Type_free(&s);
}

static void case_resized(void)
{
	MPI_Datatype idx, r;
	int ib[2] = { 2, 1 }, id[2] = { 1, 4 };

	/* bytes 1-2 and 4 of each instance (lb 1, extent 4), resized to lb 0
	 * and extent 6 * size: instance k of rank r at 6 * (k * size + r) */
	MPI_Type_indexed(2, ib, id, MPI_BYTE, &idx);
	MPI_Type_create_resized(idx, 0, 6 * size, &r);
	view_write(6 * (MPI_Offset)rank, r, 3);
	MPI_Type_free(&r);
	MPI_Type_free(&idx);
}

/* MPI_Type_struct, MPI_LB and MPI_UB: removed in MPI 3.0, still in MPICH
 * and in old programs (ROMIO's own tests); Open MPI's mpi.h leaves them
 * out unless built with its MPI-1 compatibility */
#if defined(OPEN_MPI) && !OMPI_ENABLE_MPI1_COMPAT
#define NO_LB_UB 1
#endif
#ifndef NO_LB_UB
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static void case_lb_ub(void)
{
	MPI_Datatype t, u, c;
	int bl[3] = { 1, 2, 1 };
	MPI_Aint d[3] = { 0, 4 * rank + 1, 4 * size };
	MPI_Datatype ty[3] = { MPI_LB, MPI_BYTE, MPI_UB };

	/* bytes 4r+1 and 4r+2 of each tile of 4 * size bytes */
	MPI_Type_struct(3, bl, d, ty, &t);
	view_write(0, t, 3);
	MPI_Type_free(&t);
	/* an int, its extent 4 * size by an upper bound alone; three of them */
	bl[0] = 1;
	d[0] = 0;
	ty[0] = MPI_INT;
	bl[1] = 1;
	d[1] = 4 * size;
	ty[1] = MPI_UB;
	MPI_Type_struct(2, bl, d, ty, &u);
	MPI_Type_contiguous(3, u, &c);
	view_write(1024 + 4 * (MPI_Offset)rank, c, 1);
	MPI_Type_free(&c);
	MPI_Type_free(&u);
}
#pragma GCC diagnostic pop
#endif

static void case_zero_blocks(void)
{
	MPI_Datatype a, b, ra;
	int ib[4] = { 2, 0, 3, 0 }, id[4] = { 0, 1, 4, 20 };
	MPI_Aint hd[3] = { 0, 100, 8 };
	int hb[3] = { 4, 0, 4 };

	/* indexed ints: 0-1 and 4-6 (block of 0 at 20 adds no bound) */
	MPI_Type_indexed(4, ib, id, MPI_INT, &a);
	MPI_Type_create_resized(a, 0, 28 * size, &ra);
	view_write(28 * (MPI_Offset)rank, ra, 2);
	MPI_Type_free(&ra);
	MPI_Type_free(&a);
	/* hindexed bytes: 0-3, then 8-11; the zero block at 100 adds nothing */
	MPI_Type_create_hindexed(3, hb, hd, MPI_BYTE, &b);
	MPI_Type_create_resized(b, 0, 12 * size, &ra);
	view_write(1024 + 12 * (MPI_Offset)rank, ra, 2);
	MPI_Type_free(&ra);
	MPI_Type_free(&b);
}

static void case_buffers(void)
{
	MPI_Datatype neg, abs_, ft;
	int bl[2] = { 3, 2 };
	MPI_Aint d[2], base;
	MPI_Datatype tt[2] = { MPI_INT, MPI_INT };
	int buf[16];

	memset(buf, rank + 1, sizeof(buf));
	/* ints 0-2 and 10-11 of buf, addressed from &buf[10]: -40 and 0 */
	d[0] = -40;
	d[1] = 0;
	MPI_Type_create_struct(2, bl, d, tt, &neg);
	MPI_Type_commit(&neg);
	/* the same ints at absolute addresses, used with MPI_BOTTOM */
	MPI_Get_address(&buf[0], &d[0]);
	MPI_Get_address(&buf[10], &d[1]);
	MPI_Type_create_struct(2, bl, d, tt, &abs_);
	MPI_Type_commit(&abs_);
	MPI_Get_address(buf, &base);
	/* file: 20-byte chunks of rank r at 20 * (k * size + r) */
	MPI_Type_vector(2, 5, 5 * size, MPI_INT, &ft);
	MPI_Type_commit(&ft);
	MPI_File_set_view(fh, 20 * (MPI_Offset)rank, MPI_INT, ft, "native", MPI_INFO_NULL);
	MPI_File_write_all(fh, &buf[10], 1, neg, MPI_STATUS_IGNORE);
	MPI_File_write_all(fh, MPI_BOTTOM, 1, abs_, MPI_STATUS_IGNORE);
	MPI_Type_free(&ft);
	MPI_Type_free(&abs_);
	MPI_Type_free(&neg);
}

static void case_struct_file(void)
{
	MPI_Datatype h, s, in;
	int hb[3] = { 3, 1, 2 }, sb[2] = { 1, 2 };
	MPI_Aint hd[3], sd[2];
	MPI_Datatype st[2];

	/* hindexed of shorts: bytes 0-5, 10-11, 20-23 of each rank's 24 */
	hd[0] = 0;
	hd[1] = 10;
	hd[2] = 20;
	MPI_Type_create_hindexed(3, hb, hd, MPI_SHORT, &h);
	view_write(24 * (MPI_Offset)rank, h, 1);
	MPI_Type_free(&h);
	/* struct of a contiguous 3 bytes at 1 and 2 ints at 8: 11 bytes
	 * of each rank's 16 */
	MPI_Type_contiguous(3, MPI_BYTE, &in);
	st[0] = in;
	st[1] = MPI_INT;
	sd[0] = 1;
	sd[1] = 8;
	MPI_Type_create_struct(2, sb, sd, st, &s);
	view_write(512 + 16 * (MPI_Offset)rank, s, 1);
	MPI_Type_free(&s);
	MPI_Type_free(&in);
}

static void case_reuse(void)
{
	MPI_Datatype a, m;
	int ib[2] = { 1, 2 }, id[2] = { 0, 2 };

	/* a vector: 8 bytes of each rank's 8 * size, twice; the view keeps
	 * the type after it is freed */
	MPI_Type_vector(2, 8, 8 * size, MPI_BYTE, &a);
	MPI_Type_commit(&a);
	MPI_File_set_view(fh, 8 * (MPI_Offset)rank, MPI_BYTE, a, "native", MPI_INFO_NULL);
	MPI_Type_free(&a);
	/* its id, reused by a memory type, written through the old view */
	MPI_Type_contiguous(8, MPI_BYTE, &m);
	MPI_Type_commit(&m);
	fill(16);
	MPI_File_write_all(fh, data, 2, m, MPI_STATUS_IGNORE);
	MPI_Type_free(&m);
	/* the same id again, an indexed type of ints 0 and 2-3 as a view */
	MPI_Type_indexed(2, ib, id, MPI_INT, &a);
	view_write(1024 + 16 * (MPI_Offset)rank, a, 1);
	MPI_Type_free(&a);
}

static void case_zero_count(void)
{
	MPI_Datatype v;
	MPI_Status st;

	MPI_Type_vector(4, 2, 2 * size, MPI_INT, &v);
	MPI_Type_commit(&v);
	fill(64);
	MPI_File_set_view(fh, 8 * (MPI_Offset)rank, MPI_INT, v, "native", MPI_INFO_NULL);
	MPI_File_write_all(fh, data, 0, MPI_INT, &st);
	MPI_File_write_at(fh, 5, data, 0, MPI_INT, &st);
	MPI_File_write_at_all(fh, 0, data, rank % 2 ? 0 : 3, MPI_INT, &st);
	MPI_File_write_all(fh, data, 0, v, &st);
	MPI_File_write_at(fh, 3, data, 2, MPI_INT, &st);
	MPI_File_read_at_all(fh, 0, data, 0, MPI_INT, &st);
	MPI_Type_free(&v);
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";
	char path[4096];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	/* zeros first, so that a hole left by the view reads 0 and not what a
	 * collective buffer held when it was written back */
	if (rank == 0) {
		FILE *z = fopen("f", "w");
		static char zero[8192];
		if (!z || fwrite(zero, 1, sizeof(zero), z) != sizeof(zero) || fclose(z))
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	/* by its full path: Open MPI 4.1's OMPIO fails to open a bare name */
	if (!getcwd(path, sizeof(path) - 2))
		MPI_Abort(MPI_COMM_WORLD, 1);
	strcat(path, "/f");
	if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh))
		MPI_Abort(MPI_COMM_WORLD, 1);
	if (!strncmp(c, "darray", 6))
		case_darray(c);
	else if (!strcmp(c, "subarray"))
		case_subarray();
	else if (!strcmp(c, "nested"))
		case_nested();
	else if (!strcmp(c, "resized"))
		case_resized();
#ifndef NO_LB_UB
	else if (!strcmp(c, "lb-ub"))
		case_lb_ub();
#endif
	else if (!strcmp(c, "zero-blocks"))
		case_zero_blocks();
	else if (!strcmp(c, "buffers"))
		case_buffers();
	else if (!strcmp(c, "struct-file"))
		case_struct_file();
	else if (!strcmp(c, "reuse"))
		case_reuse();
	else if (!strcmp(c, "zero-count"))
		case_zero_count();
	else if (rank == 0)
		fprintf(stderr, "views: unknown case %s\n", c);
	MPI_File_close(&fh);
	free(data);
	MPI_Finalize();
	return 0;
}
