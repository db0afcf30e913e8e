! Calls a routine the Fortran library does not support (MPI_WIN_FENCE): the
! job must end with the same one line as a C program, not fail to load.
program fortran_unsupported
  implicit none
  include 'mpif.h'
  integer :: ierr, win
  call MPI_INIT(ierr)
  win = 0
  call MPI_WIN_FENCE(0, win, ierr)
  call MPI_FINALIZE(ierr)
end program fortran_unsupported
