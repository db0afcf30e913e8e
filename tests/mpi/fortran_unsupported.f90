! Calls a routine the Fortran library does not support (MPI_COMM_JOIN): the
! job must end with the same one line as a C program, not fail to load.
program fortran_unsupported
  implicit none
  include 'mpif.h'
  integer :: ierr, intercomm
  call MPI_INIT(ierr)
  call MPI_COMM_JOIN(0, intercomm, ierr)
  call MPI_FINALIZE(ierr)
end program fortran_unsupported
