# Sourced by tests/mpich-*.sh: puts MPICH 4.0.2's test/mpi into WORK/mpi,
# from a checkout (a folder holding test/mpi/PROBE) or a git directory with
# tag v4.0.2 (what `fetch` brings: /work/.mirror/pmodels+mpich/repo).
# Usage: mpich_test_tree SRC WORK PROBE; exits the script on failure.
mpich_test_tree() {
    local src=$1 work=$2 probe=$3
    mkdir -p "$work"
    if [ -d "$src/test/mpi/$probe" ]; then
        rm -rf "$work/mpi" && cp -r "$src/test/mpi" "$work/mpi"
    else
        rm -rf "$work/mpi" && git --git-dir="$src" archive v4.0.2 test/mpi | tar -x -C "$work" \
            && mv "$work/test/mpi" "$work/mpi" && rmdir "$work/test" \
            || { echo "$src: neither a work tree nor a git directory with tag v4.0.2" >&2; exit 1; }
    fi
}
