//! Moves capture bytes from the simulator's capture files into files on
//! disk, and writes the `hosts` file for Wireshark's name resolution.

use crate::error::Error;
use netsim::config::CaptureFormat;
use netsim::wire::capture::whole_records_len;
use netsim::Simulator;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Name of the hosts file written beside the captures.
pub const HOSTS_FILE: &str = "hosts";

/// One open file per capture file of the simulator, all created (with their
/// headers) when the job starts, so every file is valid from the start.
///
/// A write that fails (a full disk, say) cuts that file back to the end of
/// its last whole record, so it stays readable, and stops all capturing:
/// later flushes discard what the simulator records.
pub struct CaptureFiles {
    /// Open files, in the order of `Simulator::captures_mut`.
    files: Vec<OpenCapture>,
    /// The first write error, as the sentence reported to the user.
    failed: Option<String>,
}

/// One capture file on disk and how much of it is known to be whole.
struct OpenCapture {
    path: PathBuf,
    file: File,
    /// Bytes written by completed drains: always a record boundary.
    whole_bytes: u64,
}

impl OpenCapture {
    /// After a failed write: keeps the whole records the write managed to
    /// append, cuts off the partial one, and says so in one sentence.
    fn cut_to_whole_records(&mut self, format: CaptureFormat, error: &std::io::Error) -> String {
        let cut = self.whole_length(format).and_then(|len| {
            self.file.set_len(len)?;
            Ok(len)
        });
        let dir = self.path.parent().unwrap_or(Path::new("."));
        match cut {
            Ok(len) => format!(
                "cannot write capture file {} ({error}); capturing stopped and the file ends at its last whole packet ({len} bytes); free space in {} or capture fewer points (`links = [...]` in [capture])",
                self.path.display(),
                dir.display()
            ),
            Err(t) => format!(
                "cannot write capture file {} ({error}) nor cut it back to its last whole packet ({t}); free space in {} or capture fewer points",
                self.path.display(),
                dir.display()
            ),
        }
    }

    /// Length of the file's whole records: the known boundary plus the whole
    /// records among the bytes the failed write appended.
    fn whole_length(&mut self, format: CaptureFormat) -> std::io::Result<u64> {
        let mut appended = Vec::new();
        self.file.seek(SeekFrom::Start(self.whole_bytes))?;
        (&self.file).read_to_end(&mut appended)?;
        let whole = self.whole_bytes + whole_records_len(format, &appended) as u64;
        self.file.seek(SeekFrom::Start(whole))?;
        Ok(whole)
    }
}

impl CaptureFiles {
    /// Creates the folder (and parents, mode 0700) if needed, one private
    /// file per capture file of `sim` holding its header, and the `hosts`
    /// file. Every file lands directly inside `dir`: a name that would
    /// leave it (a node named `../x`) is refused.
    pub fn create(dir: &Path, sim: &mut Simulator) -> Result<CaptureFiles, Error> {
        crate::trusted_folder::create_private_dir_all(dir)
            .map_err(|e| e.map_sentence(|s| format!("{s} (the --capture folder)")))?;
        let hosts = dir.join(HOSTS_FILE);
        open_private(&hosts)
            .and_then(|mut f| {
                f.write_all(netsim::wire::capture::hosts_file(&sim.host_names()).as_bytes())
            })
            .map_err(|e| {
                format!(
                    "cannot write {}: {e}; choose a writable --capture folder",
                    hosts.display()
                )
            })?;
        let mut files = Vec::new();
        for cp in sim.captures_mut() {
            let path = path_inside(dir, &cp.file_name)?;
            let f = open_private(&path).map_err(|e| {
                format!(
                    "cannot create capture file {}: {e}; choose a writable --capture folder",
                    path.display()
                )
            })?;
            files.push(OpenCapture {
                path,
                file: f,
                whole_bytes: 0,
            });
        }
        let mut c = CaptureFiles {
            files,
            failed: None,
        };
        c.flush(sim)?;
        Ok(c)
    }

    /// Appends everything the capture files produced since the last flush.
    ///
    /// The first failure is returned once; the failed file is cut back to
    /// its last whole record and every later flush only discards.
    pub fn flush(&mut self, sim: &mut Simulator) -> Result<(), Error> {
        for (cp, open) in sim.captures_mut().iter_mut().zip(&mut self.files) {
            if cp.pending_len() == 0 {
                continue;
            }
            if self.failed.is_some() {
                cp.drain_to(&mut std::io::sink())
                    .expect("the sink takes everything");
                continue;
            }
            let format = cp.format;
            match cp.drain_to(&mut open.file) {
                Ok(()) => {
                    open.whole_bytes = open.file.stream_position().unwrap_or(open.whole_bytes)
                }
                Err(e) => {
                    let message = open.cut_to_whole_records(format, &e);
                    self.failed = Some(message.clone());
                    return Err(Error::Internal(message));
                }
            }
        }
        Ok(())
    }

    /// Paths of the capture files (not the hosts file).
    pub fn paths(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = self.files.iter().map(|o| o.path.clone()).collect();
        v.sort();
        v
    }
}

/// Opens `path` for reading and writing, emptied, private (0600).
fn open_private(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let f = File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    Ok(f)
}

/// `dir/name`, when `name` is one plain file name (no folder part, not
/// `.` or `..`); else one sentence. Network names are checked when the
/// file is loaded; this is the last guard before writing.
pub fn path_inside(dir: &Path, name: &str) -> Result<PathBuf, Error> {
    let mut parts = Path::new(name).components();
    match (parts.next(), parts.next()) {
        (Some(std::path::Component::Normal(n)), None) if n == name => Ok(dir.join(n)),
        _ => Err(Error::Usage(format!(
            "the capture file name {name:?} would be written outside the --capture folder {}; rename the node or link it comes from",
            dir.display()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_paths_stay_inside_their_folder() {
        let dir = Path::new("/caps");
        assert_eq!(
            path_inside(dir, "host0.pcap").unwrap(),
            dir.join("host0.pcap")
        );
        for bad in ["../x.pcap", "/etc/x.pcap", "a/b.pcap", "..", ".", "", "x/"] {
            let e = path_inside(dir, bad).unwrap_err().to_string();
            assert!(
                e.contains("outside the --capture folder /caps"),
                "{bad}: {e}"
            );
        }
    }
}
