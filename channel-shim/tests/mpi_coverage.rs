//! docs/mpi-coverage.md must match what the shim implements. When it does
//! not, rerun with `MPINETSIM_BLESS=1` to rewrite it.

use std::path::Path;

const BLESS_COMMAND: &str = "MPINETSIM_BLESS=1 cargo test -p channel-shim --test mpi_coverage";

#[test]
fn coverage_document_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/mpi-coverage.md");
    let expected = channel_shim::abi::coverage_markdown();
    if std::env::var_os("MPINETSIM_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &expected)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        println!("wrote {}", path.display());
        return;
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    if actual != expected {
        let first_difference = actual
            .lines()
            .zip(expected.lines())
            .position(|(a, b)| a != b)
            .map(|i| i + 1)
            .unwrap_or(actual.lines().count().min(expected.lines().count()) + 1);
        panic!(
            "docs/mpi-coverage.md is stale (first difference at line {first_difference}); run: {BLESS_COMMAND}"
        );
    }
}
