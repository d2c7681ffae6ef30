! direct - a Fortran direct-access file every rank writes its record of
! (libgfortran opens it with fstat, while the other ranks write), closes;
! after a barrier each opens it again and reads its neighbour's record.
!   direct FILE
program direct
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, i, nb
  integer :: buf(16), got(16)
  character(len=4096) :: path
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(1, path)
  buf = [(rank * 100 + i, i = 1, 16)]
  open(10, file=trim(path), access='direct', recl=64, form='unformatted', status='unknown')
  write(10, rec=rank + 1) buf
  close(10)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  nb = mod(rank + 1, nprocs)
  open(10, file=trim(path), access='direct', recl=64, form='unformatted', status='old')
  read(10, rec=nb + 1) got
  close(10)
  if (got(1) == nb * 100 + 1 .and. got(16) == nb * 100 + 16) then
    print '(i0,a)', rank, ': ok'
  else
    print '(i0,a)', rank, ': wrong'
  end if
  call MPI_Finalize(ierr)
end program direct
