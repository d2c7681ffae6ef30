! f08io - the Fortran 2008 bindings (use mpi_f08), whose MPICH entries
! call the C library's PMPI_ functions: each rank writes its 4 integers
! at rank * 16 of f08.dat, then MPI_File_sync, MPI_Barrier, MPI_File_sync
! (the MPI-IO standard's sync-barrier-sync) and reads the next rank's.
! Then an MPI_Alltoallw, whose binding asks the library for the size of
! the communicator before it calls it (a call the program did not make).
program f08io
  use mpi_f08
  implicit none
  type(MPI_File) :: fh
  type(MPI_Status) :: st
  type(MPI_Datatype), allocatable :: types(:)
  integer :: rank, nprocs, i, buf(4), rbuf(4)
  integer, allocatable :: sc(:), sd(:), rc(:), rd(:), sb(:), rb(:)
  integer(kind=MPI_OFFSET_KIND) :: off

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  buf = rank
  call MPI_File_open(MPI_COMM_WORLD, "f08.dat", MPI_MODE_CREATE + MPI_MODE_RDWR, &
                     MPI_INFO_NULL, fh)
  off = rank * 16
  call MPI_File_write_at(fh, off, buf, 4, MPI_INTEGER, st)
  call MPI_File_sync(fh)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_File_sync(fh)
  off = mod(rank + 1, nprocs) * 16
  call MPI_File_read_at(fh, off, rbuf, 4, MPI_INTEGER, st)
  call MPI_File_close(fh)

  allocate(types(nprocs), sc(nprocs), sd(nprocs), rc(nprocs), rd(nprocs), sb(nprocs), rb(nprocs))
  types = MPI_INTEGER
  sc = 1
  rc = 1
  sd = [(4 * i, i = 0, nprocs - 1)]
  rd = sd
  sb = 10 * rank + [(i, i = 0, nprocs - 1)]
  call MPI_Alltoallw(sb, sc, sd, types, rb, rc, rd, types, MPI_COMM_WORLD)
  print '(I0,": ",I0," ",I0)', rank, rbuf(1), rb(1)
  call MPI_Finalize()
end program f08io
