//! The JSON reports are a contract (issue 22 item 9): docs/report.schema.json
//! is generated from the report types, and real reports of short runs
//! validate against it.
//!
//! After changing a report type, regenerate the file with
//! `MPINETSIM_WRITE_SCHEMA=1 cargo test --release -p gateway --test report_schema`
//! and describe the change in docs/user-guide.md (raise
//! `gateway::report::SCHEMA_VERSION` when a field goes away or changes
//! meaning).

mod common;

use common::{bin, build_c, config, ensure_shim, run_with_report, skip_without_mpicc};
use serde_json::Value;
use std::process::Command;

fn schema_path() -> std::path::PathBuf {
    common::root().join("docs/report.schema.json")
}

fn validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(schema_path()).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::validator_for(&schema).expect("docs/report.schema.json is a valid JSON Schema")
}

/// Asserts `report` validates, listing every violation otherwise.
fn assert_valid(report: &Value) {
    let v = validator();
    let errors: Vec<String> = v
        .iter_errors(report)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "the report does not match docs/report.schema.json:\n{}",
        errors.join("\n")
    );
}

#[test]
fn the_schema_file_is_the_one_the_types_generate() {
    let generated = gateway::report::schema_json();
    if std::env::var_os("MPINETSIM_WRITE_SCHEMA").is_some() {
        std::fs::write(schema_path(), &generated).unwrap();
    }
    let shipped = std::fs::read_to_string(schema_path()).unwrap_or_default();
    assert!(
        shipped == generated,
        "docs/report.schema.json differs from the schema of gateway::report::Report; regenerate it with MPINETSIM_WRITE_SCHEMA=1 cargo test --release -p gateway --test report_schema"
    );
}

#[test]
fn a_run_report_validates_and_a_wrong_outcome_does_not() {
    if skip_without_mpicc() {
        return;
    }
    ensure_shim();
    let prog = build_c("pingpong", "mpicc");
    let (o, report) = run_with_report("2", "reference.toml", "2", &prog, &["20", "32"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(report["report"], "run");
    assert_eq!(report["schema_version"], gateway::report::SCHEMA_VERSION);
    assert_eq!(report["outcome"], "completed");
    assert!(report["reason"].is_null());
    // 20 round trips: 40 messages from the ranks, 40 delivered.
    assert_eq!(report["messages_in"], 40);
    assert!(report["emulated_runtime_s"].as_f64().unwrap() > 0.0);
    for r in report["rank_reports"].as_array().unwrap() {
        assert!(r["pid"].as_u64().unwrap() > 0);
        assert!(r["host"].is_string());
    }
    assert_valid(&report);

    // The schema constrains: an outcome outside the enum, a missing
    // version or a string where a count belongs is refused.
    let v = validator();
    let mut wrong = report.clone();
    wrong["outcome"] = "finished".into();
    assert!(!v.is_valid(&wrong));
    let mut wrong = report.clone();
    wrong.as_object_mut().unwrap().remove("schema_version");
    assert!(!v.is_valid(&wrong));
    let mut wrong = report;
    wrong["messages_in"] = "40".into();
    assert!(!v.is_valid(&wrong));
}

#[test]
fn simulate_reports_validate_completed_and_failed() {
    let dir = tempfile::tempdir().unwrap();
    let rep = dir.path().join("r.json");
    let o = Command::new(bin())
        .args(["simulate", "--net", &config("reference.toml")])
        .args(["--workload", "pingpong", "--size", "1KiB", "--iters", "10"])
        .args(["--report", rep.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&rep).unwrap()).unwrap();
    assert_eq!(report["report"], "simulate");
    assert_eq!(report["outcome"], "completed");
    assert!(report["failure"].is_null());
    // A ping-pong of 10 iterations: 10 messages each way.
    assert_eq!(report["result"]["messages"], 20);
    assert_valid(&report);

    // A partition that outlasts its timeout: the run's result is unknown.
    let net = dir.path().join("star.toml");
    std::fs::write(
        &net,
        std::fs::read_to_string(config("reference.toml")).unwrap()
            + "\n[faults]\npartition_timeout = '1s'\n",
    )
    .unwrap();
    let o = Command::new(bin())
        .args(["simulate", "--net", net.to_str().unwrap()])
        .args(["--workload", "ring", "--iters", "1000"])
        .args(["--fault", "link host2-switch0 down at 10ms"])
        .args(["--report", rep.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&rep).unwrap()).unwrap();
    assert_eq!(report["outcome"], "network_failed");
    assert!(report["result"].is_null());
    assert!(report["wall_s"].is_null());
    assert!(report["failure"]["at_ns"].as_u64().unwrap() > 0);
    assert_valid(&report);
}
