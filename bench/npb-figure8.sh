#!/usr/bin/env bash
# The MPI-NeTSim paper's Figure 8 as a scripted experiment: the slow-down of
# six NAS Parallel Benchmarks (class W, 4 ranks) when rank 0 moves behind a
# 100 Mbps link and an extra 1 ms router hop (configs/slow-rank0.toml)
# compared with the reference network (configs/reference.toml).
#
#   bench/npb-figure8.sh [OUT_DIR]
#
# Environment:
#   NPB_DIR      a built NPB3.4-MPI tree (bin/is.W.x …); fetched from GitHub
#                (mbdevpl/nas-parallel-benchmarks) and built with Debian's
#                mpif90/mpicc under OUT_DIR when unset
#   BENCHMARKS   which ones, default "is bt lu mg cg ep"
#   REPEAT       runs per network and benchmark, default 3 (the median is
#                compared; the spread is min..max of the runs)
#   MAX_FACTOR   largest time factor `calibrate` may try, default 32
#   FACTOR       skip calibration and use this factor for every benchmark
#   MPINETSIM    the mpinetsim binary to use (its shim libraries beside it);
#                default: this checkout's, built in release
#   CPU_SPEEDS   `[topology] cpu_speed` values to run, default "1 0.25"
#                (0.25 approximates the paper's 2009 cluster, see
#                docs/fidelity.md)
#
# Writes OUT_DIR/figure8.md (the table docs/fidelity.md quotes), one
# compare JSON and the ranks' output per benchmark and speed, and exits
# non-zero if any run's NPB verification is not SUCCESSFUL.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-/tmp/mpinetsim-figure8}")
mkdir -p -m 0700 "$out"
benchmarks=${BENCHMARKS:-is bt lu mg cg ep}
repeat=${REPEAT:-3}
max_factor=${MAX_FACTOR:-32}
speeds=${CPU_SPEEDS:-1 0.25}
ranks=4

if [ -z "${MPINETSIM:-}" ]; then
  cargo build --release --manifest-path "$root/Cargo.toml" >&2
fi
mpinetsim=${MPINETSIM:-$root/target/release/mpinetsim}

# ---- the benchmarks ----
if [ -z "${NPB_DIR:-}" ]; then
  NPB_DIR=$out/npb/NPB3.4-MPI
  if [ ! -d "$NPB_DIR" ]; then
    git clone --quiet --depth 1 https://github.com/mbdevpl/nas-parallel-benchmarks "$out/npb"
  fi
  # Our build settings for Debian's MPICH wrappers (gfortran 10+ needs
  # -fallow-argument-mismatch for the benchmarks' untyped buffers).
  cat >"$NPB_DIR/config/make.def" <<'EOF'
MPIFC = mpif90
FLINK = $(MPIFC)
FFLAGS = -O3 -fallow-argument-mismatch
FLINKFLAGS = $(FFLAGS)
MPICC = mpicc
CLINK = $(MPICC)
CFLAGS = -O3
CLINKFLAGS = $(CFLAGS)
CC = gcc
BINDIR = ../bin
RAND = randi8
EOF
fi
for b in $benchmarks; do
  if [ ! -x "$NPB_DIR/bin/$b.W.x" ]; then
    make -C "$NPB_DIR" "$b" CLASS=W >"$out/build-$b.log" 2>&1 ||
      { echo "npb-figure8: building $b failed; see $out/build-$b.log" >&2; exit 1; }
  fi
done

# ---- networks with a CPU speed ----
network_with_speed() { # NAME SPEED -> path of a network file
  local name=$1 speed=$2 file
  if [ "$speed" = 1 ]; then
    echo "$root/configs/$name.toml"
    return
  fi
  file=$out/$name-cpu$speed.toml
  { cat "$root/configs/$name.toml"; printf '\n[topology]\ncpu_speed = %s\n' "$speed"; } >"$file"
  echo "$file"
}

# The paper's Figure 8, read off its bars and text (percent).
paper() {
  case $1 in is) echo "+166" ;; bt|lu|mg) echo "≈ +50" ;; cg) echo "+19" ;; ep) echo "≈ 0" ;; esac
}

table=$out/figure8.md
{
  echo "| benchmark | cpu_speed | factor | reference runtime (s) | slow-rank0 runtime (s) | slow-down | spread of the slow-down | paper |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
} >"$table"
failed=0
for speed in $speeds; do
  ref=$(network_with_speed reference "$speed")
  slow=$(network_with_speed slow-rank0 "$speed")
  for b in $benchmarks; do
    bin=$NPB_DIR/bin/$b.W.x
    tag=$b-cpu$speed
    factor=${FACTOR:-}
    if [ -z "$factor" ]; then
      # The slow network has the longer transfers; calibrate on the
      # reference, whose short messages make the gateway's work densest.
      "$mpinetsim" calibrate -n $ranks --net "$ref" --max "$max_factor" \
        --out "$out/calibrate-$tag" -- "$bin" >"$out/calibrate-$tag.log" 2>&1 || true
      factor=$(python3 -c 'import json,sys; f=json.load(open(sys.argv[1])).get("recommended_factor"); print(f if f else "")' \
        "$out/calibrate-$tag/calibration.json")
      if [ -z "$factor" ]; then
        echo "npb-figure8: $tag did not converge up to factor $max_factor; using $max_factor ($out/calibrate-$tag.log)" >&2
        factor=$max_factor
      fi
    fi
    rm -f "$out/$tag.out"
    "$mpinetsim" compare -n $ranks --time-factor "$factor" --repeat "$repeat" \
      --net "$ref" --net "$slow" --report "$out/$tag.json" --rank-output "$out/$tag.out" \
      -- "$bin" >"$out/$tag.log" 2>&1
    runs=$((2 * repeat))
    ok=$(grep -c 'Verification *= *SUCCESSFUL' "$out/$tag.out" || true)
    if [ "$ok" -ne "$runs" ]; then
      echo "npb-figure8: $tag verified $ok of $runs runs; see $out/$tag.out" >&2
      failed=1
    fi
    python3 - "$out/$tag.json" "$b" "$speed" "$factor" "$(paper "$b")" >>"$table" <<'EOF'
import json, sys
path, bench, speed, factor, paper = sys.argv[1:]
ref, slow = json.load(open(path))["rows"]
r = sorted(ref["runtimes_s"])
s = sorted(slow["runtimes_s"])
pct = lambda a, b: 100.0 * (b / a - 1.0)
med = pct(ref["runtime_s"], slow["runtime_s"])
lo, hi = pct(r[-1], s[0]), pct(r[0], s[-1])
rng = lambda v: f"{v[len(v)//2]:.3f} ({v[0]:.3f}–{v[-1]:.3f})"
print(f"| {bench} | {speed} | {factor} | {rng(r)} | {rng(s)} | {med:+.0f} % | {lo:+.0f} … {hi:+.0f} % | {paper} % |")
EOF
  done
done
cat "$table"
exit $failed
