! Self-checking test of the Fortran bindings of MPI-IO (see
! fortran_io.inc) with include 'mpif.h'. 1..8 ranks.
program fortran_io_mpif
  implicit none
  include 'mpif.h'
  character(len=*), parameter :: suite = 'fortran_io_mpif'
  include 'fortran_io.inc'
end program fortran_io_mpif
