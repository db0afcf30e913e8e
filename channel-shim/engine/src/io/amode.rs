//! Access modes (`MPI_MODE_*` of MPICH's mpio.h), the I/O error classes,
//! and the error class a failed system call becomes.

use crate::error::{MpiError, MpiResult};

/// `MPI_MODE_CREATE`.
pub const CREATE: i32 = 1;
/// `MPI_MODE_RDONLY`.
pub const RDONLY: i32 = 2;
/// `MPI_MODE_WRONLY`.
pub const WRONLY: i32 = 4;
/// `MPI_MODE_RDWR`.
pub const RDWR: i32 = 8;
/// `MPI_MODE_DELETE_ON_CLOSE`.
pub const DELETE_ON_CLOSE: i32 = 16;
/// `MPI_MODE_UNIQUE_OPEN`.
pub const UNIQUE_OPEN: i32 = 32;
/// `MPI_MODE_EXCL`.
pub const EXCL: i32 = 64;
/// `MPI_MODE_APPEND`.
pub const APPEND: i32 = 128;
/// `MPI_MODE_SEQUENTIAL`.
pub const SEQUENTIAL: i32 = 256;

/// `MPI_ERR_ACCESS`: permission denied.
pub const ERR_ACCESS: i32 = 20;
/// `MPI_ERR_AMODE`: an invalid access mode.
pub const ERR_AMODE: i32 = 21;
/// `MPI_ERR_BAD_FILE`: an invalid file name.
pub const ERR_BAD_FILE: i32 = 22;
/// `MPI_ERR_FILE_EXISTS`: `MPI_MODE_EXCL` on an existing file.
pub const ERR_FILE_EXISTS: i32 = 25;
/// `MPI_ERR_FILE`: an invalid file handle.
pub const ERR_FILE: i32 = 27;
/// `MPI_ERR_IO`: any other I/O error.
pub const ERR_IO: i32 = 32;
/// `MPI_ERR_NOT_SAME`: ranks passed different arguments to a collective.
pub const ERR_NOT_SAME: i32 = 35;
/// `MPI_ERR_NO_SPACE`: the file system is full.
pub const ERR_NO_SPACE: i32 = 36;
/// `MPI_ERR_NO_SUCH_FILE`: the file does not exist.
pub const ERR_NO_SUCH_FILE: i32 = 37;
/// `MPI_ERR_QUOTA`: the quota is exceeded.
pub const ERR_QUOTA: i32 = 39;
/// `MPI_ERR_READ_ONLY`: a read-only file or file system.
pub const ERR_READ_ONLY: i32 = 40;
/// `MPI_ERR_UNSUPPORTED_DATAREP`: an unknown data representation.
pub const ERR_UNSUPPORTED_DATAREP: i32 = 43;
/// `MPI_ERR_UNSUPPORTED_OPERATION`: an operation the access mode forbids
/// (e.g. individual pointers on a sequential file).
pub const ERR_UNSUPPORTED_OPERATION: i32 = 44;

/// Checks an access mode as MPI defines it: exactly one of read-only,
/// write-only and read-write; no create or exclusive with read-only; no
/// sequential with read-write.
pub fn check(amode: i32) -> MpiResult<()> {
    let bad = || Err(MpiError::Code(ERR_AMODE));
    let known = CREATE
        | RDONLY
        | WRONLY
        | RDWR
        | DELETE_ON_CLOSE
        | UNIQUE_OPEN
        | EXCL
        | APPEND
        | SEQUENTIAL;
    if amode & !known != 0 {
        return bad();
    }
    let access = [RDONLY, WRONLY, RDWR]
        .iter()
        .filter(|&&m| amode & m != 0)
        .count();
    if access != 1 {
        return bad();
    }
    if amode & RDONLY != 0 && amode & (CREATE | EXCL) != 0 {
        return bad();
    }
    if amode & RDWR != 0 && amode & SEQUENTIAL != 0 {
        return bad();
    }
    Ok(())
}

/// Whether the mode allows reading.
pub fn can_read(amode: i32) -> bool {
    amode & WRONLY == 0
}

/// Whether the mode allows writing.
pub fn can_write(amode: i32) -> bool {
    amode & RDONLY == 0
}

/// The error class of a failed file-system call (Linux `errno` values
/// for the kinds older Rust releases do not name).
pub fn io_error(e: &std::io::Error) -> MpiError {
    use std::io::ErrorKind as K;
    const ENOTDIR: i32 = 20;
    const EISDIR: i32 = 21;
    const ENOSPC: i32 = 28;
    const EROFS: i32 = 30;
    const ENAMETOOLONG: i32 = 36;
    const EDQUOT: i32 = 122;
    let class = match (e.kind(), e.raw_os_error()) {
        (K::NotFound, _) => ERR_NO_SUCH_FILE,
        (K::AlreadyExists, _) => ERR_FILE_EXISTS,
        (K::PermissionDenied, _) => ERR_ACCESS,
        (_, Some(EROFS)) => ERR_READ_ONLY,
        (_, Some(ENOSPC)) => ERR_NO_SPACE,
        (_, Some(EDQUOT)) => ERR_QUOTA,
        (_, Some(ENOTDIR | EISDIR | ENAMETOOLONG)) | (K::InvalidInput, _) => ERR_BAD_FILE,
        _ => ERR_IO,
    };
    MpiError::Code(class)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_mpi_allows_and_refuses() {
        assert!(check(RDONLY).is_ok());
        assert!(check(WRONLY | CREATE | EXCL).is_ok());
        assert!(check(RDWR | CREATE | DELETE_ON_CLOSE | UNIQUE_OPEN | APPEND).is_ok());
        assert!(check(WRONLY | SEQUENTIAL).is_ok());
        for bad in [
            0,
            RDONLY | WRONLY,
            RDONLY | CREATE,
            RDONLY | EXCL,
            RDWR | SEQUENTIAL,
            1 << 20,
        ] {
            assert_eq!(check(bad), Err(MpiError::Code(ERR_AMODE)), "{bad:#x}");
        }
    }

    #[test]
    fn system_errors_become_io_classes() {
        let nf = std::io::Error::from(std::io::ErrorKind::NotFound);
        assert_eq!(io_error(&nf), MpiError::Code(ERR_NO_SUCH_FILE));
        let ex = std::io::Error::from(std::io::ErrorKind::AlreadyExists);
        assert_eq!(io_error(&ex), MpiError::Code(ERR_FILE_EXISTS));
    }
}
