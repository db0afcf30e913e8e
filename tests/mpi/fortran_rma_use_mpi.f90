! Self-checking test of the Fortran bindings of one-sided communication
! (see fortran_rma.inc) with the mpi module. 2..8 ranks.
program fortran_rma_use_mpi
  use mpi
  use, intrinsic :: iso_c_binding, only: c_f_pointer, c_null_ptr
  implicit none
  character(len=*), parameter :: suite = 'fortran_rma_use_mpi'
  include 'fortran_rma.inc'
end program fortran_rma_use_mpi
