! neighbour - parallel HDF5 from Fortran: each rank writes its 100
! integers of a 1-D dataset as a hyperslab, collectively; the file is
! closed and opened again, and each rank reads its right neighbour's
! hyperslab and checks it.  Prints one line: the ranks and "ok" or "bad".
program neighbour
  use hdf5
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, error, i, peer, bad, allbad
  integer(hid_t) :: plist, file, dset, fspace, mspace, xfer
  integer(hsize_t) :: dims(1), cnt(1), off(1)
  integer :: buf(100), back(100)
  character(len=256) :: name

  call mpi_init(ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call mpi_comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(1, name)
  call h5open_f(error)
  cnt(1) = 100
  dims(1) = cnt(1) * nprocs
  do i = 1, 100
    buf(i) = rank * 1000 + i
  end do
  call h5pcreate_f(H5P_FILE_ACCESS_F, plist, error)
  call h5pset_fapl_mpio_f(plist, MPI_COMM_WORLD, MPI_INFO_NULL, error)
  call h5fcreate_f(trim(name), H5F_ACC_TRUNC_F, file, error, access_prp=plist)
  call h5pclose_f(plist, error)
  call h5screate_simple_f(1, dims, fspace, error)
  call h5dcreate_f(file, "d", H5T_NATIVE_INTEGER, fspace, dset, error)
  off(1) = cnt(1) * rank
  call h5sselect_hyperslab_f(fspace, H5S_SELECT_SET_F, off, cnt, error)
  call h5screate_simple_f(1, cnt, mspace, error)
  call h5pcreate_f(H5P_DATASET_XFER_F, xfer, error)
  call h5pset_dxpl_mpio_f(xfer, H5FD_MPIO_COLLECTIVE_F, error)
  call h5dwrite_f(dset, H5T_NATIVE_INTEGER, buf, cnt, error, mspace, fspace, xfer)
  call h5dclose_f(dset, error)
  call h5sclose_f(fspace, error)
  call h5fclose_f(file, error)
  call h5pcreate_f(H5P_FILE_ACCESS_F, plist, error)
  call h5pset_fapl_mpio_f(plist, MPI_COMM_WORLD, MPI_INFO_NULL, error)
  call h5fopen_f(trim(name), H5F_ACC_RDONLY_F, file, error, access_prp=plist)
  call h5pclose_f(plist, error)
  call h5dopen_f(file, "d", dset, error)
  call h5dget_space_f(dset, fspace, error)
  peer = mod(rank + 1, nprocs)
  off(1) = cnt(1) * peer
  call h5sselect_hyperslab_f(fspace, H5S_SELECT_SET_F, off, cnt, error)
  call h5dread_f(dset, H5T_NATIVE_INTEGER, back, cnt, error, mspace, fspace, xfer)
  bad = 0
  do i = 1, 100
    if (back(i) /= peer * 1000 + i) bad = 1
  end do
  call mpi_allreduce(bad, allbad, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  call h5dclose_f(dset, error)
  call h5sclose_f(fspace, error)
  call h5sclose_f(mspace, error)
  call h5pclose_f(xfer, error)
  call h5fclose_f(file, error)
  call h5close_f(error)
  if (rank == 0) then
    if (allbad == 0) then
      print '(i0, a)', nprocs, ' ranks ok'
    else
      print '(i0, a)', nprocs, ' ranks bad'
    end if
  end if
  call mpi_finalize(ierr)
end program
