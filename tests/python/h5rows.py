# h5rows - h5py with MPI (Debian's python3-h5py-mpi, whose HDF5 is Open
# MPI's, loaded by h5py's extension modules out of the global scope):
# each rank writes its row of a dataset collectively and of another
# independently, the file is closed, then each rank reopens it and reads
# its neighbour's rows.  Prints one line per rank.
#   mpirun -n N python3 h5rows.py FILE
import sys

import numpy as np
from mpi4py import MPI
import h5py

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
N = 8
with h5py.File(sys.argv[1], "w", driver="mpio", comm=comm) as f:
    coll = f.create_dataset("coll", (size, N), dtype="i4")
    indep = f.create_dataset("indep", (size, N), dtype="i4")
    with coll.collective:
        coll[rank, :] = np.arange(N, dtype="i4") + 100 * rank
    indep[rank, :] = np.arange(N, dtype="i4") + 1000 * rank
comm.Barrier()
nb = (rank + 1) % size
with h5py.File(sys.argv[1], "r", driver="mpio", comm=comm) as f:
    a = list(f["coll"][nb, :])
    b = list(f["indep"][nb, :])
ok = a == [100 * nb + i for i in range(N)] and b == [1000 * nb + i for i in range(N)]
sys.stdout.write("%d: %s\n" % (rank, "ok" if ok else "wrong"))
sys.stdout.flush()
