! Self-checking test of the Fortran bindings of one-sided communication
! (see fortran_rma.inc) with include 'mpif.h'. 2..8 ranks.
program fortran_rma_mpif
  use, intrinsic :: iso_c_binding, only: c_f_pointer, c_null_ptr
  implicit none
  include 'mpif.h'
  character(len=*), parameter :: suite = 'fortran_rma_mpif'
  include 'fortran_rma.inc'
end program fortran_rma_mpif
