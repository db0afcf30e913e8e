! Self-checking test of the Fortran bindings of MPI 4.0's partitioned
! communication (see fortran_part.inc) with use mpi. 2..8 ranks.
program fortran_part_use_mpi
  use mpi
  implicit none

  character(len=*), parameter :: suite = 'fortran_part_use_mpi'
  include 'fortran_part.inc'
end program fortran_part_use_mpi
