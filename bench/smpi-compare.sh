#!/usr/bin/env bash
# mpinetsim's record/replay side by side with SimGrid's SMPI on the same
# question: NPB 3.4 class W, 4 ranks, on configs/reference.toml and
# configs/slow-rank0.toml (the MPI-NeTSim paper's Figure 8 networks).
#
#   bench/smpi-compare.sh [OUT_DIR]
#
# SMPI runs each benchmark built with its own compiler wrappers (smpiff,
# smpicc) on two SimGrid platforms written here to match the network
# files: four hosts, one 1 Gbps link of 500 µs each to a switch; on
# slow-rank0 host 0's link is 100 Mbps and reaches the switch through a
# router over a further 1 Gbps, 1 ms link. SimGrid's CM02 network model
# (max-min sharing, latency + size / bandwidth, no correction factors:
# the default LV08's factors are calibrated for short cluster links) and
# a host speed equal to `smpi/host-speed`, so computation takes the time
# it took on this machine. mpinetsim records each benchmark once on the
# reference network (`run --record` at FACTOR) and replays the trace on
# both networks.
#
# Environment:
#   NPB_SRC      an NPB3.4-MPI tree to copy (default: /tmp/npb/NPB3.4-MPI,
#                else fetched from GitHub mbdevpl/nas-parallel-benchmarks)
#   BENCHMARKS   default "is bt lu mg cg ep"
#   FACTOR       time factor of the recorded runs, default 64
#   NPB_BIN      the mpicc/mpif90 builds of NPB for the recording (default
#                $NPB_SRC/bin)
#   TRACES       a folder of traces already recorded (X.mnt), to skip recording
#   MPINETSIM    the mpinetsim binary (default: this checkout's release build)
#
# Needs Debian's simgrid and libsimgrid-dev (3.32): `apt-get install
# simgrid libsimgrid-dev`. Writes OUT_DIR/smpi-compare.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-/tmp/mpinetsim-smpi}")
mkdir -p -m 0700 "$out"
benchmarks=${BENCHMARKS:-is bt lu mg cg ep}
factor=${FACTOR:-64}
command -v smpirun >/dev/null || { echo "smpi-compare: smpirun not found; apt-get install simgrid libsimgrid-dev" >&2; exit 1; }
if [ -z "${MPINETSIM:-}" ]; then
  cargo build --release --manifest-path "$root/Cargo.toml" >&2
fi
mpinetsim=${MPINETSIM:-$root/target/release/mpinetsim}

src=${NPB_SRC:-/tmp/npb/NPB3.4-MPI}
if [ ! -d "$src" ]; then
  git clone --quiet --depth 1 https://github.com/mbdevpl/nas-parallel-benchmarks "$out/npb-src"
  src=$out/npb-src/NPB3.4-MPI
fi
npb_bin=${NPB_BIN:-$src/bin}

