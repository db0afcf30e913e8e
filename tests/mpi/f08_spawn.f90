! `use mpi_f08` with dynamic processes: the ranks spawn two copies of the
! program (MPI_Comm_spawn, TYPE(MPI_Comm) and TYPE(MPI_Info) handles, a
! CHARACTER argument vector ended by a blank element, the error codes),
! then one per command with MPI_Comm_spawn_multiple
! (MPI_ARGVS_NULL, MPI_ERRCODES_IGNORE). Children check their world,
! MPI_Comm_get_parent and their arguments; an allreduce crosses each
! intercommunicator; the children send their counts to the parents'
! rank 0. 4 checks per parent, 2 per child of either spawn: 4 n + 8 on
! n ranks.
program f08_spawn
  use mpi_f08
  implicit none
  integer :: rank, nprocs, checks, failures, rsize, total, errcodes(2), mine(2), got(2), root
  type(MPI_Comm) :: parent, inter
  type(MPI_Info) :: infos(2)
  character(len=512) :: commands(2)
  character(len=32) :: args(2), arg
  integer :: procs(2)

  checks = 0
  failures = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  call MPI_Comm_get_parent(parent)
  if (parent /= MPI_COMM_NULL) then
     call MPI_Comm_remote_size(parent, rsize)
     call get_command_argument(1, arg)
     if (arg == 'child') then
        call check(nprocs == 2 .and. command_argument_count() == 1, 'two children with one argument')
     else
        call check(nprocs == 2 .and. command_argument_count() == 0, 'one child per command, no argument')
     end if
     call MPI_Allreduce(1, total, 1, MPI_INTEGER, MPI_SUM, parent)
     call check(total == rsize, 'the parents counted')
     mine = [checks, failures]
     call MPI_Reduce(mine, got, 2, MPI_INTEGER, MPI_SUM, 0, parent)
     call MPI_Comm_disconnect(parent)
     call MPI_Finalize()
     stop
  end if

  call get_command_argument(0, commands(1))
  commands(2) = commands(1)
  args(1) = 'child'
  args(2) = ' '
  errcodes = -1
  call MPI_Comm_spawn(commands(1), args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, errcodes)
  call MPI_Comm_remote_size(inter, rsize)
  call check(rsize == 2 .and. all(errcodes == MPI_SUCCESS), 'MPI_Comm_spawn: two children')
  call MPI_Allreduce(1, total, 1, MPI_INTEGER, MPI_SUM, inter)
  call check(total == 2, 'the children counted')
  call collect()

  procs = 1
  infos = MPI_INFO_NULL
  call MPI_Comm_spawn_multiple(2, commands, MPI_ARGVS_NULL, procs, infos, 0, MPI_COMM_WORLD, &
       inter, MPI_ERRCODES_IGNORE)
  call MPI_Comm_remote_size(inter, rsize)
  call check(rsize == 2, 'MPI_Comm_spawn_multiple: two children')
  call MPI_Allreduce(1, total, 1, MPI_INTEGER, MPI_SUM, inter)
  call check(total == 2, 'the children of both commands counted')
  call collect()

  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Allreduce(checks, rsize, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. total == 0) print '(a,i0,a)', 'f08_spawn: ', rsize, ' checks passed'
  call MPI_Finalize()

contains

  ! The children's counts, added to rank 0's; then the intercommunicator
  ! is disconnected.
  subroutine collect()
    mine = 0
    got = 0
    root = MPI_PROC_NULL
    if (rank == 0) root = MPI_ROOT
    call MPI_Reduce(mine, got, 2, MPI_INTEGER, MPI_SUM, root, inter)
    checks = checks + got(1)
    failures = failures + got(2)
    call MPI_Comm_disconnect(inter)
  end subroutine collect

  include 'check_f08.inc'
end program f08_spawn
