//! Writes the simulator's time series (see `netsim::sim::vectors`) as CSV:
//! `links.csv` (queue and utilisation of every link direction) and
//! `tcp.csv` (congestion window and RTT estimate of every connection).
//!
//! Each flush appends whole rows. A write that fails (a full disk, say)
//! cuts both files back to the end of the last flush that succeeded, so
//! they end at a whole row, is reported once, and stops the series: later
//! flushes discard their samples.

use netsim::Simulator;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Header line of `links.csv`.
const LINKS_HEADER: &str = "time_s,link,from_port,queue_packets,queue_bytes,utilisation\n";
/// Header line of `tcp.csv`.
const TCP_HEADER: &str = "time_s,src_rank,dst_rank,cwnd_bytes,srtt_us,unacked_bytes\n";

/// The two CSV files of a run.
pub struct VectorFiles {
    dir: PathBuf,
    links: CsvFile,
    tcp: CsvFile,
    /// Per port: "link,port" as written in `links.csv`.
    port_label: Vec<String>,
    /// The first write failure (already reported).
    failed: bool,
}

/// One CSV file and the length of its whole rows.
struct CsvFile {
    file: File,
    whole_bytes: u64,
}

impl CsvFile {
    /// Creates (or empties) `path`, private, holding `header`.
    fn create(path: &Path, header: &str) -> std::io::Result<CsvFile> {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        let mut file = File::options()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(path)?;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        file.write_all(header.as_bytes())?;
        Ok(CsvFile {
            file,
            whole_bytes: header.len() as u64,
        })
    }

    /// Appends `rows` (whole lines) in one write.
    fn append(&mut self, rows: &[u8]) -> std::io::Result<()> {
        self.file.write_all(rows)?;
        self.whole_bytes += rows.len() as u64;
        Ok(())
    }

    /// Cuts off whatever a failed append left after the last whole row.
    fn cut_to_whole_rows(&mut self) -> std::io::Result<()> {
        self.file.set_len(self.whole_bytes)
    }
}

impl VectorFiles {
    /// Creates the folder (mode 0700 when new) and both files with their
    /// header lines; a file that cannot be completed is removed again.
    pub fn create(dir: &Path, sim: &Simulator) -> Result<VectorFiles, String> {
        crate::trusted_folder::create_private_dir_all(dir)?;
        let open = |name: &str, header: &str| {
            let path = dir.join(name);
            CsvFile::create(&path, header).map_err(|e| {
                let _ = std::fs::remove_file(&path);
                format!(
                    "cannot write the time series {}: {e}; choose a writable --vectors folder or free space",
                    path.display()
                )
            })
        };
        let links = open("links.csv", LINKS_HEADER)?;
        let tcp = match open("tcp.csv", TCP_HEADER) {
            Ok(t) => t,
            Err(e) => {
                let _ = std::fs::remove_file(dir.join("links.csv"));
                return Err(e);
            }
        };
        let net = sim.network();
        let port_label = net
            .ports
            .iter()
            .map(|p| format!("{},{}", net.links[p.link as usize].name, p.name))
            .collect();
        Ok(VectorFiles {
            dir: dir.to_path_buf(),
            links,
            tcp,
            port_label,
            failed: false,
        })
    }

    /// Appends the samples taken since the last flush. The first failure
    /// is returned once, as one sentence; later flushes only discard.
    pub fn flush(&mut self, sim: &mut Simulator) -> Result<(), String> {
        use std::fmt::Write as _;
        let s = sim.take_samples();
        if self.failed {
            return Ok(());
        }
        let mut links = String::new();
        for r in &s.links {
            let _ = writeln!(
                links,
                "{:.9},{},{},{},{:.6}",
                r.t_ns as f64 / 1e9,
                self.port_label[r.port as usize],
                r.queue_packets,
                r.queue_bytes,
                r.utilisation
            );
        }
        let mut tcp = String::new();
        for r in &s.tcp {
            let srtt = r
                .srtt_ns
                .map(|v| format!("{:.3}", v as f64 / 1e3))
                .unwrap_or_default();
            let _ = writeln!(
                tcp,
                "{:.9},{},{},{},{srtt},{}",
                r.t_ns as f64 / 1e9,
                r.src_rank,
                r.dst_rank,
                r.cwnd_bytes,
                r.unacked_bytes
            );
        }
        let written = self
            .links
            .append(links.as_bytes())
            .and_then(|()| self.tcp.append(tcp.as_bytes()));
        let Err(e) = written else {
            return Ok(());
        };
        self.failed = true;
        let cut = self
            .links
            .cut_to_whole_rows()
            .and_then(|()| self.tcp.cut_to_whole_rows());
        let fate = match cut {
            Ok(()) => "links.csv and tcp.csv end at their last whole row and the series stopped"
                .to_string(),
            Err(c) => format!("nor cut back to their last whole row ({c})"),
        };
        Err(format!(
            "cannot write the time series into {} ({e}); {fate}; free space in {} or drop --vectors",
            self.dir.display(),
            self.dir.display()
        ))
    }
}
