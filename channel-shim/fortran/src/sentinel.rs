//! The sentinels Fortran passes by address. Debian's `mpif.h` (and the `mpi`
//! module, which declares the same blocks) puts them in COMMON blocks that
//! the program itself defines and exports (`nm` shows `B mpipriv1_`):
//!
//! | block | byte offset: variable |
//! |---|---|
//! | `mpipriv1_` | 0: `MPI_BOTTOM`, 4: `MPI_IN_PLACE`, 8: `MPI_STATUS_IGNORE(5)` |
//! | `mpipriv2_` | 0: `MPI_STATUSES_IGNORE(5,1)`, 20: `MPI_ERRCODES_IGNORE(1)` |
//! | `mpiprivc_` | 0: `MPI_ARGVS_NULL(1,1)`, 1: `MPI_ARGV_NULL(1)` (`CHARACTER*1`) |
//! | `mpifcmb5_` | 0: `MPI_UNWEIGHTED` |
//! | `mpifcmb9_` | 0: `MPI_WEIGHTS_EMPTY` |
//!
//! The blocks' addresses are looked up once, at `MPI_INIT` or the first
//! translation (`dlsym(RTLD_DEFAULT, ...)` finds the program's copies
//! first); an argument at one of those addresses becomes the C sentinel. A
//! program without the blocks (a C main calling Fortran code, say) gets no
//! translation.

use std::os::raw::{c_int, c_void};
use std::sync::OnceLock;

/// A sentinel of the Fortran bindings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sentinel {
    /// `MPI_BOTTOM`.
    Bottom,
    /// `MPI_IN_PLACE`.
    InPlace,
    /// `MPI_STATUS_IGNORE`.
    StatusIgnore,
    /// `MPI_STATUSES_IGNORE`.
    StatusesIgnore,
    /// `MPI_ERRCODES_IGNORE`.
    ErrcodesIgnore,
    /// `MPI_ARGVS_NULL`.
    ArgvsNull,
    /// `MPI_ARGV_NULL`.
    ArgvNull,
    /// `MPI_UNWEIGHTED`.
    Unweighted,
    /// `MPI_WEIGHTS_EMPTY`.
    WeightsEmpty,
}

/// Addresses of the program's COMMON blocks (0 when absent).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Commons {
    /// `/MPIPRIV1/`.
    pub priv1: usize,
    /// `/MPIPRIV2/`.
    pub priv2: usize,
    /// `/MPIPRIVC/`.
    pub privc: usize,
    /// `/MPIFCMB5/`.
    pub fcmb5: usize,
    /// `/MPIFCMB9/`.
    pub fcmb9: usize,
}

/// The C `MPI_IN_PLACE`: `(void *)-1`.
const C_IN_PLACE: usize = usize::MAX;
/// The C `MPI_STATUS_IGNORE` and `MPI_STATUSES_IGNORE`: `(MPI_Status *)1`.
const C_STATUS_IGNORE: usize = 1;

impl Commons {
    /// Finds the blocks among the loaded objects (the program first).
    fn lookup() -> Commons {
        let find = |name: &std::ffi::CStr| {
            // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only
            // searches the loaded objects' symbol tables.
            unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) as usize }
        };
        Commons {
            priv1: find(c"mpipriv1_"),
            priv2: find(c"mpipriv2_"),
            privc: find(c"mpiprivc_"),
            fcmb5: find(c"mpifcmb5_"),
            fcmb9: find(c"mpifcmb9_"),
        }
    }

    /// Which sentinel, if any, lives at `addr`.
    pub fn classify(&self, addr: usize) -> Option<Sentinel> {
        use Sentinel::*;
        let places = [
            (self.priv1, 0, Bottom),
            (self.priv1, 4, InPlace),
            (self.priv1, 8, StatusIgnore),
            (self.priv2, 0, StatusesIgnore),
            (self.priv2, 20, ErrcodesIgnore),
            (self.privc, 0, ArgvsNull),
            (self.privc, 1, ArgvNull),
            (self.fcmb5, 0, Unweighted),
            (self.fcmb9, 0, WeightsEmpty),
        ];
        places
            .iter()
            .find(|(block, offset, _)| *block != 0 && addr == block + offset)
            .map(|&(_, _, s)| s)
    }

    /// The C address for a Fortran argument `addr`: `c_value(s)` when `addr`
    /// is one of the sentinels `s` it gives a value for, else `addr`.
    pub fn translate(&self, addr: usize, c_value: impl Fn(Sentinel) -> Option<usize>) -> usize {
        self.classify(addr).and_then(c_value).unwrap_or(addr)
    }
}

