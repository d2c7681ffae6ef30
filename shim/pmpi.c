/*
 * pmpi.c - the communication an MPI-IO call makes inside the MPI library.
 *
 * ROMIO synchronises its ranks inside the collective MPI-IO calls: an
 * MPI_File_preallocate writes on one rank and then holds every rank in an
 * MPI_Barrier, an MPI_File_set_size truncates on one rank and then
 * broadcasts, a collective write gathers every rank's offsets before any
 * rank writes.  It makes those calls through its library's PMPI_ entry
 * points, which the tracer never saw: the POSIX calls inside an MPI-IO
 * call were ordered only by the MPI-IO call as a whole, and an access
 * that ROMIO's own barrier orders came out as a race.
 *
 * Here the blocking communication calls and the communicator calls ROMIO
 * makes get a PMPI_ entry of the tracer.  Called inside an MPI-IO call of
 * the same thread, one is recorded as that call's kind would be at the
 * program's level, nested in the MPI-IO call (parent=), so hb-build(1)
 * can order what the MPI-IO call did by it; called anywhere else (the
 * program's own PMPI_ calls, a profiling layer, the tracer's own) it goes
 * straight to the library, untraced, as before.  Nonblocking calls are
 * left out: their completion may come in another call of the program's.
 *
 * The preloaded and the linked tracer only: a static program's library
 * calls its PMPI_ functions inside its own archive.
 */
#include "mpi-shim.h"

/* The innermost traced call of this thread is an MPI-IO call. */
static int in_mpiio(void)
{
	const struct tg_thread *t = tg_self;

	return t && t->depth && t->stack_layer[t->depth - 1] == TG_LAYER_MPIIO;
}

#ifdef TG_MPI_STUBS
#define TG_PMPI_WRAPPER(name, params) TG_HIDDEN int tg_w_##name params;
#else
#define TG_PMPI_WRAPPER(name, params)
#endif

/*
 * TG_PMPI(ENTRY, WRAPPER, NAME, params, args): ENTRY, the tracer's
 * PMPI_NAME, hands the call to WRAPPER, the tracer's MPI_NAME, inside an
 * MPI-IO call, and to the library's PMPI_NAME anywhere else.  (Written
 * with TG_MPINAME spelled out, so that the Makefile finds the entries
 * that need a stub.)
 */
#define TG_PMPI(entry, wrapper, name, params, args)                                   \
	TG_PMPI_WRAPPER(MPI_##name, params)                                           \
	TG_MPIFN int entry params                                                     \
	{                                                                             \
		static int(*real) params;                                             \
		if (tg_unlikely(!real) && !(real = (int(*) params)tg_real("PMPI_" #name, NULL))) \
			return MPI_ERR_INTERN;                                        \
		if (!in_mpiio())                                                      \
			return real args;                                             \
		return wrapper args;                                                  \
	}

TG_PMPI(TG_MPINAME(PMPI_Send), TG_MPINAME(MPI_Send), Send,
	(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm),
	(buf, count, datatype, dest, tag, comm))
TG_PMPI(TG_MPINAME(PMPI_Recv), TG_MPINAME(MPI_Recv), Recv,
	(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
	 MPI_Status *status),
	(buf, count, datatype, source, tag, comm, status))
TG_PMPI(TG_MPINAME(PMPI_Barrier), TG_MPINAME(MPI_Barrier), Barrier, (MPI_Comm comm), (comm))
TG_PMPI(TG_MPINAME(PMPI_Bcast), TG_MPINAME(MPI_Bcast), Bcast,
	(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm),
	(buffer, count, datatype, root, comm))
TG_PMPI(TG_MPINAME(PMPI_Allreduce), TG_MPINAME(MPI_Allreduce), Allreduce,
	(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
	 MPI_Comm comm),
	(sendbuf, recvbuf, count, datatype, op, comm))
TG_PMPI(TG_MPINAME(PMPI_Allgather), TG_MPINAME(MPI_Allgather), Allgather,
	(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
	 MPI_Datatype recvtype, MPI_Comm comm),
	(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))
TG_PMPI(TG_MPINAME(PMPI_Alltoall), TG_MPINAME(MPI_Alltoall), Alltoall,
	(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
	 MPI_Datatype recvtype, MPI_Comm comm),
	(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))
TG_PMPI(TG_MPINAME(PMPI_Alltoallw), TG_MPINAME(MPI_Alltoallw), Alltoallw,
	(const void *sendbuf, const int sendcounts[], const int sdispls[],
	 const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
	 const MPI_Datatype recvtypes[], MPI_Comm comm),
	(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm))
TG_PMPI(TG_MPINAME(PMPI_Gather), TG_MPINAME(MPI_Gather), Gather,
	(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
	 MPI_Datatype recvtype, int root, MPI_Comm comm),
	(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm))
TG_PMPI(TG_MPINAME(PMPI_Gatherv), TG_MPINAME(MPI_Gatherv), Gatherv,
	(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
	 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm),
	(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm))
TG_PMPI(TG_MPINAME(PMPI_Comm_dup), TG_MPINAME(MPI_Comm_dup), Comm_dup,
	(MPI_Comm comm, MPI_Comm *newcomm), (comm, newcomm))
TG_PMPI(TG_MPINAME(PMPI_Comm_split), TG_MPINAME(MPI_Comm_split), Comm_split,
	(MPI_Comm comm, int color, int key, MPI_Comm *newcomm), (comm, color, key, newcomm))
TG_PMPI(TG_MPINAME(PMPI_Comm_create), TG_MPINAME(MPI_Comm_create), Comm_create,
	(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm), (comm, group, newcomm))
TG_PMPI(TG_MPINAME(PMPI_Comm_free), TG_MPINAME(MPI_Comm_free), Comm_free, (MPI_Comm *comm),
	(comm))
