//! CUBIC in the packet simulator: one loss on an otherwise clean path
//! (h0 — s — h1, 10 Gbps, 25 ms a link, so a 100 ms round trip and a
//! bandwidth-delay product far above the window: no queue ever builds),
//! then the congestion window must follow RFC 9438's curve
//! W(t) = C·(t − K)³ + W_max, K = ∛(W_max·(1 − β)/C), C = 0.4, β = 0.7.
//!
//! On such a path the ACKs of a window come back as one burst per round
//! trip and the window is flat between bursts. Each ACK moves the window
//! by (W(t + RTT) − cwnd)/cwnd, so a burst of cwnd ACKs closes most of the
//! gap to the curve one round trip ahead (1 − 1/e of it: the increments
//! shrink as the window grows): the window stays within one round trip of
//! the curve, W(t − RTT) − 1 ≤ cwnd ≤ W(t + RTT) + 1 segments. (With ACKs
//! spread evenly over the round trip the window is within one segment of
//! W(t) itself: the unit test in src/tcp/congestion/cubic.rs.)

use bytes::Bytes;
use netsim::tcp::congestion::{CUBIC_BETA, CUBIC_C};
use netsim::{Nanos, NetworkConfig, Simulator};

const MSS: f64 = 1460.0;
const RTT_S: f64 = 0.1;
/// Sampling interval of the window.
const SAMPLE_NS: u64 = 1_000_000;

/// The window samples (t in s, cwnd in segments) of h0 → h1 sending 120
/// MB with `congestion`, one data frame lost on s–h1 in [625.05, 625.05123] ms (in
/// slow start's sixth burst of 320 segments, which leaves h0 at 600 ms).
fn run(congestion: &str) -> Vec<(f64, f64)> {
    let toml = format!(
        "seed = 1\n[link_defaults]\nrate='10Gbps'\ndelay='25ms'\n\
         [tcp]\ndelayed_ack='0'\nsack=true\nreceive_window='256MiB'\ncongestion='{congestion}'\n\
         [[host]]\nname='h0'\n[[host]]\nname='h1'\n[[switch]]\nname='s'\n\
         [[link]]\na='h0'\nb='s'\n[[link]]\na='h1'\nb='s'\n\
         [[fault]]\nlink='h1-s'\nloss=0.999999999\nat='625050000ns'\nfor='1230ns'\n"
    );
    let cfg = NetworkConfig::from_toml_str(&toml, "cubic").unwrap();
    let mut sim = Simulator::from_config(&cfg, "cubic", 2, false).unwrap();
    sim.enable_vectors(Nanos(SAMPLE_NS));
    sim.inject(0, 1, Bytes::from(vec![5u8; 120 << 20]), Nanos::ZERO)
        .unwrap();
    while sim.step().is_some() {}
    let mut out = Vec::new();
    sim.take_deliveries(&mut out);
    assert_eq!(out.len(), 1, "the message arrives");
    let stats = sim.stats();
    let lost: u64 = stats.links.iter().map(|l| l.drops_loss).sum();
    assert_eq!(lost, 1, "the fault drops one frame");
    let c = stats.connections.iter().find(|c| c.src_rank == 0).unwrap();
    assert_eq!(c.stats.timeouts, 0, "recovered without a timeout");
    sim.take_samples()
        .tcp
        .iter()
        .filter(|s| s.src_rank == 0)
        .map(|s| (s.t_ns as f64 / 1e9, s.cwnd_bytes as f64 / MSS))
        .collect()
}

/// (the window right after the reduction, segments; the sample index
/// where growth after it begins). The window at the loss itself falls
/// between two samples (slow start grows it within the ACK burst), so
/// W_max is found from the reductions: both runs are the same until the
/// loss is detected.
fn reduction(samples: &[(f64, f64)]) -> (f64, usize) {
    let drop = (1..samples.len())
        .find(|&i| samples[i].1 < samples[i - 1].1)
        .unwrap();
    let low = samples[drop].1;
    let start = (drop..samples.len())
        .find(|&i| samples[i].1 > low + 0.5)
        .unwrap();
    (samples[start - 1].1, start)
}

#[test]
fn after_one_loss_cubic_follows_its_curve_where_newreno_halves() {
    let (newreno, _) = reduction(&run("newreno"));
    let samples = run("cubic");
    let (reduced, start) = reduction(&samples);
    // The same window W before the loss: NewReno leaves W/2, CUBIC β·W.
    let w_max = reduced / CUBIC_BETA;
    assert!(
        (newreno - w_max / 2.0).abs() <= 1.0,
        "NewReno {newreno}, CUBIC {reduced}"
    );
    assert!(
        w_max > 320.0,
        "the loss came in slow start's sixth burst: {w_max}"
    );
    let k = (w_max * (1.0 - CUBIC_BETA) / CUBIC_C).cbrt();
    let w = |t: f64| CUBIC_C * (t - k).powi(3) + w_max;
    // CUBIC's epoch begins at the first ACK in congestion avoidance: when,
    // after recovery, the window is back at the threshold β·W_max (the
    // last sample before the one that shows it there).
    let settled = (0..start)
        .rev()
        .take_while(|&i| (samples[i].1 - reduced).abs() < 0.01)
        .last()
        .unwrap();
    let t0 = samples[settled - 1].0;
    let dt = SAMPLE_NS as f64 / 1e9;
    let mut checked = 0;
    for &(t, cwnd) in &samples[start..] {
        let since = t - t0;
        if since > 2.0 * k {
            break;
        }
        let (low, high) = (w(since - RTT_S - dt) - 1.0, w(since + RTT_S + dt) + 1.0);
        assert!(
            (low..=high).contains(&cwnd),
            "t = {since:.4} s after the reduction: cwnd {cwnd:.2} segments, curve {:.2}..{:.2} (W_max {w_max:.1}, K {k:.3} s)",
            w(since - RTT_S),
            w(since + RTT_S)
        );
        checked += 1;
    }
    // The samples cover the concave and the convex part, up to 2 K.
    assert!(checked as f64 * dt > 1.9 * k, "{checked} samples, K {k}");
}
