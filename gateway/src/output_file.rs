//! Files mpinetsim writes for the user (reports, timelines, comparisons):
//! every path is checked before a job starts, so a typo never costs a run;
//! a file is created private (mode 0600, set exactly) and written whole
//! through a temporary file renamed into place, so a full disk leaves the
//! previous file (or none), never an empty or half-written one.

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// Why a file for the user cannot be written. Its text is the one
/// sentence the command prints (what, where, what to do); callers that
/// speak in sentences take it as a `String`.
#[derive(Debug, thiserror::Error)]
pub enum OutputFileError {
    /// The path names a folder.
    #[error("{option} {path} is a folder; give a file name")]
    IsAFolder {
        /// The option that gave the path.
        option: String,
        /// The path as given.
        path: String,
    },
    /// A device or pipe (`/dev/stdout`) that cannot be opened for writing.
    #[error("cannot write {option} {path}: {source}")]
    Special {
        /// The option that gave the path.
        option: String,
        /// The path as given.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// The folder does not exist.
    #[error("cannot write {option} {path}: {source}; the folder {dir} does not exist; create it or choose another {option} path")]
    NoFolder {
        /// The option that gave the path.
        option: String,
        /// The path as given.
        path: String,
        /// The missing folder.
        dir: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// No file can be created in the folder.
    #[error("cannot write {option} {path}: {source}; choose a writable {option} path")]
    NotWritable {
        /// The option that gave the path.
        option: String,
        /// The path as given.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// Writing failed part-way (a full disk); the previous file was kept.
    #[error("cannot write {option} {path} ({source}); the previous file, if any, was kept: free space or choose another {option} path")]
    WriteFailed {
        /// The option that gave the path.
        option: String,
        /// The path as given.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
}

/// The sentence, for the callers whose errors are sentences.
impl From<OutputFileError> for String {
    fn from(e: OutputFileError) -> String {
        e.to_string()
    }
}

/// Creates `path`, which must not exist, readable and writable by its owner
/// only (whatever the umask).
pub fn create_new_private(path: &Path) -> std::io::Result<File> {
    let f = File::options()
        .write(true)
        .read(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    Ok(f)
}

/// Where the bytes for `path` go: the file itself for a device or a pipe
/// (`/dev/stdout`), else a regular file replaced as a whole; a symbolic
/// link is followed, so the link stays and its target is replaced.
enum Destination {
    Special(PathBuf),
    Regular(PathBuf),
}

fn destination(path: &Path, option: &str) -> Result<Destination, OutputFileError> {
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    match std::fs::metadata(&target) {
        Ok(m) if m.is_dir() => Err(OutputFileError::IsAFolder {
            option: option.to_string(),
            path: path.display().to_string(),
        }),
        Ok(m) if !m.is_file() => Ok(Destination::Special(target)),
        _ => Ok(Destination::Regular(target)),
    }
}

/// A fresh, private temporary file beside `target`.
fn temporary_beside(target: &Path) -> std::io::Result<(PathBuf, File)> {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(
        ".{name}.{}-{}.mpinetsim-tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let f = create_new_private(&tmp)?;
    Ok((tmp, f))
}

/// Checks, before a job starts, that `path` (given with `option`) can be
/// written: not a folder, in an existing folder where a file can be
/// created. One sentence naming the option and what to do otherwise.
pub fn check_writable(path: &Path, option: &str) -> Result<(), OutputFileError> {
    let (option, shown) = (option.to_string(), path.display().to_string());
    let target = match destination(path, &option)? {
        Destination::Special(p) => {
            return File::options()
                .write(true)
                .open(&p)
                .map(|_| ())
                .map_err(|source| OutputFileError::Special {
                    option,
                    path: shown,
                    source,
                })
        }
        Destination::Regular(p) => p,
    };
    match temporary_beside(&target) {
        Ok((tmp, _)) => {
            let _ = std::fs::remove_file(tmp);
            Ok(())
        }
        Err(source) if source.kind() == std::io::ErrorKind::NotFound => {
            Err(OutputFileError::NoFolder {
                option,
                path: shown,
                dir: target
                    .parent()
                    .unwrap_or(Path::new("."))
                    .display()
                    .to_string(),
                source,
            })
        }
        Err(source) => Err(OutputFileError::NotWritable {
            option,
            path: shown,
            source,
        }),
    }
}

/// Writes `bytes` to `path` as a whole: into a private temporary file in
/// the same folder, synced, then renamed over `path`. On failure the
/// temporary file is removed and `path` is left as it was; the error says
/// so in one sentence.
pub fn write_whole(path: &Path, bytes: &[u8], option: &str) -> Result<(), OutputFileError> {
    let fail = |source: std::io::Error| OutputFileError::WriteFailed {
        option: option.to_string(),
        path: path.display().to_string(),
        source,
    };
    let target = match destination(path, option)? {
        Destination::Special(p) => {
            let mut f = File::options().write(true).open(&p).map_err(fail)?;
            return f.write_all(bytes).map_err(fail);
        }
        Destination::Regular(p) => p,
    };
    let (tmp, mut f) = temporary_beside(&target).map_err(fail)?;
    let written = f
        .write_all(bytes)
        .and_then(|()| f.sync_data())
        .and_then(|()| std::fs::rename(&tmp, &target));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(fail(e));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn a_whole_file_replaces_the_old_one_privately_and_leaves_no_temporary() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.json");
        std::fs::write(&p, b"old").unwrap();
        crate::private_dir::set_mode(&p, 0o644).unwrap();
        write_whole(&p, b"new\n", "--report").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new\n");
        assert_eq!(mode(&p), 0o600);
        let names: Vec<_> = std::fs::read_dir(d.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file is left");
    }

    #[test]
    fn a_symbolic_link_keeps_pointing_at_the_replaced_file() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("real.json");
        let link = d.path().join("link.json");
        std::fs::write(&real, b"old").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_whole(&link, b"new", "--report").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
    }

    #[test]
    fn bad_paths_are_refused_before_anything_runs() {
        let d = tempfile::tempdir().unwrap();
        let e = check_writable(d.path(), "--report").unwrap_err();
        assert!(matches!(e, OutputFileError::IsAFolder { .. }), "{e:?}");
        let e = e.to_string();
        assert!(e.ends_with("is a folder; give a file name"), "{e}");
        let missing = d.path().join("no/such/r.json");
        let e = check_writable(&missing, "--timeline").unwrap_err();
        assert!(matches!(e, OutputFileError::NoFolder { .. }), "{e:?}");
        let e = e.to_string();
        assert!(
            e.contains("does not exist; create it or choose another --timeline path"),
            "{e}"
        );
        check_writable(&d.path().join("r.json"), "--report").unwrap();
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
        // A device is written in place.
        check_writable(Path::new("/dev/null"), "--report").unwrap();
        write_whole(Path::new("/dev/null"), b"x", "--report").unwrap();
    }

    #[test]
    fn a_new_private_file_never_replaces_an_existing_one() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("secret");
        create_new_private(&p).unwrap();
        assert_eq!(mode(&p), 0o600);
        assert!(create_new_private(&p).is_err());
    }
}
