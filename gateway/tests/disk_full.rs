//! Captures larger than the disk: the run stops with one sentence naming
//! the file, and every capture file left behind is valid (cut at its last
//! whole packet). The small disk is a 512 KiB tmpfs, which needs root to
//! mount; elsewhere the test says it is skipped.

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
    let disk = match SmallDisk::mount("512k") {
        Ok(d) => d,
        Err(why) => {
            eprintln!("SKIPPED: cannot mount a small tmpfs to fill ({why}); run the tests as root");
            return;
        }
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
    assert_eq!(o.status.code(), Some(1), "{err}");
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
    assert!(
        r["outcome"]
            .as_str()
            .unwrap()
            .contains("No space left on device"),
        "{}",
        r["outcome"]
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
