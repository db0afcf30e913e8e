//! Writes the simulator's time series (see `netsim::vectors`) as CSV:
//! `links.csv` (queue and utilisation of every link direction) and
//! `tcp.csv` (congestion window and RTT estimate of every connection).

use netsim::Simulator;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The two CSV files of a run.
pub struct VectorFiles {
    dir: PathBuf,
    links: BufWriter<File>,
    tcp: BufWriter<File>,
    /// Per port: "link,port" as written in `links.csv`.
    port_label: Vec<String>,
}

impl VectorFiles {
    /// Creates the folder and both files with their header lines.
    pub fn create(dir: &Path, sim: &Simulator) -> Result<VectorFiles, String> {
        let fail = |e: std::io::Error| {
            format!(
                "cannot write time series into {}: {e}; choose a writable --vectors folder",
                dir.display()
            )
        };
        std::fs::create_dir_all(dir).map_err(fail)?;
        let mut links = BufWriter::new(File::create(dir.join("links.csv")).map_err(fail)?);
        let mut tcp = BufWriter::new(File::create(dir.join("tcp.csv")).map_err(fail)?);
        writeln!(
            links,
            "time_s,link,from_port,queue_packets,queue_bytes,utilisation"
        )
        .map_err(fail)?;
        writeln!(
            tcp,
            "time_s,src_rank,dst_rank,cwnd_bytes,srtt_us,unacked_bytes"
        )
        .map_err(fail)?;
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
        })
    }

    /// Appends the samples taken since the last flush.
    pub fn flush(&mut self, sim: &mut Simulator) -> Result<(), String> {
        let s = sim.take_samples();
        let fail = |e: std::io::Error| {
            format!("cannot write time series into {}: {e}", self.dir.display())
        };
        for r in &s.links {
            writeln!(
                self.links,
                "{:.9},{},{},{},{:.6}",
                r.t_ns as f64 / 1e9,
                self.port_label[r.port as usize],
                r.queue_packets,
                r.queue_bytes,
                r.utilisation
            )
            .map_err(fail)?;
        }
        for r in &s.tcp {
            let srtt = r
                .srtt_ns
                .map(|v| format!("{:.3}", v as f64 / 1e3))
                .unwrap_or_default();
            writeln!(
                self.tcp,
                "{:.9},{},{},{},{srtt},{}",
                r.t_ns as f64 / 1e9,
                r.src_rank,
                r.dst_rank,
                r.cwnd_bytes,
                r.unacked_bytes
            )
            .map_err(fail)?;
        }
        self.links.flush().map_err(fail)?;
        self.tcp.flush().map_err(fail)
    }
}
