! Self-checking test of the Fortran bindings of MPI 4.0's partitioned
! communication (see fortran_part.inc) with include 'mpif.h'. 2..8 ranks.
program fortran_part_mpif
  implicit none
  include 'mpif.h'
  character(len=*), parameter :: suite = 'fortran_part_mpif'
  include 'fortran_part.inc'
end program fortran_part_mpif
