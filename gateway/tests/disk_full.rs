//! Captures, time series, reports and timelines larger than the disk: the
//! run stops with one sentence naming the file; every capture file left
//! behind is valid (cut at its last whole packet), every CSV ends at a
//! whole row, and a report or timeline is written whole or not at all (the
//! previous one stays). The small disk is a tmpfs, which needs root to
//! mount; elsewhere the tests say they are skipped (in CI they fail).

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A tmpfs mounted for the test and unmounted when dropped.
struct SmallDisk {
    dir: PathBuf,
    _holder: tempfile::TempDir,
}

impl SmallDisk {
    /// Mounts a tmpfs of `size` ("512k") on a new folder, or says why not.
    fn mount(size: &str) -> Result<SmallDisk, String> {
        let holder = tempfile::tempdir().map_err(|e| e.to_string())?;
        let dir = holder.path().join("disk");
        std::fs::create_dir(&dir).map_err(|e| e.to_string())?;
        let o = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&dir)
            .output()
            .map_err(|e| format!("cannot run mount: {e}"))?;
        if !o.status.success() {
            return Err(String::from_utf8_lossy(&o.stderr).trim().to_string());
        }
        Ok(SmallDisk {
            dir,
            _holder: holder,
        })
    }

    fn path(&self) -> &Path {
        &self.dir
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.dir).status();
    }
}

#[test]
fn a_full_disk_stops_the_run_and_leaves_valid_truncated_captures() {
    if skip_without_mpicc() || skip_without_tshark() {
        return;
    }
    let Some(disk) = small_disk("512k") else {
        return;
    };
    let prog = build_c("alltoall", "mpicc");
    let out = tempfile::tempdir().unwrap();
    let report = out.path().join("report.json");
    // 60 rounds of 64 KiB per pair put tens of MB on the nine capture
    // points of the reference network: far more than the 512 KiB disk.
    let o = run(
        &[
            "-n",
            "4",
            "--net",
            &config("reference.toml"),
            "--time-factor",
            "2",
            "--capture",
            disk.path().to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
        ],
        &prog,
        &["60", "65536"],
    );
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(4), "{err}");
    let line = err
        .lines()
        .find(|l| l.contains("cannot write capture file"))
        .unwrap_or_else(|| panic!("no capture error in:\n{err}"));
    assert!(
        line.contains("No space left on device")
            && line.contains("ends at its last whole packet")
            && line.contains("the ranks were stopped"),
        "{line}"
    );
    // The report, on another disk, was written and says why the job ended.
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(r["outcome"], "capture_failed");
    assert!(
        r["reason"]
            .as_str()
            .unwrap()
            .contains("No space left on device"),
        "{}",
        r["reason"]
    );
    // Every file is readable to its end; the one that hit the limit holds
    // the packets that fit.
    let files = assert_captures_valid(disk.path());
    let packets: u64 = files.iter().map(|(_, n)| n).sum();
    assert!(packets > 100, "{files:?}");
    let used: u64 = std::fs::read_dir(disk.path())
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    assert!(used <= 512 * 1024, "{used} bytes on a 512 KiB disk");
}

impl SmallDisk {
    /// Fills the disk until `free` bytes or fewer are left.
    fn fill_leaving(&self, free: u64) {
        use std::io::Write;
        let mut f = std::fs::File::create(self.dir.join("filler")).unwrap();
        let stat = nix::sys::statvfs::statvfs(&self.dir).unwrap();
        let avail = stat.blocks_available() as u64 * stat.fragment_size() as u64;
        let chunk = vec![0u8; 4096];
        let mut left = avail.saturating_sub(free);
        while left > 0 {
            let n = left.min(chunk.len() as u64) as usize;
            if f.write_all(&chunk[..n]).is_err() {
                break;
            }
            left -= n as u64;
        }
        let _ = f.sync_all();
    }

    /// The names in the disk's top folder other than the filler.
    fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&self.dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != "filler")
            .collect();
        v.sort();
        v
    }
}