fn commons() -> &'static Commons {
    static COMMONS: OnceLock<Commons> = OnceLock::new();
    COMMONS.get_or_init(Commons::lookup)
}

/// Looks the COMMON blocks up now (called by `MPI_INIT`).
pub fn init() {
    commons();
}

/// What a choice buffer becomes: `MPI_BOTTOM` is C's null, `MPI_IN_PLACE`
/// C's `(void *)-1`.
fn buffer_value(s: Sentinel) -> Option<usize> {
    match s {
        Sentinel::Bottom => Some(0),
        Sentinel::InPlace => Some(C_IN_PLACE),
        _ => None,
    }
}

/// A choice buffer for C (see [`buffer_value`]).
pub fn buffer(p: *mut c_void) -> *mut c_void {
    commons().translate(p as usize, buffer_value) as *mut c_void
}

/// A status array for C: `MPI_STATUS_IGNORE` (mpif.h's, or `mpi_f08`'s
/// `MPIR_F08_MPI_STATUS_IGNORE_OBJ`) becomes `(MPI_Status *)1`.
pub fn status(p: *mut crate::Fint) -> *mut c_void {
    if std::ptr::eq(
        p.cast::<u8>(),
        std::ptr::addr_of!(crate::f08_symbols::MPIR_F08_MPI_STATUS_IGNORE_OBJ).cast::<u8>(),
    ) {
        return C_STATUS_IGNORE as *mut c_void;
    }
    commons().translate(p as usize, |s| {
        (s == Sentinel::StatusIgnore).then_some(C_STATUS_IGNORE)
    }) as *mut c_void
}

/// An array of statuses for C: `MPI_STATUSES_IGNORE` (mpif.h's, or
/// `mpi_f08`'s `MPIR_F08_MPI_STATUSES_IGNORE_OBJ`) becomes `(MPI_Status *)1`.
pub fn statuses(p: *mut crate::Fint) -> *mut c_void {
    if std::ptr::eq(
        p.cast::<u8>(),
        std::ptr::addr_of!(crate::f08_symbols::MPIR_F08_MPI_STATUSES_IGNORE_OBJ).cast::<u8>(),
    ) {
        return C_STATUS_IGNORE as *mut c_void;
    }
    commons().translate(p as usize, |s| {
        (s == Sentinel::StatusesIgnore).then_some(C_STATUS_IGNORE)
    }) as *mut c_void
}

/// Whether `p` is the address of the `mpi_f08` module's link constant
/// `constant` (storage in [`crate::f08_symbols`]).
fn is_f08_constant<T>(p: *const T, constant: *const u8) -> bool {
    std::ptr::eq(p.cast::<u8>(), constant)
}

/// An error-code array for C: `MPI_ERRCODES_IGNORE` (mpif.h's, or
/// `mpi_f08`'s `mpi_errcodes_ignore` link constant) becomes C's null.
pub fn errcodes(p: *mut crate::Fint) -> *mut c_int {
    if is_f08_constant(
        p,
        std::ptr::addr_of!(crate::f08_symbols::__mpi_f08_link_constants_MOD_mpi_errcodes_ignore)
            .cast(),
    ) {
        return std::ptr::null_mut();
    }
    commons().translate(p as usize, |s| (s == Sentinel::ErrcodesIgnore).then_some(0)) as *mut c_int
}

