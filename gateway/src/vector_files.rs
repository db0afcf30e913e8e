//! Writes the simulator's time series (see `netsim::sim::vectors`) as CSV:
//! `links.csv` (queue and utilisation of every link direction) and
//! `tcp.csv` (congestion window and RTT estimate of every connection).
//!
//! Each flush appends whole rows. A write that fails (a full disk, say)
//! cuts both files back to the end of the last flush that succeeded, so
//! they end at a whole row, is reported once, and stops the series: later
//! flushes discard their samples.
//!
//! Rows are written by the `csv` crate, so a link or port name holding a
//! comma or a quote is quoted as RFC 4180 says rather than breaking the row.

use crate::error::Error;
use netsim::Simulator;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Header of `links.csv`.
const LINKS_HEADER: [&str; 6] = [
    "time_s",
    "link",
    "from_port",
    "queue_packets",
    "queue_bytes",
    "utilisation",
];
/// Header of `tcp.csv`.
const TCP_HEADER: [&str; 6] = [
    "time_s",
    "src_rank",
    "dst_rank",
    "cwnd_bytes",
    "srtt_us",
    "unacked_bytes",
];

/// `records` as CSV text (fields quoted where they need it).
pub fn csv_bytes<R, F>(records: R) -> Vec<u8>
where
    R: IntoIterator<Item = Vec<F>>,
    F: AsRef<[u8]>,
{
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in records {
        w.write_record(r).expect("CSV into memory");
    }
    w.into_inner().expect("CSV into memory")
}

/// The two CSV files of a run.
pub struct VectorFiles {
    dir: PathBuf,
    links: CsvFile,
    tcp: CsvFile,
    /// Per port: its link's name and its own.
    port_label: Vec<(String, String)>,
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
    fn create(path: &Path, header: &[&str]) -> std::io::Result<CsvFile> {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        let mut file = File::options()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(path)?;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        let header = csv_bytes([header.to_vec()]);
        file.write_all(&header)?;
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
    pub fn create(dir: &Path, sim: &Simulator) -> Result<VectorFiles, Error> {
        crate::trusted_folder::create_private_dir_all(dir)?;
        let open = |name: &str, header: &[&str]| {
            let path = dir.join(name);
            CsvFile::create(&path, header).map_err(|e| {
                let _ = std::fs::remove_file(&path);
                format!(
                    "cannot write the time series {}: {e}; choose a writable --vectors folder or free space",
                    path.display()
                )
            })
        };
        let links = open("links.csv", &LINKS_HEADER)?;
        let tcp = match open("tcp.csv", &TCP_HEADER) {
            Ok(t) => t,
            Err(e) => {
                let _ = std::fs::remove_file(dir.join("links.csv"));
                return Err(e.into());
            }
        };
        let net = sim.network();
        let port_label = net
            .ports
            .iter()
            .map(|p| (net.links[p.link as usize].name.clone(), p.name.clone()))
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
    pub fn flush(&mut self, sim: &mut Simulator) -> Result<(), Error> {
        let s = sim.take_samples();
        if self.failed {
            return Ok(());
        }
        let links = csv_bytes(s.links.iter().map(|r| {
            let (link, port) = &self.port_label[r.port as usize];
            vec![
                format!("{:.9}", r.t_ns as f64 / 1e9),
                link.clone(),
                port.clone(),
                r.queue_packets.to_string(),
                r.queue_bytes.to_string(),
                format!("{:.6}", r.utilisation),
            ]
        }));
        let tcp = csv_bytes(s.tcp.iter().map(|r| {
            vec![
                format!("{:.9}", r.t_ns as f64 / 1e9),
                r.src_rank.to_string(),
                r.dst_rank.to_string(),
                r.cwnd_bytes.to_string(),
                // Empty before the first RTT sample.
                r.srtt_ns
                    .map(|v| format!("{:.3}", v as f64 / 1e3))
                    .unwrap_or_default(),
                r.unacked_bytes.to_string(),
            ]
        }));
        let written = self
            .links
            .append(&links)
            .and_then(|()| self.tcp.append(&tcp));
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
        Err(Error::Internal(format!(
            "cannot write the time series into {} ({e}); {fate}; free space in {} or drop --vectors",
            self.dir.display(),
            self.dir.display()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::csv_bytes;

    #[test]
    fn names_with_commas_or_quotes_are_quoted_and_numbers_are_not() {
        let text = csv_bytes([
            vec!["time_s", "link", "from_port"],
            vec!["0.000001000", "a,b", "say \"hi\""],
        ]);
        assert_eq!(
            String::from_utf8(text).unwrap(),
            "time_s,link,from_port\n0.000001000,\"a,b\",\"say \"\"hi\"\"\"\n"
        );
    }
}
