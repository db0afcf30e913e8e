#!/usr/bin/env bash
# Builds MPICH's own `use mpi_f08` tests (pmodels/mpich, tag v4.0.2,
# test/mpi/f08) with Debian's mpif90/mpicc and runs each test of every
# directory's testlist (at most 8 processes) natively (`mpiexec -n N`) and
# through `mpinetsim run -n N --net configs/ideal.toml --time-factor 1`.
# A run passes when it exits 0 and prints "No Errors".
#
# Usage: tests/mpich-f08.sh MPICH [WORKDIR]
#   MPICH    a checkout of pmodels/mpich at v4.0.2 (a work tree, or a git
#            directory such as the one the fetch tool gives, from which
#            tag v4.0.2's test/mpi is extracted)
#   WORKDIR  where to build and run (default /tmp/mpich-f08)
# Environment: MPINETSIM (default target/release/mpinetsim of this
# checkout, or $CARGO_TARGET_DIR/release/mpinetsim), NATIVE_TIMEOUT (60 s),
# SIM_TIMEOUT (180 s), DIRS (the directories to run, default all). The
# runs through mpinetsim give the job a universe of 16 (`--universe 16`,
# as `mpiexec -usize 16`), so the spawn tests have room to spawn.
# Output: WORKDIR/results.tsv (dir, test, np, native, mpinetsim, first
# line of the mpinetsim run's output when it failed) and a Markdown table on
# stdout.
set -u
src=${1:?usage: tests/mpich-f08.sh MPICH [WORKDIR]}
work=${2:-/tmp/mpich-f08}
repo=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$repo/target}
mpinetsim=${MPINETSIM:-$target/release/mpinetsim}
native_timeout=${NATIVE_TIMEOUT:-60}
sim_timeout=${SIM_TIMEOUT:-180}
dirs=${DIRS:-"attr coll comm datatype ext info init io misc profile pt2pt rma spawn subarray timer topo"}
command -v mpif90 >/dev/null || { echo "mpif90 not found: install Debian's mpich" >&2; exit 1; }
[ -x "$mpinetsim" ] || { echo "$mpinetsim not found: cargo build --release --workspace" >&2; exit 1; }

. "$repo/tests/mpich-tree.sh"
mpich_test_tree "$src" "$work" f08
t=$work/mpi
# What MPICH's configure would have written for the C helpers.
cat > "$t/include/mpitestconf.h" <<'H'
#define F77_NAME_LOWER_USCORE 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define HAVE_STDARG_H 1
#define HAVE_SYS_TIME_H 1
#define USE_STDARG 1
#define HAVE_MPI_F08 1
#define THREAD_PACKAGE_NAME 1
H
# Written by MPICH's configure (the MPIX_ renames); these tests need none.
printf '/* mtest_mpix.h: nothing to rename for these tests */\n' > "$t/include/mtest_mpix.h"
(cd "$t/util" && mpif90 -c mtest_f08.f90 -o mtest_f08.o) || exit 1
(cd "$t/util" && mpicc -I../include -c mtest.c mtest_common.c mtest_single.c) || exit 1
# The generated I/O tests (MPICH's testmerge, its #! line left to configure).
(cd "$t/f08/io" && sed 1d ../../maint/testmerge.in | perl - -defn=../../maint/common.defn \
    ioharness.defn ioharness.tlt) >/dev/null 2>&1
# C helpers Makefile.am copies from the f77 and f90 directories (MPICH
# generates f90/ext/c2f902c.c from f77/ext/c2f2c.c).
cp "$t/f77/ext/c2f2c.c" "$t/f08/ext/c2f902c.c"
cp "$t/f77/ext/ctypesfromc.c" "$t/f08/ext/"

: > "$work/results.tsv"
for d in $dirs; do
    dir=$t/f08/$d
    list=$dir/testlist
    [ -f "$list" ] || list=$dir/testlist.in
    while read -r name np rest; do
        case "$name" in ''|'#'*|@*) continue ;; esac
        [ "${np:-1}" -le 8 ] || continue
        args=$(printf '%s\n' "$rest" | tr ' ' '\n' | grep -v '=' | tr '\n' ' ')
        # Sources: NAME.f90 (or NAME.c) plus the extra files Makefile.am lists.
        srcs=$(sed -n "s/^ *${name}_SOURCES *= *//p" "$dir/Makefile.am" | head -1)
        [ -n "$srcs" ] || { [ -f "$dir/$name.f90" ] && srcs=$name.f90 || srcs=$name.c; }
        build_log=$dir/$name.build.log
        (
            cd "$dir" || exit 1
            objs=
            for s in $srcs; do
                case $s in
                *.c) mpicc -I../../include -c "$s" -o "${s%.c}.o" || exit 1; objs="$objs ${s%.c}.o" ;;
                esac
            done
            fsrcs=$(printf '%s\n' $srcs | grep '\.f90$')
            if [ -n "$fsrcs" ]; then
                mpif90 -I../../util -I. -o "$name" $fsrcs $objs ../../util/mtest_f08.o
            else
                mpicc -o "$name" $objs ../../util/mtest.o ../../util/mtest_common.o ../../util/mtest_single.o -lm
            fi
        ) < /dev/null > "$build_log" 2>&1
        if [ ! -x "$dir/$name" ]; then
            printf '%s\t%s\t%s\tnot built\tnot built\t%s\n' "$d" "$name" "$np" \
                "$(grep -m1 -i error "$build_log")" >> "$work/results.tsv"
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
        nat=$(run "$dir/$name.native.log" "$native_timeout" mpiexec -n "$np" "./$name" $args)
        sim=$(run "$dir/$name.sim.log" "$sim_timeout" "$mpinetsim" run -n "$np" --universe 16 \
            --net "$repo/configs/ideal.toml" --time-factor 1 -- "./$name" $args)
        why=
        # Why it failed: a line of the program's own (not mpinetsim's report).
        [ "$sim" = pass ] || why=$(grep -v -e '^mpinetsim:' -e '^\s*$' -e 'No Errors' \
            "$dir/$name.sim.log" | head -1 | cut -c1-120)
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$d" "$name" "$np" "$nat" "$sim" "$why" >> "$work/results.tsv"
        printf '%s/%s (%s): native %s, mpinetsim %s %s\n' "$d" "$name" "$np" "$nat" "$sim" "$why" >&2
    done < "$list"
done

echo "| directory | test | np | native | mpinetsim | reason |"
echo "|---|---|---:|---|---|---|"
awk -F'\t' '{ printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6 }' "$work/results.tsv"
awk -F'\t' '{ n++; if ($4 == "pass") nat++; if ($5 == "pass") sim++; if ($4 == "pass" && $5 == "pass") both++ }
    END { printf "\n%d tests: %d pass natively, %d through mpinetsim, %d both\n", n, nat, sim, both }' "$work/results.tsv"
