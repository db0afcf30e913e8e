//! Moves capture bytes from the simulator's capture files into files on
//! disk, and writes the `hosts` file for Wireshark's name resolution.

use netsim::Simulator;
use std::fs::File;
use std::path::{Path, PathBuf};

/// Name of the hosts file written beside the captures.
pub const HOSTS_FILE: &str = "hosts";

/// One open file per capture file of the simulator, all created (with their
/// headers) when the job starts, so every file is valid from the start.
pub struct CaptureFiles {
    /// Open files, in the order of `Simulator::captures_mut`.
    files: Vec<(PathBuf, File)>,
}

impl CaptureFiles {
    /// Creates the folder (and parents) if needed, one file per capture file
    /// of `sim` holding its header, and the `hosts` file.
    pub fn create(dir: &Path, sim: &mut Simulator) -> Result<CaptureFiles, String> {
        std::fs::create_dir_all(dir).map_err(|e| {
            format!(
                "cannot create the capture folder {}: {e}; choose a writable --capture folder",
                dir.display()
            )
        })?;
        let hosts = dir.join(HOSTS_FILE);
        std::fs::write(&hosts, netsim::capture::hosts_file(&sim.host_names())).map_err(|e| {
            format!(
                "cannot write {}: {e}; choose a writable --capture folder",
                hosts.display()
            )
        })?;
        let mut files = Vec::new();
        for cp in sim.captures_mut() {
            let path = dir.join(&cp.file_name);
            let f = File::create(&path).map_err(|e| {
                format!(
                    "cannot create capture file {}: {e}; choose a writable --capture folder",
                    path.display()
                )
            })?;
            files.push((path, f));
        }
        let mut c = CaptureFiles { files };
        c.flush(sim)?;
        Ok(c)
    }

    /// Appends everything the capture files produced since the last flush.
    pub fn flush(&mut self, sim: &mut Simulator) -> Result<(), String> {
        for (cp, (path, file)) in sim.captures_mut().iter_mut().zip(&mut self.files) {
            if cp.pending_len() == 0 {
                continue;
            }
            cp.drain_to(file)
                .map_err(|e| format!("cannot write capture file {}: {e}", path.display()))?;
        }
        Ok(())
    }

    /// Paths of the capture files (not the hosts file).
    pub fn paths(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = self.files.iter().map(|(p, _)| p.clone()).collect();
        v.sort();
        v
    }
}
