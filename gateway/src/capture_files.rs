//! Moves capture bytes from the simulator's capture points into pcap files.

use netsim::Simulator;
use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};

/// One open pcap file per capture point, created on first flush.
pub struct CaptureFiles {
    dir: PathBuf,
    files: HashMap<String, File>,
}

impl CaptureFiles {
    /// Creates the folder (and parents) if needed.
    pub fn create(dir: &Path) -> Result<CaptureFiles, String> {
        std::fs::create_dir_all(dir).map_err(|e| {
            format!(
                "cannot create the capture folder {}: {e}; choose a writable --capture folder",
                dir.display()
            )
        })?;
        Ok(CaptureFiles {
            dir: dir.to_path_buf(),
            files: HashMap::new(),
        })
    }

    /// Appends everything the capture points produced since the last flush.
    pub fn flush(&mut self, sim: &mut Simulator) -> Result<(), String> {
        for cp in sim.captures_mut() {
            if cp.pending_len() == 0 && self.files.contains_key(&cp.file_name) {
                continue;
            }
            let file = match self.files.get_mut(&cp.file_name) {
                Some(f) => f,
                None => {
                    let path = self.dir.join(&cp.file_name);
                    let f = File::create(&path).map_err(|e| {
                        format!("cannot create capture file {}: {e}", path.display())
                    })?;
                    self.files.entry(cp.file_name.clone()).or_insert(f)
                }
            };
            cp.drain_to(file).map_err(|e| {
                format!(
                    "cannot write capture file {}: {e}",
                    self.dir.join(&cp.file_name).display()
                )
            })?;
        }
        Ok(())
    }

    /// Paths of the files written.
    pub fn paths(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = self.files.keys().map(|k| self.dir.join(k)).collect();
        v.sort();
        v
    }
}
