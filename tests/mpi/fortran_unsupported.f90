! Calls a routine the Fortran library does not support (MPIX_Comm_revoke
! of the mpi_f08 module): the job must end with the same one line as for a
! C routine, not fail to load.
program fortran_unsupported
  use mpi_f08
  implicit none
  type(MPI_Comm) :: comm
  integer :: ierr
  call MPI_Init(ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, comm, ierr)
  call MPIX_Comm_revoke(comm, ierr)
  call MPI_Finalize(ierr)
end program fortran_unsupported
