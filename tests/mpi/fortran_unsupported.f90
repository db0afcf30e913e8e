! Calls a routine the Fortran library does not support (MPI_COMM_SPAWN):
! the job must end with the same one line as a C program, not fail to load.
program fortran_unsupported
  implicit none
  include 'mpif.h'
  integer :: ierr, intercomm
  call MPI_INIT(ierr)
  call MPI_COMM_SPAWN('worker', MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &
       intercomm, MPI_ERRCODES_IGNORE, ierr)
  call MPI_FINALIZE(ierr)
end program fortran_unsupported
