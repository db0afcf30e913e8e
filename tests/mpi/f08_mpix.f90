! `use mpi_f08` with MPICH's extensions and MPI_Delete_error_*: no
! native reference (Debian's MPICH asserts in MPIX_Comm_agree and its
! mpi_f08 names C functions its library lacks), so every check follows
! from the definitions, where no process fails. MPIX_Comm_agree is a
! logical AND over the ranks; MPIX_Comm_shrink gives a congruent working
! communicator; failure_ack succeeds and get_acked is empty; the GPU
! queries say no; an error class added, given a string and a code, loses
! them again with MPI_Delete_error_*; a communicator the last rank
! revokes fails a barrier on every rank with MPIX_ERR_REVOKED (103, which
! MPICH's Fortran headers do not name). Same checks on every rank; rank 0
! prints the total.
program f08_mpix
  use mpi_f08
  implicit none
  integer :: rank, nprocs, checks, failures, ierr, res, gsize, total, cls, code, len
  type(MPI_Comm) :: shrunk, revoked
  type(MPI_Group) :: failed
  logical :: supported
  ! MPICH's interface declares the agreed flag INTENT(OUT), so without
  ! VOLATILE the compiler may drop the value stored before the call.
  logical, volatile :: flag
  character(len=MPI_MAX_ERROR_STRING) :: text

  checks = 0
  failures = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)

  flag = .true.
  call MPIX_Comm_agree(MPI_COMM_WORLD, flag, ierr)
  call check(ierr == MPI_SUCCESS .and. flag, 'agree on true')
  flag = rank /= nprocs - 1
  call MPIX_Comm_agree(MPI_COMM_WORLD, flag)
  call check(.not. flag, 'agree with the last rank false')

  call MPIX_Comm_shrink(MPI_COMM_WORLD, shrunk, ierr)
  call MPI_Comm_compare(MPI_COMM_WORLD, shrunk, res)
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, shrunk)
  call check(ierr == MPI_SUCCESS .and. res == MPI_CONGRUENT .and. &
       total == nprocs * (nprocs - 1) / 2, 'shrink')
  call MPI_Comm_free(shrunk)

  call MPIX_Comm_failure_ack(MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS, 'failure_ack')
  call MPIX_Comm_failure_get_acked(MPI_COMM_WORLD, failed, ierr)
  call MPI_Group_size(failed, gsize)
  call check(ierr == MPI_SUCCESS .and. gsize == 0, 'no failed process')

  supported = .true.
  call MPIX_GPU_query_support(0, supported, ierr)
  call check(ierr == MPI_SUCCESS .and. .not. supported, 'no CUDA buffers')
  call MPIX_Query_cuda_support(ierr)
  call check(ierr == MPI_SUCCESS, 'query CUDA')

  call MPI_Add_error_class(cls)
  call MPI_Add_error_code(cls, code)
  call MPI_Add_error_string(code, 'a code of our own')
  call MPI_Error_string(code, text, len)
  call check(text(1:len) == 'a code of our own', 'added string')
  call MPI_Delete_error_string_f08(code, ierr)
  call check(ierr == MPI_SUCCESS, 'delete string')
  call MPI_Delete_error_code_f08(code, ierr)
  call check(ierr == MPI_SUCCESS, 'delete code')
  call MPI_Delete_error_class_f08(cls, ierr)
  call check(ierr == MPI_SUCCESS, 'delete class')
  call MPI_Delete_error_class_f08(cls, ierr)
  call check(ierr /= MPI_SUCCESS, 'a deleted class is gone')

  call MPI_Comm_dup(MPI_COMM_WORLD, revoked)
  call MPI_Comm_set_errhandler(revoked, MPI_ERRORS_RETURN)
  if (rank == nprocs - 1) call MPIX_Comm_revoke(revoked, ierr)
  call MPI_Barrier(revoked, ierr)
  call MPI_Error_class(ierr, cls)
  call check(cls == 103, 'a barrier on a revoked communicator')
  call MPI_Comm_free(revoked)

  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Allreduce(checks, res, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. total == 0) print '(a,i0,a)', 'f08_mpix: ', res, ' checks passed'
  call MPI_Finalize()

contains

  include 'check_f08.inc'
end program f08_mpix
