#!/usr/bin/env bash
# Builds MPICH's own dynamic-process tests (pmodels/mpich, tag v4.0.2,
# test/mpi/spawn) with Debian's mpicc and runs each test of the directory's
# testlist (at most 8 processes) natively (`mpiexec -n N`) and through
# `mpinetsim run -n N --net configs/ideal.toml --time-factor 1`. A run
# passes when it exits 0 and prints "No Errors".
#
# The runs through mpinetsim give the job a universe of 16 processes
# (`--universe 16`, as `mpiexec -usize 16` would): the tests spawn only
# when MPI_UNIVERSE_SIZE leaves room beyond MPI_COMM_WORLD, in the
# parents' world and again in the children's. The `spawns served` column
# counts the spawns the gateway served in the run.
#
# Usage: tests/mpich-spawn.sh MPICH [WORKDIR]
#   MPICH    a checkout of pmodels/mpich at v4.0.2 (a work tree holding
#            test/mpi, or a git directory from which tag v4.0.2's
#            test/mpi is extracted)
#   WORKDIR  where to build and run (default /tmp/mpich-spawn)
# Environment: MPINETSIM (default target/release/mpinetsim of this
# checkout, or $CARGO_TARGET_DIR/release/mpinetsim), NATIVE_TIMEOUT (60 s),
# SIM_TIMEOUT (120 s).
# Output: WORKDIR/results.tsv (test, np, native, mpinetsim, first line of
# the mpinetsim run's output when it failed) and a Markdown table on stdout.
set -u
src=${1:?usage: tests/mpich-spawn.sh MPICH [WORKDIR]}
work=${2:-/tmp/mpich-spawn}
repo=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$repo/target}
mpinetsim=${MPINETSIM:-$target/release/mpinetsim}
native_timeout=${NATIVE_TIMEOUT:-60}
sim_timeout=${SIM_TIMEOUT:-120}
command -v mpicc >/dev/null || { echo "mpicc not found: install Debian's mpich" >&2; exit 1; }
[ -x "$mpinetsim" ] || { echo "$mpinetsim not found: cargo build --release --workspace" >&2; exit 1; }

. "$repo/tests/mpich-tree.sh"
mpich_test_tree "$src" "$work" spawn
t=$work/mpi
# What MPICH's configure would have written for the C helpers.
cat > "$t/include/mpitestconf.h" <<'H'
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define HAVE_STDARG_H 1
#define HAVE_SYS_TIME_H 1
#define USE_STDARG 1
#define THREAD_PACKAGE_NAME 1
H
printf '/* mtest_mpix.h: nothing to rename for these tests */\n' > "$t/include/mtest_mpix.h"
(cd "$t/util" && mpicc -I../include -c mtest.c mtest_common.c mtest_single.c) || exit 1

dir=$t/spawn
: > "$work/results.tsv"
# "@namepub_tests@" is left to configure: Debian's MPICH has a name server.
sed 's/^@[a-z_]*@//' "$dir/testlist.in" | while read -r name np rest; do
    case "$name" in ''|'#'*) continue ;; esac
    [ "${np:-1}" -le 8 ] || continue
    args=$(printf '%s\n' "$rest" | tr ' ' '\n' | grep -v '=' | tr '\n' ' ')
    if [ ! -x "$dir/$name" ]; then
        (cd "$dir" && mpicc -I../include -o "$name" "$name.c" ../util/mtest.o \
            ../util/mtest_common.o ../util/mtest_single.o -lm) < /dev/null > "$dir/$name.build.log" 2>&1
    fi
    if [ ! -x "$dir/$name" ]; then
        printf '%s\t%s\tnot built\tnot built\t%s\n' "$name" "$np" \
            "$(grep -m1 -i error "$dir/$name.build.log")" >> "$work/results.tsv"
        continue
    fi
    run() { # LOG TIMEOUT COMMAND...
        local log=$1 secs=$2; shift 2
        (cd "$dir" && timeout "$secs" "$@") < /dev/null > "$log" 2>&1
        local rc=$?
        if [ $rc -eq 0 ] && grep -q 'No Errors' "$log"; then echo pass
        elif [ $rc -eq 124 ]; then echo "fail (timeout)"
        else echo fail; fi
    }
    nat=$(run "$dir/$name.$np.native.log" "$native_timeout" mpiexec -n "$np" "./$name" $args)
    sim=$(run "$dir/$name.$np.sim.log" "$sim_timeout" "$mpinetsim" run -n "$np" --universe 16 \
        --net "$repo/configs/ideal.toml" --time-factor 1 -- "./$name" $args)
    # The gateway logs every spawn it served ("rank R spawned ranks A to B").
    spawned=$(grep -c 'spawned ranks' "$dir/$name.$np.sim.log")
    why=
    [ "$sim" = pass ] || why=$(grep -v -e '^\s*$' -e 'No Errors' -e '^mpinetsim: [0-9]* ranks\? on' \
        -e 'spawned ranks' "$dir/$name.$np.sim.log" | head -1 | cut -c1-120)
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$np" "$nat" "$sim" "$spawned" "$why" >> "$work/results.tsv"
    printf '%s (%s): native %s, mpinetsim %s, spawned %s %s\n' "$name" "$np" "$nat" "$sim" "$spawned" "$why" >&2
done

echo "| test | np | native | mpinetsim | spawns served | reason |"
echo "|---|---:|---|---|---|---|"
awk -F'\t' '{ printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6 }' "$work/results.tsv"
awk -F'\t' '{ n++; if ($3 == "pass") nat++; if ($4 == "pass") sim++; if ($3 == "pass" && $4 == "pass") both++ }
    END { printf "\n%d tests: %d pass natively, %d through mpinetsim, %d both\n", n, nat, sim, both }' "$work/results.tsv"
