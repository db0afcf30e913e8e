! `use mpi_f08` through mpinetsim: the routines without a choice buffer
! (environment, communicators and groups, derived datatypes, requests and
! statuses), handle comparison with == and /=, ierror present or absent.
! Prints one line per failed check and, on rank 0, the number of checks.
program f08_basic
  use mpi_f08
  implicit none
  integer :: rank, nprocs, checks, failures, ierr, n, result, tsize
  integer(kind=MPI_ADDRESS_KIND) :: lb, extent
  type(MPI_Comm) :: dup, half
  type(MPI_Group) :: world_group, half_group
  type(MPI_Datatype) :: vec
  type(MPI_Request) :: req
  type(MPI_Status) :: status
  logical :: flag

  checks = 0
  failures = 0
  call MPI_Init(ierr)
  call check(ierr == MPI_SUCCESS, 'init ierror')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call check(ierr == MPI_SUCCESS .and. nprocs >= 2, 'size')

  call MPI_Initialized(flag)
  call check(flag, 'initialized')

  ! handles: dup, compare, free
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call check(dup /= MPI_COMM_WORLD, 'dup is a new handle')
  call check(.not. (dup == MPI_COMM_WORLD), 'dup == world is false')
  call MPI_Comm_compare(dup, MPI_COMM_WORLD, result)
  call check(result == MPI_CONGRUENT, 'dup congruent')
  call MPI_Barrier(dup)
  call MPI_Comm_free(dup)
  call check(dup == MPI_COMM_NULL, 'freed comm is MPI_COMM_NULL')

  ! split in halves, groups
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half)
  call MPI_Comm_size(half, n)
  call check(n == (nprocs + 1 - mod(rank, 2)) / 2, 'split size')
  call MPI_Comm_group(MPI_COMM_WORLD, world_group)
  call MPI_Comm_group(half, half_group)
  call MPI_Group_compare(world_group, half_group, result)
  call check(result == MPI_UNEQUAL, 'groups unequal')
  call MPI_Group_size(half_group, n)
  call check(n == (nprocs + 1 - mod(rank, 2)) / 2, 'group size')
  call MPI_Group_free(half_group)
  call MPI_Group_free(world_group)
  call check(world_group == MPI_GROUP_NULL, 'freed group')
  call MPI_Comm_free(half)

  ! a derived datatype
  call MPI_Type_vector(3, 2, 5, MPI_INTEGER, vec)
  call MPI_Type_commit(vec)
  call MPI_Type_size(vec, tsize)
  call check(tsize == 24, 'vector size')
  call MPI_Type_get_extent(vec, lb, extent)
  call check(lb == 0 .and. extent == 48, 'vector extent')
  call check(vec /= MPI_INTEGER, 'vector is not MPI_INTEGER')
  call MPI_Type_free(vec)
  call check(vec == MPI_DATATYPE_NULL, 'freed type')

  ! a null request completes at once with an empty status
  req = MPI_REQUEST_NULL
  call MPI_Wait(req, status)
  call check(status%MPI_SOURCE == MPI_ANY_SOURCE, 'empty status source')
  call check(status%MPI_TAG == MPI_ANY_TAG, 'empty status tag')
  call MPI_Test(req, flag, MPI_STATUS_IGNORE)
  call check(flag, 'test of a null request')

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a,i0,a)', 'f08_basic: ', checks, ' checks passed'
  call MPI_Finalize()

contains

  include 'check_f08.inc'
end program f08_basic
