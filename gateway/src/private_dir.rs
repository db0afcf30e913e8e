//! A folder only this user can enter (mode 0700), for the gateway's default
//! Unix socket and the shim libraries: no other user can connect to the
//! socket or swap the libraries the ranks load.

use crate::error::Error;

/// A private folder, removed when dropped (a [`tempfile::TempDir`]).
#[derive(Debug)]
pub struct PrivateDir {
    dir: tempfile::TempDir,
}

impl PrivateDir {
    /// Creates `$TMPDIR/<prefix>-<random>` with mode 0700; tempfile makes
    /// it with an exclusive mkdir, so someone else's folder of that name is
    /// never taken over. A failure is internal (exit code 4): mpinetsim
    /// could not make the folder it works in.
    pub fn create(prefix: &str) -> Result<PrivateDir, Error> {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::Builder::new()
            .prefix(&format!("{prefix}-"))
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir()
            .map_err(|e| {
                Error::internal(format!(
                    "cannot create the private folder in {}: {e}; set TMPDIR to a writable folder",
                    std::env::temp_dir().display()
                ))
            })?;
        // The umask may have removed bits but never adds any; make it exact.
        set_mode(dir.path(), 0o700)?;
        // Nobody else may be able to rename it away ($TMPDIR sticky or private).
        crate::trusted_folder::check_trusted(dir.path(), "the private folder")
            .map_err(|e| Error::internal(format!("{e} (set TMPDIR to such a folder)")))?;
        Ok(PrivateDir { dir })
    }

    /// The folder.
    pub fn path(&self) -> &std::path::Path {
        self.dir.path()
    }
}

/// chmod, as one sentence on failure. The path is one mpinetsim just made
/// (or checked), so a refusal is the system's: internal.
pub fn set_mode(path: &std::path::Path, mode: u32) -> Result<(), Error> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).map_err(|e| {
        Error::internal(format!(
            "cannot set the mode of {} to {mode:o}: {e}",
            path.display()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_folder_is_owner_only_and_removed_on_drop() {
        let d = PrivateDir::create("mpinetsim-test").unwrap();
        let mode = std::fs::metadata(d.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        let p = d.path().to_path_buf();
        drop(d);
        assert!(!p.exists());
    }

    #[test]
    fn a_mode_the_system_refuses_is_internal() {
        let d = PrivateDir::create("mpinetsim-test").unwrap();
        let gone = d.path().join("gone");
        let e = set_mode(&gone, 0o700).unwrap_err();
        assert_eq!(e.exit_code(), crate::exit_code::INTERNAL, "{e}");
        assert!(
            e.to_string().starts_with(&format!(
                "cannot set the mode of {} to 700: ",
                gone.display()
            )),
            "{e}"
        );
    }
}
