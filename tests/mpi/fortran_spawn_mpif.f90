! Self-checking test of MPI_COMM_SPAWN and MPI_COMM_SPAWN_MULTIPLE from
! Fortran (see fortran_spawn.inc) with include 'mpif.h'.
program fortran_spawn_mpif
  implicit none
  include 'mpif.h'
  character(len=*), parameter :: suite = 'fortran_spawn_mpif'
  include 'fortran_spawn.inc'
end program fortran_spawn_mpif
