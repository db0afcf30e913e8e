! Self-checking test of MPI_COMM_SPAWN and MPI_COMM_SPAWN_MULTIPLE from
! Fortran (see fortran_spawn.inc) with use mpi.
program fortran_spawn_use_mpi
  use mpi
  implicit none
  character(len=*), parameter :: suite = 'fortran_spawn_use_mpi'
  include 'fortran_spawn.inc'
end program fortran_spawn_use_mpi
