! Self-checking Fortran coarray program (gfortran -fcoarray=lib, linked
! with Debian's OpenCoarrays library over MPICH: `caf.mpich`): a halo
! exchange on a ring of images, a put followed by sync images with the
! neighbours, co_sum, co_broadcast, co_max, sync all, a critical section
! incrementing a counter on image 1, a lock protecting a read-modify-write
! on image 1, and a strided get. Every check is
! counted; image 1 prints "coarray_halo: N checks passed" (N = 8 per
! image) or the failures. The same output natively (mpiexec) and through
! mpinetsim.
program coarray_halo
  use, intrinsic :: iso_fortran_env, only: lock_type
  implicit none
  integer, parameter :: n = 16
  real(8) :: field(0:n + 1)[*]
  integer :: counter[*], locked_sum[*], checks[*], fails[*]
  type(lock_type) :: guard[*]
  integer :: me, images, left, right, i, total, value, img
  real(8) :: big, odd(n / 2), slot(2)[*]

  me = this_image()
  images = num_images()
  left = merge(images, me - 1, me == 1)
  right = merge(1, me + 1, me == images)
  checks = 0
  fails = 0

  ! ---- halo exchange: each image's interior is its number, the halos
  ! come from the neighbours' edges.
  field(1:n) = [(1000 * me + i, i = 1, n)]
  field(0) = -1
  field(n + 1) = -1
  sync all
  field(0) = field(n)[left]
  field(n + 1) = field(1)[right]
  sync all
  call check(field(0) == 1000 * left + n .and. field(n + 1) == 1000 * right + 1, 'halo exchange')

  ! ---- a put into the right neighbour, then sync images with both
  ! neighbours only. (Real numbers: natively, Debian's MPICH over UCX
  ! loses this put of two default integers, which mpinetsim delivers.)
  slot(:)[right] = [-me, me]
  if (images > 2) then
     sync images([left, right])
  else if (images == 2) then
     sync images(right)
  end if
  call check(all(slot == [-left, left]), 'put and sync images')

  ! ---- collectives
  total = me
  call co_sum(total)
  call check(total == images * (images + 1) / 2, 'co_sum')
  value = 0
  if (me == images) value = 4242
  call co_broadcast(value, source_image=images)
  call check(value == 4242, 'co_broadcast')
  big = real(me, 8) * 1.5d0
  call co_max(big)
  call check(big == real(images, 8) * 1.5d0, 'co_max')

  ! ---- a critical section and a lock, both on image 1's counters.
  if (me == 1) then
     counter = 0
     locked_sum = 0
  end if
  sync all
  critical
     counter[1] = counter[1] + 1
  end critical
  lock (guard[1])
  locked_sum[1] = locked_sum[1] + me
  unlock (guard[1])
  sync all
  call check(counter[1] == images, 'critical section')
  call check(locked_sum[1] == images * (images + 1) / 2, 'lock')

  ! ---- a strided section of the neighbour's array (which it leaves alone).
  odd = field(1:n:2)[right]
  call check(all(odd == [(1000 * right + i, i = 1, n, 2)]), 'strided get')

  ! ---- totals on image 1.
  sync all
  if (me == 1) then
     total = 0
     value = 0
     do img = 1, images
        total = total + checks[img]
        value = value + fails[img]
     end do
     if (value == 0) then
        print '(a, i0, a)', 'coarray_halo: ', total, ' checks passed'
     else
        print '(a, i0, a, i0, a)', 'coarray_halo: ', value, ' of ', total, ' checks FAILED'
     end if
  end if
  sync all
  if (fails > 0) error stop 1

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    checks = checks + 1
    if (.not. ok) then
       fails = fails + 1
       write (0, '("image ", i0, ": check failed: ", a)') this_image(), what
    end if
  end subroutine check
end program coarray_halo