/// An argument vector: `MPI_ARGV_NULL` and `MPI_ARGVS_NULL` (mpif.h's or
/// `mpi_f08`'s) become C's null. (Fortran passes a `CHARACTER` array; the
/// caller converts the rest.)
pub fn argv(p: *const c_void) -> *const c_void {
    if is_f08_constant(
        p,
        std::ptr::addr_of!(crate::f08_symbols::__mpi_f08_link_constants_MOD_mpi_argv_null).cast(),
    ) || is_f08_constant(
        p,
        std::ptr::addr_of!(crate::f08_symbols::__mpi_f08_link_constants_MOD_mpi_argvs_null).cast(),
    ) {
        return std::ptr::null();
    }
    commons().translate(p as usize, |s| {
        matches!(s, Sentinel::ArgvNull | Sentinel::ArgvsNull).then_some(0)
    }) as *const c_void
}

/// A weights array: `MPI_UNWEIGHTED` and `MPI_WEIGHTS_EMPTY` (mpif.h's, or
/// `mpi_f08`'s link constants `mpi_unweighted` and `mpi_weights_empty`)
/// become the C library's own sentinels (addresses of its variables).
pub fn weights(p: *const crate::Fint) -> *const c_int {
    if is_f08_constant(
        p,
        std::ptr::addr_of!(crate::f08_symbols::__mpi_f08_link_constants_MOD_mpi_unweighted).cast(),
    ) {
        // SAFETY: reading the C library's constant pointer.
        return unsafe { crate::c::MPI_UNWEIGHTED };
    }
    if is_f08_constant(
        p,
        std::ptr::addr_of!(crate::f08_symbols::__mpi_f08_link_constants_MOD_mpi_weights_empty)
            .cast(),
    ) {
        // SAFETY: reading the C library's constant pointer.
        return unsafe { crate::c::MPI_WEIGHTS_EMPTY };
    }
    commons().translate(p as usize, |s| match s {
        // SAFETY: reading the C library's constant pointers.
        Sentinel::Unweighted => Some(unsafe { crate::c::MPI_UNWEIGHTED } as usize),
        Sentinel::WeightsEmpty => Some(unsafe { crate::c::MPI_WEIGHTS_EMPTY } as usize),
        _ => None,
    }) as *const c_int
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks at made-up addresses, laid out as Debian's mpif.h.
    fn program() -> Commons {
        Commons {
            priv1: 0x1000,
            priv2: 0x2000,
            privc: 0x3000,
            fcmb5: 0x4000,
            fcmb9: 0x5000,
        }
    }

    #[test]
    fn every_sentinel_is_found_at_its_offset() {
        use Sentinel::*;
        let c = program();
        let expected = [
            (0x1000, Bottom),
            (0x1004, InPlace),
            (0x1008, StatusIgnore),
            (0x2000, StatusesIgnore),
            (0x2014, ErrcodesIgnore),
            (0x3000, ArgvsNull),
            (0x3001, ArgvNull),
            (0x4000, Unweighted),
            (0x5000, WeightsEmpty),
        ];
        for (addr, s) in expected {
            assert_eq!(c.classify(addr), Some(s), "{addr:#x}");
        }
        // Inside MPI_STATUS_IGNORE, after the blocks' sentinels, elsewhere.
        for addr in [
            0x100c, 0x1018, 0x1020, 0x2004, 0x2018, 0x3002, 0x4004, 0x6000,
        ] {
            assert_eq!(c.classify(addr), None, "{addr:#x}");
        }
    }

    #[test]
    fn absent_blocks_match_nothing() {
        let c = Commons::default();
        for addr in [0, 1, 4, 8, 20] {
            assert_eq!(c.classify(addr), None, "{addr:#x}");
        }
        let only_priv1 = Commons {
            priv1: 0x1000,
            ..Commons::default()
        };
        assert_eq!(only_priv1.classify(20), None);
        assert_eq!(only_priv1.classify(0x1004), Some(Sentinel::InPlace));
    }

    #[test]
    fn translation_only_replaces_the_sentinels_a_argument_accepts() {
        let c = program();
        assert_eq!(c.translate(0x1000, buffer_value), 0);
        assert_eq!(c.translate(0x1004, buffer_value), usize::MAX);
        // MPI_STATUS_IGNORE is an ordinary address where a buffer is expected.
        assert_eq!(c.translate(0x1008, buffer_value), 0x1008);
        assert_eq!(c.translate(0x7777, buffer_value), 0x7777);
    }
}