/// The disk, or None after saying why not (a failure in CI).
fn small_disk(size: &str) -> Option<SmallDisk> {
    match SmallDisk::mount(size) {
        Ok(d) => Some(d),
        Err(why) => {
            skip_because(&format!(
                "cannot mount a small tmpfs to fill ({why}); run the tests as root"
            ));
            None
        }
    }
}

#[test]
fn a_full_disk_never_leaves_an_empty_or_partial_report_or_timeline() {
    if skip_without_mpicc() {
        return;
    }
    let Some(disk) = small_disk("512k") else {
        return;
    };
    let prog = build_c("alltoall", "mpicc");
    // The previous run's report is there; the disk is full when the job
    // ends (its captures filled it).
    let report = disk.path().join("report.json");
    std::fs::write(&report, b"{\"the previous run\": true}\n").unwrap();
    let timeline = disk.path().join("timeline.json");
    let caps = disk.path().join("caps");
    let o = run(
        &[
            "-n",
            "4",
            "--net",
            &config("reference.toml"),
            "--time-factor",
            "2",
            "--capture",
            caps.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
            "--timeline",
            timeline.to_str().unwrap(),
        ],
        &prog,
        &["60", "65536"],
    );
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(4), "{err}");
    let said: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("mpinetsim: cannot write"))
        .collect();
    // First why the job stopped (the captures), then what became of the
    // timeline and of the report.
    assert_eq!(said.len(), 3, "{err}");
    assert!(
        said[0].contains("cannot write capture file")
            && said[0].ends_with("the ranks were stopped"),
        "{err}"
    );
    assert!(
        said[1].starts_with(&format!(
            "mpinetsim: cannot write --timeline {} (No space left on device",
            timeline.display()
        )) && said[1].contains("the previous file, if any, was kept"),
        "{err}"
    );
    assert!(
        said[2].starts_with(&format!(
            "mpinetsim: cannot write --report {} (No space left on device",
            report.display()
        )) && said[2].contains("the previous file, if any, was kept"),
        "{err}"
    );
    // The old report is intact, no timeline exists, no temporary file is
    // left behind.
    assert_eq!(
        std::fs::read(&report).unwrap(),
        b"{\"the previous run\": true}\n"
    );
    assert_eq!(disk.names(), ["caps", "report.json"], "{err}");
}

#[test]
fn a_full_disk_under_vectors_leaves_whole_rows_and_one_sentence() {
    if skip_without_mpicc() {
        return;
    }
    let Some(disk) = small_disk("1m") else {
        return;
    };
    let prog = build_c("alltoall", "mpicc");
    let vectors = disk.path().join("vectors");
    // Room for the headers and a few flushes, far less than the run's
    // series (one row per link direction every 100 us of virtual time).
    disk.fill_leaving(48 * 1024);
    let o = run(
        &[
            "-n",
            "4",
            "--net",
            &config("reference.toml"),
            "--time-factor",
            "2",
            "--vectors",
            vectors.to_str().unwrap(),
        ],
        &prog,
        &["60", "65536"],
    );
    let (_, err) = text(&o);
    assert_ne!(o.status.code(), Some(0), "{err}");
    let sentence = format!("cannot write the time series into {}", vectors.display());
    assert_eq!(err.matches(&sentence).count(), 1, "said once:\n{err}");
    let line = err.lines().find(|l| l.contains(&sentence)).unwrap();
    assert!(
        line.contains("No space left on device") && line.contains("end at their last whole row"),
        "{line}"
    );
    for (name, header) in [
        (
            "links.csv",
            "time_s,link,from_port,queue_packets,queue_bytes,utilisation",
        ),
        (
            "tcp.csv",
            "time_s,src_rank,dst_rank,cwnd_bytes,srtt_us,unacked_bytes",
        ),
    ] {
        let text = std::fs::read_to_string(vectors.join(name)).unwrap();
        assert!(text.ends_with('\n'), "{name} ends mid-row");
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(header));
        let fields = header.split(',').count();
        for l in lines {
            assert_eq!(l.split(',').count(), fields, "{name}: {l:?}");
        }
    }
}
