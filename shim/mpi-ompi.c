/*
 * mpi-ompi.c - the MPI wrappers once more, compiled against Open MPI's
 * mpi.h, for programs of Open MPI (Debian's default MPI).
 *
 * The wrappers (mpi.c, mpi-wrappers.gen.c) are written against mpi.h's
 * names, not its numbers, so the same text serves both libraries; what
 * differs is kept in mpi-shim.h and mpi.c under TG_OMPI: handles are
 * pointers, predefined ones globals of libmpi looked up at run time, and
 * what a record holds of a constant (a predefined handle, MPI_ANY_SOURCE,
 * a combiner) is MPICH's number for it, so that every tool reads a trace
 * of either library alike.  Each wrapper is tg_wo_NAME; the stubs
 * (stubs.S) send a call there once mpi.c's tg_mpi_resolve found Open MPI.
 * A call Open MPI's mpi.h does not declare is left out
 * (build/shim/ompi-absent.h, made by the Makefile: TG_NO_NAME).  Its
 * PMPI_ entries (pmpi.c) are those its Fortran bindings call, and HDF5's
 * wrappers of H5Pset_fapl_mpio and the like (h5-mpi-wrappers.gen.c) those
 * of an HDF5 built with Open MPI.
 *
 * The hidden functions both copies define are renamed here, so that the
 * two live in one library.
 */
#define TG_OMPI 1
/* the MPI-1 calls MPI-3 removed: declared by the wrappers themselves */
#define OMPI_OMIT_MPI1_COMPAT_DECLS 1

#define tg_cartdim tg_o_cartdim
#define tg_comm_arrlen tg_o_comm_arrlen
#define tg_comm_defer tg_o_comm_defer
#define tg_h_enc tg_o_h_enc
#define tg_h_enc_tok tg_o_h_enc_tok
#define tg_h_free tg_o_h_free
#define tg_h_new tg_o_h_new
#define tg_info_def tg_o_info_def
#define tg_io_position tg_o_io_position
#define tg_io_shared tg_o_io_shared
#define tg_is_root tg_o_is_root
#define tg_nbr_in tg_o_nbr_in
#define tg_nbr_out tg_o_nbr_out
#define tg_put_iostatus tg_o_put_iostatus
#define tg_put_status tg_o_put_status
#define tg_put_statuses tg_o_put_statuses
#define tg_reqs_post tg_o_reqs_post
#define tg_reqs_pre tg_o_reqs_pre
#define tg_session_world tg_o_session_world
#define tg_reqs_put tg_o_reqs_put
#define tg_statuses_post tg_o_statuses_post
#define tg_statuses_pre tg_o_statuses_pre
#define tg_statuses_ret tg_o_statuses_ret
#define tg_pmpi_traced tg_o_pmpi_traced

#include "ompi-absent.h"

#include "mpi.c"
#include "mpi-wrappers.gen.c"
#include "pmpi.c"
/* HDF5's calls that take MPI handles, for an HDF5 of Open MPI: HDF5's
 * headers (MPICH's build, the same version) include mpi.h, Open MPI's here */
#include "h5-shim.h"
#include "h5-mpi-wrappers.gen.c"
