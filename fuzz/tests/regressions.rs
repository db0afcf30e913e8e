//! Replays every fuzz target's seeds and every input that once made a
//! target fail (`fuzz/regressions/TARGET/`, one file each, named after
//! what it found) through the same harnesses libFuzzer runs, so a fixed
//! crash stays fixed without a fuzzer. The bundled network files are seeds
//! of `network_toml` too.

use mpinetsim_fuzz::{Harness, TARGETS};
use std::path::{Path, PathBuf};

fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = entries
        .map(|e| e.expect("a readable folder").path())
        .filter(|p| p.is_file())
        .collect();
    v.sort();
    v
}

fn replay(target: &str, f: Harness, dirs: &[PathBuf]) -> usize {
    let mut n = 0;
    for dir in dirs {
        for file in files(dir) {
            let data = std::fs::read(&file).expect("readable");
            eprintln!("{target}: {}", file.display());
            f(&data);
            n += 1;
        }
    }
    n
}

#[test]
fn every_seed_and_regression_passes_its_harness() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR"));
    for &(target, f) in TARGETS {
        let mut dirs = vec![
            fuzz.join("seeds").join(target),
            fuzz.join("regressions").join(target),
        ];
        if target == "network_toml" {
            dirs.push(fuzz.join("../configs"));
        }
        let n = replay(target, f, &dirs);
        assert!(n > 0, "{target} has no seeds in {}", dirs[0].display());
    }
}
