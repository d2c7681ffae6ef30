! ftn - the Fortran bindings: rank 0 sends 7 to rank 1 (MPI_SEND /
! MPI_RECV, tag 3), then every rank adds its rank with MPI_ALLREDUCE.
program ftn
  use mpi
  implicit none
  integer :: ierr, rank, v, s
  integer :: st(MPI_STATUS_SIZE)

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  v = 0
  if (rank == 0) then
     v = 7
     call MPI_SEND(v, 1, MPI_INTEGER, 1, 3, MPI_COMM_WORLD, ierr)
  else if (rank == 1) then
     call MPI_RECV(v, 1, MPI_INTEGER, 0, 3, MPI_COMM_WORLD, st, ierr)
  end if
  call MPI_ALLREDUCE(rank, s, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  print '(I0,": ",I0," ",I0)', rank, v, s
  call MPI_FINALIZE(ierr)
end program ftn
