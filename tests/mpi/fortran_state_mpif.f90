! Self-checking test of the Fortran bindings of MPI's object state (see
! fortran_state.inc) with include 'mpif.h'. Needs at least 2 ranks.
program fortran_state_mpif
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
  include 'mpif.h'
  character(len=*), parameter :: suite = 'fortran_state_mpif'
  include 'fortran_state.inc'
end program fortran_state_mpif

! mpif.h has no MPI_SIZEOF.
subroutine extra_checks(rank, checks, fails)
  implicit none
  integer :: rank, checks, fails
end subroutine extra_checks

include 'fortran_state_callbacks.inc'
