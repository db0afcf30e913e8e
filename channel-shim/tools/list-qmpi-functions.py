#!/usr/bin/env python3
"""List MPICH's QMPI function numbers, for the channel shim.

Usage:
    python3 channel-shim/tools/list-qmpi-functions.py [--header FILE] [-o FILE]

QMPI tools name the MPI function they intercept by a number:
`enum QMPI_Functions_enum` in MPICH's mpi_proto.h (MPI_ATTR_DELETE_T = 0,
... up to MPI_LAST_FUNC_T). The shim must use the same numbers as the
MPICH its programs were built against, so this script writes them in
order, one name per line (line n holds the name of number n - 1), without
the final MPI_LAST_FUNC_T, which is their count.
"""

import argparse
import re
import sys

DEFAULT_HEADER = "/usr/include/x86_64-linux-gnu/mpich/mpi_proto.h"


def qmpi_names(text):
    m = re.search(r"enum\s+QMPI_Functions_enum\s*\{(.*?)\}", text, re.S)
    if not m:
        raise SystemExit("no enum QMPI_Functions_enum in the header")
    names = [n.strip() for n in m.group(1).split(",")]
    names = [n for n in names if n]
    if names[-1] != "MPI_LAST_FUNC_T":
        raise SystemExit("the enum does not end with MPI_LAST_FUNC_T")
    for n in names:
        if not re.fullmatch(r"MPIX?_[A-Z0-9_]+_T", n):
            raise SystemExit(f"unexpected enumerator {n!r} (values given explicitly?)")
    return names[:-1]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--header", default=DEFAULT_HEADER)
    p.add_argument("-o", "--output", default="-")
    a = p.parse_args()
    with open(a.header) as f:
        names = qmpi_names(f.read())
    out = sys.stdout if a.output == "-" else open(a.output, "w")
    out.write("".join(n + "\n" for n in names))


if __name__ == "__main__":
    main()
