! Rank 0 prints a line, tells rank 1, and waits for an answer that never
! comes; rank 1 stops with an error (status 3) once it heard from rank 0,
! so the job is stopped while rank 0's line may still sit in gfortran's
! buffer. The line must reach the output all the same.
program fortran_stopped
  use mpi
  implicit none
  integer :: rank, ierr, token
  integer :: status(MPI_STATUS_SIZE)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  token = 1
  if (rank == 0) then
    print '(a)', 'fortran_stopped: rank 0 printed this before the job was stopped'
    call MPI_Send(token, 1, MPI_INTEGER, 1, 0, MPI_COMM_WORLD, ierr)
    call MPI_Recv(token, 1, MPI_INTEGER, 1, 1, MPI_COMM_WORLD, status, ierr)
  else if (rank == 1) then
    call MPI_Recv(token, 1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, status, ierr)
    error stop 3
  end if
  call MPI_Finalize(ierr)
end program fortran_stopped
