//! A standalone `mpinetsim gateway` for tests: started (optionally under a
//! wrapper such as `ip netns exec NS`), the environment it printed parsed,
//! rank processes built from it, and its end awaited.

use super::{bin, config, ensure_shim};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running standalone gateway and the environment it printed.
pub struct StandaloneGateway {
    /// The gateway process.
    pub child: Child,
    /// LD_LIBRARY_PATH it printed.
    pub lib_dir: String,
    /// MPINETSIM_GATEWAY it printed (its first address).
    pub gateway: String,
    /// The other addresses it printed.
    pub more_addresses: Vec<String>,
    /// MPINETSIM_JOB.
    pub job: String,
    /// The job secret, read from the file it printed.
    pub secret: String,
    /// MPINETSIM_SECRET_FILE it printed.
    pub secret_file: String,
    /// Everything it printed up to and including the suggested mpiexec
    /// line.
    pub printed: String,
    /// Where its JSON report goes.
    pub report: PathBuf,
    /// A folder of its own for the test.
    pub dir: PathBuf,
}

/// Starts `mpinetsim gateway -n RANKS --net reference.toml --report ...`
/// with `args`, under `wrapper` (empty: directly), in a fresh folder named
/// after `name`; returns once it printed the rank environment.
pub fn start_gateway_with(
    name: &str,
    ranks: &str,
    wrapper: &[&str],
    args: &[&str],
) -> StandaloneGateway {
    ensure_shim();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("gw-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let report = dir.join("report.json");
    let mut cmd = match wrapper.split_first() {
        Some((w, rest)) => {
            let mut c = Command::new(w);
            c.args(rest).arg(bin());
            c
        }
        None => Command::new(bin()),
    };
    let mut child = cmd
        .args(["gateway", "-n", ranks, "--net", &config("reference.toml")])
        .args(args)
        .arg("--report")
        .arg(&report)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start mpinetsim gateway");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let (mut lib_dir, mut gateway, mut job, mut secret_file) =
        (String::new(), String::new(), String::new(), String::new());
    let mut more_addresses = Vec::new();
    let mut printed = String::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        printed.push_str(&line);
        printed.push('\n');
        let value = |k: &str| line.trim().strip_prefix(k).map(str::to_string);
        if let Some(v) = value("LD_LIBRARY_PATH=") {
            lib_dir = v;
        } else if let Some(v) = value("MPINETSIM_GATEWAY=") {
            gateway = v;
        } else if let Some(v) = value("MPINETSIM_JOB=") {
            job = v;
        } else if let Some(v) = value("MPINETSIM_SECRET_FILE=") {
            secret_file = v;
        } else if let Some(v) = value("(or MPINETSIM_GATEWAY=") {
            more_addresses.push(v.trim_end_matches(')').to_string());
        } else if line.starts_with("e.g. mpiexec") {
            break;
        }
    }
    assert!(
        !lib_dir.is_empty() && !gateway.is_empty() && !job.is_empty(),
        "the gateway printed no environment"
    );
    let secret = std::fs::read_to_string(&secret_file)
        .unwrap_or_else(|e| panic!("the secret file {secret_file}: {e}"))
        .trim()
        .to_string();
    assert_eq!(secret.len(), 32, "a 128-bit secret in hex");
    // Keep draining its stdout so the gateway never writes into a closed pipe.
    std::thread::spawn(move || for _ in lines {});
    StandaloneGateway {
        child,
        lib_dir,
        gateway,
        more_addresses,
        job,
        secret,
        secret_file,
        printed,
        report,
        dir,
    }
}

/// A gateway listening on a Unix socket in the test's folder.
pub fn start_gateway(name: &str, ranks: &str) -> StandaloneGateway {
    let sock = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("gw-{name}"))
        .join("gw.sock");
    let listen = format!("unix:{}", sock.display());
    start_gateway_with(name, ranks, &[], &["--listen", &listen])
}

impl StandaloneGateway {
    /// The TCP port of a `tcp:` address it printed.
    pub fn tcp_port(&self) -> u16 {
        std::iter::once(&self.gateway)
            .chain(&self.more_addresses)
            .find(|a| a.starts_with("tcp:"))
            .and_then(|a| a.rsplit(':').next())
            .and_then(|p| p.parse().ok())
            .expect("a tcp: address")
    }

    /// `program` as rank `rank` of `size`, with the printed environment
    /// (PMI variables as hydra sets them) and `gateway` as the address.
    pub fn rank_command(
        &self,
        wrapper: &[&str],
        gateway: &str,
        program: &Path,
        args: &[&str],
        rank: u32,
        size: u32,
    ) -> Command {
        let mut c = match wrapper.split_first() {
            Some((w, rest)) => {
                let mut c = Command::new(w);
                c.args(rest).arg(program);
                c
            }
            None => Command::new(program),
        };
        c.args(args)
            .env("LD_LIBRARY_PATH", &self.lib_dir)
            .env("MPINETSIM_GATEWAY", gateway)
            .env("MPINETSIM_JOB", &self.job)
            .env("MPINETSIM_SECRET", &self.secret)
            .env("PMI_RANK", rank.to_string())
            .env("PMI_SIZE", size.to_string())
            .stdin(Stdio::null());
        c
    }

    /// Waits for the gateway to end (at most 60 s); its exit code, stderr
    /// and JSON report.
    pub fn finish(mut self) -> (i32, String, Option<serde_json::Value>) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(st) = self.child.try_wait().unwrap() {
                let mut err = String::new();
                std::io::Read::read_to_string(self.child.stderr.as_mut().unwrap(), &mut err)
                    .unwrap();
                let report = std::fs::read_to_string(&self.report)
                    .ok()
                    .map(|t| serde_json::from_str(&t).unwrap());
                return (st.code().unwrap_or(-1), err, report);
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the standalone gateway did not end");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for StandaloneGateway {
    /// A test that fails half-way never leaves a gateway waiting for ranks.
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
