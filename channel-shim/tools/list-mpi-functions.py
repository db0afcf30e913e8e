#!/usr/bin/env python3
"""List every MPI_ function Debian's MPICH mpi.h declares, for the channel shim.

Usage:
    python3 channel-shim/tools/list-mpi-functions.py [--include-dir DIR] [-o FILE]

Writes one line per function, sorted by name:

    <name> <C return type> <MPI version>

for example `MPI_Send int 3.1`, `MPI_Wtime double 3.1`, `MPI_Send_c int 4.0`.

The version column says where the function belongs:
  3.1      part of MPI 3.1 (and still part of MPI 4.0, possibly deprecated)
  4.0      added by MPI 4.0 (large-count `_c` variants, sessions, partitioned
           communication, persistent collectives, MPI_T events, ...)
  removed  an MPI-1 name deleted by MPI 3.0 that MPICH still declares and
           exports (MPI_Address, MPI_Type_struct, MPI_Errhandler_set, ...);
           old programs may still call them

How it parses: the header is run through the C preprocessor (`cpp`, or
`cc -E`) exactly as a compiler sees it with `#include <mpi.h>`, so
conditional blocks (mpio.h has several), attribute macros such as
MPICH_API_PUBLIC / MPICH_ATTR_POINTER_WITH_TYPE_TAG(1,3) and name macros such
as MPI_DUP_FN (-> MPIR_Dup_fn) come out right. Only text from files in the
MPICH include folder is kept (line markers tell which file). The result is
split into top-level declarations (at `;` outside braces and parentheses);
each one of the form `<return type> MPI_<name>(<params>) <attributes>` is a
function. PMPI_, MPIX_, QMPI_ and MPIO_ names, typedefs, extern variables and
function-like macros are not included.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

DEFAULT_INCLUDE_DIR = "/usr/include/x86_64-linux-gnu/mpich"

# --- MPI 4.0 additions -------------------------------------------------------
# From the MPI-4.0 standard's change log (Annex B.1, "Changes from Version 3.1
# to Version 4.0"): every large-count `_c` binding is new, plus the functions
# below.

# Persistent collective operations (MPI 4.0 Section 6.13). The point-to-point
# `*_init` functions (MPI_Send_init, ...) are MPI-1 and are not listed here.
PERSISTENT_COLLECTIVES_40 = {
    "MPI_Allgather_init", "MPI_Allgatherv_init", "MPI_Allreduce_init",
    "MPI_Alltoall_init", "MPI_Alltoallv_init", "MPI_Alltoallw_init",
    "MPI_Barrier_init", "MPI_Bcast_init", "MPI_Exscan_init",
    "MPI_Gather_init", "MPI_Gatherv_init", "MPI_Reduce_init",
    "MPI_Reduce_scatter_init", "MPI_Reduce_scatter_block_init",
    "MPI_Scan_init", "MPI_Scatter_init", "MPI_Scatterv_init",
    "MPI_Neighbor_allgather_init", "MPI_Neighbor_allgatherv_init",
    "MPI_Neighbor_alltoall_init", "MPI_Neighbor_alltoallv_init",
    "MPI_Neighbor_alltoallw_init",
}

OTHER_40 = {
    # partitioned point-to-point communication (Chapter 4)
    "MPI_Psend_init", "MPI_Precv_init", "MPI_Pready", "MPI_Pready_range",
    "MPI_Pready_list", "MPI_Parrived",
    # nonblocking send-receive
    "MPI_Isendrecv", "MPI_Isendrecv_replace",
    # communicators, groups and info
    "MPI_Comm_idup_with_info", "MPI_Comm_create_from_group",
    "MPI_Intercomm_create_from_groups", "MPI_Group_from_session_pset",
    "MPI_Info_get_string", "MPI_Info_create_env",
    # Fortran status conversions added next to the MPI-3.0 f08 ones
    "MPI_Status_f082f", "MPI_Status_f2f08",
    # MPI_T sources and events
    "MPI_T_category_get_num_events", "MPI_T_category_get_events",
}

OTHER_40_PREFIXES = ("MPI_Session_", "MPI_T_event_", "MPI_T_source_")

# MPI-1 functions deleted by MPI 3.0 (MPI 3.0 Section 16.2), still declared
# and exported by MPICH 4.0.2.
REMOVED_IN_30 = {
    "MPI_Address", "MPI_Errhandler_create", "MPI_Errhandler_get",
    "MPI_Errhandler_set", "MPI_Type_extent", "MPI_Type_hindexed",
    "MPI_Type_hvector", "MPI_Type_lb", "MPI_Type_struct", "MPI_Type_ub",
}


def version_of(name):
    """The version column for one function name."""
    if name in REMOVED_IN_30:
        return "removed"
    if name.endswith("_c"):
        return "4.0"
    if name in PERSISTENT_COLLECTIVES_40 or name in OTHER_40:
        return "4.0"
    if name.startswith(OTHER_40_PREFIXES):
        return "4.0"
    return "3.1"


def preprocess(include_dir):
    """The preprocessed text of `#include <mpi.h>`, with line markers."""
    for cmd in (["cpp"], ["cc", "-E"], ["gcc", "-E"], ["clang", "-E"]):
        if shutil.which(cmd[0]) is None:
            continue
        with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as f:
            f.write("#include <mpi.h>\n")
            src = f.name
        try:
            out = subprocess.run(
                cmd + ["-I", include_dir, src],
                check=True, capture_output=True, text=True,
            ).stdout
        finally:
            os.unlink(src)
        return out
    sys.exit("list-mpi-functions: no C preprocessor (cpp, cc, gcc or clang) found")


LINE_MARKER = re.compile(r'^#\s*(?:line\s+)?\d+\s+"([^"]*)"')


def mpich_text(preprocessed, include_dir):
    """Only the lines that came from files in the MPICH include folder."""
    include_dir = os.path.realpath(include_dir)
    keep = False
    lines = []
    for line in preprocessed.splitlines():
        m = LINE_MARKER.match(line)
        if m:
            path = m.group(1)
            keep = os.path.realpath(path).startswith(include_dir + os.sep)
            continue
        if line.startswith("#"):
            continue  # pragmas and the like
        if keep:
            lines.append(line)
    return "\n".join(lines)


def top_level_statements(text):
    """Split C declarations at `;` that are outside braces and parentheses."""
    depth = 0
    current = []
    for ch in text:
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        if ch == ";" and depth == 0:
            yield " ".join("".join(current).split())
            current = []
        else:
            current.append(ch)


ATTRIBUTE = re.compile(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)")
PROTOTYPE = re.compile(
    r"^(?P<ret>[A-Za-z_][A-Za-z0-9_]*(?:\s+[A-Za-z_][A-Za-z0-9_]*)*\s*\**)\s*"
    r"\b(?P<name>MPI_[A-Za-z0-9_]+)\s*\((?P<params>.*)\)$"
)


def functions(text):
    """(name, return type) of every MPI_ function prototype in `text`."""
    found = {}
    for stmt in top_level_statements(text):
        stmt = ATTRIBUTE.sub("", stmt).strip()
        if not stmt or stmt.startswith(("typedef ", "extern ", "struct ", "enum ", "static ")):
            continue
        m = PROTOTYPE.match(stmt)
        if not m:
            continue
        ret = " ".join(m.group("ret").split())
        ret = ret.replace(" *", "*")
        if " " in ret:
            sys.exit(f"list-mpi-functions: unexpected return type {ret!r} of {m.group('name')}")
        name = m.group("name")
        if name in found and found[name] != ret:
            sys.exit(f"list-mpi-functions: {name} declared with two return types")
        found[name] = ret
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--include-dir", default=DEFAULT_INCLUDE_DIR,
                    help="folder with MPICH's mpi.h (default: %(default)s)")
    ap.add_argument("-o", "--output", help="file to write (default: stdout)")
    args = ap.parse_args()

    if not os.path.isfile(os.path.join(args.include_dir, "mpi.h")):
        sys.exit(f"list-mpi-functions: no mpi.h in {args.include_dir} (apt-get install libmpich-dev)")

    found = functions(mpich_text(preprocess(args.include_dir), args.include_dir))
    if not found:
        sys.exit("list-mpi-functions: found no MPI_ prototypes")
    out = "".join(f"{n} {found[n]} {version_of(n)}\n" for n in sorted(found))
    if args.output:
        with open(args.output, "w") as f:
            f.write(out)
    else:
        sys.stdout.write(out)
    counts = {}
    for n in found:
        counts[version_of(n)] = counts.get(version_of(n), 0) + 1
    summary = ", ".join(f"{v}: {c}" for v, c in sorted(counts.items()))
    print(f"list-mpi-functions: {len(found)} functions ({summary})", file=sys.stderr)


if __name__ == "__main__":
    main()
