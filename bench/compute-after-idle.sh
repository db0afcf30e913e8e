#!/usr/bin/env bash
# The CPU time of one computation (fill 1 MiB, check 1 MiB) right after the
# previous one and after waiting 0.1, 1, 10 and 50 ms, sleeping and
# busy-waiting (bench/compute_after_idle.c). mpinetsim measures a rank's
# computation as CPU time and, at time factor F, a rank waits about F times
# its emulated waits between two computations: where this grows with the
# wait, the computations of a run grow with the factor.
# Usage: bench/compute-after-idle.sh
set -euo pipefail
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/compute_after_idle" bench/compute_after_idle.c
for mode in sleep spin; do
  for us in 0 100 1000 10000 50000; do
    "$tmp/compute_after_idle" "$us" "$mode"
  done
done