# ---- NPB built for SMPI (position-independent: SMPI loads it as a library) ----
smpi_tree=$out/npb-smpi
if [ ! -d "$smpi_tree" ]; then
  cp -r "$src" "$smpi_tree"
  make -C "$smpi_tree" clean >/dev/null 2>&1 || true
  rm -f "$smpi_tree"/bin/*
  cat >"$smpi_tree/config/make.def" <<'EOF'
MPIFC = smpiff
FLINK = $(MPIFC)
FFLAGS = -O3 -fPIC -fallow-argument-mismatch -fallow-invalid-boz
FLINKFLAGS = $(FFLAGS)
MPICC = smpicc
CLINK = $(MPICC)
CFLAGS = -O3 -fPIC
CLINKFLAGS = $(CFLAGS)
CC = gcc
BINDIR = ../bin
RAND = randi8
EOF
fi
for b in $benchmarks; do
  if [ ! -x "$smpi_tree/bin/$b.W.x" ]; then
    make -C "$smpi_tree" "$b" CLASS=W >"$out/smpi-build-$b.log" 2>&1 ||
      { echo "smpi-compare: building $b for SMPI failed; see $out/smpi-build-$b.log" >&2; exit 1; }
  fi
  if [ ! -x "$npb_bin/$b.W.x" ]; then
    echo "smpi-compare: $npb_bin/$b.W.x is missing; build NPB with Debian's mpif90/mpicc (bench/npb-figure8.sh does)" >&2
    exit 1
  fi
done

# ---- the platforms ----
python3 - "$out" <<'EOF'
import sys
out = sys.argv[1]
def platform(slow):
    first = (['host0-router0', 'router0-switch0'] if slow else ['host0-switch0'])
    paths = {0: first, 1: ['host1-switch0'], 2: ['host2-switch0'], 3: ['host3-switch0']}
    links = ['<link id="host%d-switch0" bandwidth="1Gbps" latency="500us"/>' % h for h in (1, 2, 3)]
    links += (['<link id="host0-router0" bandwidth="100Mbps" latency="500us"/>',
               '<link id="router0-switch0" bandwidth="1Gbps" latency="1ms"/>'] if slow
              else ['<link id="host0-switch0" bandwidth="1Gbps" latency="500us"/>'])
    routes = []
    for a in range(4):
        for b in range(a + 1, 4):
            hops = paths[a] + paths[b][::-1]
            routes.append('<route src="host%d" dst="host%d">%s</route>' % (
                a, b, ''.join('<link_ctn id="%s"/>' % h for h in hops)))
    hosts = ''.join('<host id="host%d" speed="1Gf"/>' % h for h in range(4))
    return ("<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
            '<platform version="4.1"><zone id="net" routing="Full">%s\n%s\n%s\n</zone></platform>\n'
            % (hosts, '\n'.join(links), '\n'.join(routes)))
for name, slow in (('reference', False), ('slow-rank0', True)):
    open('%s/%s.xml' % (out, name), 'w').write(platform(slow))
open('%s/hosts' % out, 'w').write('host0\nhost1\nhost2\nhost3\n')
EOF

# ---- runs ----
wall() { # LOG -> the wall seconds /usr/bin/time wrote last
  tail -1 "$1" | cut -d' ' -f1
}
table=$out/smpi-compare.md
{
  echo "| benchmark | SMPI reference (s) | SMPI slow-rank0 (s) | SMPI slow-down | SMPI wall (s) | replay reference (s) | replay slow-rank0 (s) | replay slow-down | replay wall (s) | recording wall (s) |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
} >"$table"
for b in $benchmarks; do
  declare -A smpi=() swall=() rep=() rwall=()
  for net in reference slow-rank0; do
    /usr/bin/time -f "%e" -o "$out/smpi-$b-$net.time" smpirun -np 4 -platform "$out/$net.xml" \
      -hostfile "$out/hosts" --cfg=smpi/host-speed:1Gf --cfg=network/model:CM02 \
      --log=root.thres:warning "$smpi_tree/bin/$b.W.x" >"$out/smpi-$b-$net.out" 2>"$out/smpi-$b-$net.err"
    grep -q 'Verification *= *SUCCESSFUL' "$out/smpi-$b-$net.out" ||
      { echo "smpi-compare: SMPI's $b on $net did not verify; see $out/smpi-$b-$net.out" >&2; exit 1; }
    smpi[$net]=$(awk '/Time in seconds/ {print $NF}' "$out/smpi-$b-$net.out")
    swall[$net]=$(wall "$out/smpi-$b-$net.time")
  done
  trace=${TRACES:+$TRACES/$b.mnt}
  record_wall="—"
  if [ -z "$trace" ] || [ ! -f "$trace" ]; then
    trace=$out/$b.mnt
    /usr/bin/time -f "%e" -o "$out/record-$b.time" "$mpinetsim" run -n 4 --net "$root/configs/reference.toml" \
      --time-factor "$factor" --record "$trace" -- "$npb_bin/$b.W.x" >"$out/record-$b.out" 2>"$out/record-$b.err"
    record_wall=$(wall "$out/record-$b.time")
  fi
  for net in reference slow-rank0; do
    /usr/bin/time -f "%e" -o "$out/replay-$b-$net.time" "$mpinetsim" replay "$trace" \
      --net "$root/configs/$net.toml" --report "$out/replay-$b-$net.json" >"$out/replay-$b-$net.out"
    rep[$net]=$(python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["emulated_runtime_s"])' "$out/replay-$b-$net.json")
    rwall[$net]=$(wall "$out/replay-$b-$net.time")
  done
  python3 - "$b" "${smpi[reference]}" "${smpi[slow-rank0]}" "${swall[slow-rank0]}" \
    "${rep[reference]}" "${rep[slow-rank0]}" "${rwall[slow-rank0]}" "$record_wall" >>"$table" <<'EOF'
import sys
b, sr, ss, sw, rr, rs, rw, rec = sys.argv[1:]
pct = lambda a, c: "%+.0f %%" % (100 * (float(c) / float(a) - 1))
print(f"| {b} | {sr} | {ss} | {pct(sr, ss)} | {sw} | {rr} | {rs} | {pct(rr, rs)} | {rw} | {rec} |")
EOF
done
cat "$table"
