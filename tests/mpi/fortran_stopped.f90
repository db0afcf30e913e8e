! Rank 0 prints a line, tells rank 1, and computes (outside MPI) until
! the job is stopped; rank 1 stops with an error (status 3) once it heard
! from rank 0. The job then kills rank 0 with a signal, so whatever sits in
! gfortran's output buffer is lost: the line must reach the output all the
! same (mpinetsim runs the ranks with GFORTRAN_UNBUFFERED_PRECONNECTED=y).
program fortran_stopped
  use mpi
  implicit none
  integer :: rank, ierr, token
  integer :: status(MPI_STATUS_SIZE)
  real(8), volatile :: x
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  token = 1
  if (rank == 0) then
    print '(a)', 'fortran_stopped: rank 0 printed this before the job was stopped'
    call MPI_Send(token, 1, MPI_INTEGER, 1, 0, MPI_COMM_WORLD, ierr)
    x = 0d0
    do
      x = x + 1d0
      if (x < 0d0) exit
    end do
  else if (rank == 1) then
    call MPI_Recv(token, 1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, status, ierr)
    error stop 3
  end if
  call MPI_Finalize(ierr)
end program fortran_stopped
