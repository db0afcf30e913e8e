#!/usr/bin/env bash
# Issue 24's convergence comparison: `mpinetsim calibrate` of a 10,000 x
# 32-byte ping-pong (2 ranks) and of an 8-rank all-to-all on
# configs/hpc-fat-tree.toml, with --transport socket and --transport shm
# side by side, the transports alternating program by program. Prints each
# calibration's recommended factor, its wall time, and the emulated
# runtime at the recommended factor and at the next one up.
# Usage: bench/calibrate-transports.sh [max factor] [repeat]
#        (defaults: 1024 3)
# NET chooses the network (default configs/hpc-fat-tree.toml); A2A_BYTES
# and A2A_ITERS the all-to-all (default 4096 bytes per pair, 50 times);
# TOLERANCE the relative change that counts as converged (default 0.01,
# issue 24's 1 %; calibrate's own default is 0.05); KEEP a folder to copy
# each calibration's output to; SET one `--set KEY=VALUE` for every run
# (e.g. topology.cpu_threshold=1ms, so that only the network and MPI make
# the runtime).
# Besides calibrate's recommendation (every larger factor agrees), the
# table gives issue 24's convergence: the smallest factor whose median
# runtime is within TOLERANCE of the next factor up's.
set -euo pipefail
cd "$(dirname "$0")/.."
max="${1:-1024}"
repeat="${2:-3}"
net="${NET:-configs/hpc-fat-tree.toml}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

cargo build --release -q --workspace
bin="${CARGO_TARGET_DIR:-target}/release/mpinetsim"
mpicc -O2 -o "$tmp/pingpong" tests/mpi/pingpong.c
mpicc -O2 -o "$tmp/alltoall" tests/mpi/alltoall_timed.c

# calibrate NAME RANKS TRANSPORT PROGRAM ARGS... -> one table row
calibrate() {
  local name="$1" ranks="$2" transport="$3"
  shift 3
  local out="$tmp/$name-$transport" start end
  start=$(date +%s.%N)
  local sets=()
  if [ -n "${SET:-}" ]; then sets=(--set "$SET"); fi
  "$bin" calibrate -n "$ranks" --net "$net" "${sets[@]}" --max "$max" --repeat "$repeat" \
    --tolerance "${TOLERANCE:-0.01}" --transport "$transport" --out "$out" -- "$@" >"$out.log" 2>&1 \
    || true # exit status 1: no convergence up to the largest factor
  end=$(date +%s.%N)
  if [ -n "${KEEP:-}" ]; then cp -r "$out" "$KEEP/$name-$transport"; fi
  python3 - "$out/calibration.json" "$name" "$transport" "$(echo "$end - $start" | bc -l)" "${TOLERANCE:-0.01}" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
tolerance = float(sys.argv[5])
rec = d.get("recommended_factor")
rows = {r["factor"]: r for r in d["factors"]}
fs = sorted(rows)
def runtime(f):
    return rows[f]["runtime_s"] if f in rows else float("nan")
if rec is None:  # not converged: show the two largest factors
    rec_shown, here, up = "none", runtime(fs[-2]), runtime(fs[-1])
else:
    nxt = next((f for f in fs if f > rec), None)
    rec_shown, here, up = rec, runtime(rec), runtime(nxt) if nxt else float("nan")
# Issue 24's convergence: runtime within the tolerance of the next factor up.
next_up = next((f for f, g in zip(fs, fs[1:])
                if abs(runtime(g) - runtime(f)) <= tolerance * runtime(f)), None)
print(f"{sys.argv[2]:<10} {sys.argv[3]:<7} {str(rec_shown):>11} {str(next_up):>8} {float(sys.argv[4]):>9.1f} "
      f"{here:>12.6f} {up:>12.6f} {100 * (up - here) / here:>+8.2f}")
EOF
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min), $(nproc) cores; network $net"
printf '%-10s %-7s %11s %8s %9s %12s %12s %8s\n' program transport recommended next_up wall_s \
  runtime_s next_up_s "diff %"
for t in socket shm; do
  calibrate pingpong 2 "$t" "$tmp/pingpong" 10000 32
done
for t in socket shm; do
  calibrate alltoall 8 "$t" "$tmp/alltoall" "${A2A_BYTES:-4096}" "${A2A_ITERS:-50}"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
