//! Folders whose contents other processes trust: the shim libraries every
//! rank loads and the gateway's Unix socket. Another local user who can
//! write such a folder, or one of its parents, could swap a library and run
//! code inside every rank. So, as ssh does for `~/.ssh`, the folder must
//! belong to this user and be writable by nobody else, and each parent must
//! belong to this user or root and be writable by nobody else, unless its
//! sticky bit (as on /tmp) stops others from renaming what they do not own.

use crate::error::Error;
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};

/// Mode bits that let group members or other users change a folder.
const GROUP_OR_OTHER_WRITE: u32 = 0o022;
/// The sticky bit: only an entry's owner may rename or delete it.
const STICKY: u32 = 0o1000;

/// Creates `path` and every missing parent with mode 0700, set exactly
/// (the umask never decides who may enter a folder mpinetsim made).
pub fn create_private_dir_all(path: &Path) -> Result<(), Error> {
    let mut missing = Vec::new();
    let mut p = path;
    while std::fs::symlink_metadata(p).is_err() {
        missing.push(p);
        match p.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => p = parent,
            _ => break,
        }
    }
    for dir in missing.into_iter().rev() {
        match std::fs::DirBuilder::new().mode(0o700).create(dir) {
            Ok(()) => crate::private_dir::set_mode(dir, 0o700)?,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                return Err(Error::Usage(format!(
                    "cannot create the folder {}: {e}; create it yourself or choose another path",
                    dir.display()
                )))
            }
        }
    }
    Ok(())
}

/// Checks that `path`, an existing folder, and its parents are safe to hold
/// files the ranks trust (see the module comment); returns the folder's
/// canonical path. `role` names the folder in the sentence that says why
/// it is refused ("the --lib-dir folder").
pub fn check_trusted(path: &Path, role: &str) -> Result<PathBuf, Error> {
    let real = path.canonicalize().map_err(|e| {
        format!(
            "cannot use {role} {}: {e}; give an existing folder",
            path.display()
        )
    })?;
    let me = nix::unistd::geteuid().as_raw();
    let meta = metadata(&real, role)?;
    if !meta.is_dir() {
        return Err(Error::Usage(format!(
            "{role} {} is not a folder; give a folder",
            real.display()
        )));
    }
    if meta.uid() != me {
        return Err(Error::Usage(format!(
            "{role} {} belongs to {}, not to you ({}): its owner could replace the libraries the ranks load; use a folder of your own",
            real.display(),
            user_name(meta.uid()),
            user_name(me)
        )));
    }
    if meta.mode() & GROUP_OR_OTHER_WRITE != 0 {
        return Err(Error::Usage(format!(
            "{role} {} is writable by other users (mode {:04o}): they could replace the libraries the ranks load; run `chmod go-w {}` or use a private folder",
            real.display(),
            meta.mode() & 0o7777,
            real.display()
        )));
    }
    for parent in real.ancestors().skip(1) {
        let m = metadata(parent, role)?;
        let owner_ok = m.uid() == me || m.uid() == 0;
        let writable = m.mode() & GROUP_OR_OTHER_WRITE != 0 && m.mode() & STICKY == 0;
        if !owner_ok || writable {
            let why = if owner_ok {
                format!(
                    "is writable by other users (mode {:04o}) without the sticky bit",
                    m.mode() & 0o7777
                )
            } else {
                format!("belongs to {}", user_name(m.uid()))
            };
            return Err(Error::Usage(format!(
                "{role} {} lies inside {}, which {why}: whoever can write there could rename {} and put another folder in its place; use a folder whose parents only you or root can write",
                real.display(),
                parent.display(),
                real.display()
            )));
        }
    }
    Ok(real)
}

fn metadata(path: &Path, role: &str) -> Result<std::fs::Metadata, Error> {
    std::fs::metadata(path).map_err(|e| {
        Error::Usage(format!(
            "cannot check who may write {} (for {role}): {e}",
            path.display()
        ))
    })
}

/// "alice (uid 1000)", or "uid 1000" when the name is unknown.
pub fn user_name(uid: u32) -> String {
    match nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(uid)) {
        Ok(Some(u)) => format!("user {} (uid {uid})", u.name),
        _ => format!("uid {uid}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
    }

    #[test]
    fn missing_folders_are_created_0700_whatever_the_umask() {
        let d = tempfile::tempdir().unwrap();
        let deep = d.path().join("a/b/c");
        create_private_dir_all(&deep).unwrap();
        for p in [d.path().join("a"), d.path().join("a/b"), deep.clone()] {
            assert_eq!(mode(&p), 0o700, "{}", p.display());
        }
        // An existing folder keeps its mode.
        crate::private_dir::set_mode(&deep, 0o750).unwrap();
        create_private_dir_all(&deep).unwrap();
        assert_eq!(mode(&deep), 0o750);
    }

    #[test]
    fn a_folder_others_can_write_is_refused_with_its_name_and_mode() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("lib");
        create_private_dir_all(&f).unwrap();
        assert_eq!(
            check_trusted(&f, "the --lib-dir folder").unwrap(),
            f.canonicalize().unwrap()
        );
        crate::private_dir::set_mode(&f, 0o777).unwrap();
        let e = check_trusted(&f, "the --lib-dir folder")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(&format!(
                "the --lib-dir folder {} is writable by other users (mode 0777)",
                f.canonicalize().unwrap().display()
            )),
            "{e}"
        );
        // Group-writable is refused too.
        crate::private_dir::set_mode(&f, 0o770).unwrap();
        assert!(check_trusted(&f, "x")
            .unwrap_err()
            .to_string()
            .contains("mode 0770"));
    }

    #[test]
    fn a_parent_others_can_write_is_refused_unless_it_is_sticky() {
        let d = tempfile::tempdir().unwrap();
        let parent = d.path().join("shared");
        let f = parent.join("lib");
        create_private_dir_all(&f).unwrap();
        crate::private_dir::set_mode(&parent, 0o777).unwrap();
        let e = check_trusted(&f, "the socket folder")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!(
                "lies inside {}, which is writable by other users (mode 0777) without the sticky bit",
                parent.canonicalize().unwrap().display()
            )),
            "{e}"
        );
        crate::private_dir::set_mode(&parent, 0o1777).unwrap();
        check_trusted(&f, "the socket folder").unwrap();
    }

    #[test]
    fn a_file_or_a_missing_path_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let file = d.path().join("f");
        std::fs::write(&file, b"").unwrap();
        assert!(check_trusted(&file, "x")
            .unwrap_err()
            .to_string()
            .contains("is not a folder"));
        assert!(check_trusted(&d.path().join("none"), "x")
            .unwrap_err()
            .to_string()
            .contains("give an existing folder"));
    }
}
