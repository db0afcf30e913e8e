! Self-checking test of MPI_REGISTER_DATAREP from Fortran (see
! fortran_datarep.inc) with include 'mpif.h'. 1..8 ranks.
program fortran_datarep_mpif
  implicit none
  include 'mpif.h'
  character(len=*), parameter :: suite = 'fortran_datarep_mpif'
  include 'fortran_datarep.inc'
end program fortran_datarep_mpif

include 'fortran_datarep_callbacks.inc'
