! Calls a routine the Fortran library does not support (MPI_FILE_OPEN): the
! job must end with the same one line as a C program, not fail to load.
program fortran_unsupported
  implicit none
  include 'mpif.h'
  integer :: ierr, fh
  call MPI_INIT(ierr)
  call MPI_FILE_OPEN(MPI_COMM_WORLD, 'data', MPI_MODE_RDONLY, MPI_INFO_NULL, fh, ierr)
  call MPI_FINALIZE(ierr)
end program fortran_unsupported
