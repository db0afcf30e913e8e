#!/usr/bin/env bash
# Build the ns-3 reference benchmark against Debian's ns-3 3.37 (libns3-dev).
# Output: bench/ns3/build/reference_bench, or the path given as $1.
#
# Debian's ns3-*.pc files carry a broken Cflags entry ("-I/usr;"), so the
# flags are given explicitly; headers live in /usr/include/ns3 and the
# libraries are /usr/lib/x86_64-linux-gnu/libns3-<module>.so.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-$here/build/reference_bench}"
mkdir -p "$(dirname "$out")"

CXX="${CXX:-g++}"
MODULES=(applications internet traffic-control point-to-point network stats core)
LIBS=()
for m in "${MODULES[@]}"; do LIBS+=("-lns3-$m"); done

set -x
"$CXX" -std=c++17 -O2 -DNDEBUG -I/usr/include \
    "$here/reference_bench.cc" \
    -o "$out" \
    "${LIBS[@]}"
