# mpiio - mpi4py's MPI-IO (Debian's python3-mpi4py, Open MPI's library,
# loaded by mpi4py's extension module out of the global scope): each rank
# writes its 16-byte block with Write_at_all, then Sync, Barrier, Sync,
# and reads its neighbour's block; then each writes a block with
# Write_ordered.  Prints one line per rank.
#   mpirun -n N python3 mpiio.py FILE
import sys

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
fh = MPI.File.Open(comm, sys.argv[1], MPI.MODE_CREATE | MPI.MODE_RDWR)
fh.Write_at_all(16 * rank, bytes([65 + rank]) * 16)
fh.Sync()
comm.Barrier()
fh.Sync()
nb = (rank + 1) % size
buf = bytearray(16)
fh.Read_at(16 * nb, buf)
fh.Seek_shared(16 * size)
fh.Write_ordered(bytes([97 + rank]) * 8)
fh.Close()
sys.stdout.write("%d: %s\n" % (rank, "ok" if bytes(buf) == bytes([65 + nb]) * 16 else "wrong"))
sys.stdout.flush()
