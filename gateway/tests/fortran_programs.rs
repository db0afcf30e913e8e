//! Fortran programs of tests/mpi, built with Debian's `mpif90`, give the
//! same checked output natively (Debian's `mpiexec`, MPICH) and through
//! `mpinetsim run` on the reference network, which loads the shim's Fortran
//! bindings (libchannel_shim_fortran.so) as libmpichfort.so.12: one program
//! with `include 'mpif.h'`, one with `use mpi` (the same checks,
//! tests/mpi/fortran_suite.inc). A routine the bindings do not support ends
//! the job with the C library's line, and every gfortran name Debian's
//! libmpichfort.so.12 exports is exported, so every mpif90 program loads.
//!
//! The tests run one at a time (a lock): each starts several processes.

mod common;
use common::*;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::sync::Mutex;

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

/// The built Fortran bindings, next to the mpinetsim binary.
fn fortran_library() -> std::path::PathBuf {
    let dir = Path::new(bin()).parent().unwrap();
    let lib = dir.join("libchannel_shim_fortran.so");
    assert!(
        lib.is_file(),
        "libchannel_shim_fortran.so is missing in {}: build the workspace first (cargo build --workspace --release)",
        dir.display()
    );
    lib
}

/// Builds tests/mpi/<name>.f90 and compares its output natively and through
/// mpinetsim on `ranks` ranks. Returns the number of checks, or None when
/// gfortran or MPICH is missing.
fn fortran_same_output(name: &str, ranks: &str) -> Option<u64> {
    let _g = serial();
    if skip_without("mpif90", "-show", "mpich libmpich-dev gfortran") || skip_without_mpiexec() {
        return None;
    }
    fortran_library();
    let prog = build(name, "f90", "mpif90");
    Some(same_output_as_native(name, &prog, ranks))
}

/// Nonblocking collectives, intercommunicators and MPI 3's communicator
/// routines written in Fortran: 24 checks per rank with either binding,
/// on 2, 4 and 8 ranks.
#[test]
fn fortran_nonblocking_collectives_and_intercommunicators_match_native_mpich() {
    for name in ["fortran_coll_mpif", "fortran_coll_use_mpi"] {
        for ranks in [2u64, 4, 8] {
            let Some(n) = fortran_same_output(name, &ranks.to_string()) else {
                return;
            };
            assert_eq!(n, 24 * ranks, "{name} on {ranks} ranks");
        }
    }
}

#[test]
fn fortran_with_mpif_h_matches_native_mpich() {
    if let Some(n) = fortran_same_output("fortran_mpif", "4") {
        assert!(n >= 500, "{n} checks");
    }
}

#[test]
fn fortran_with_use_mpi_matches_native_mpich() {
    if let Some(n) = fortran_same_output("fortran_use_mpi", "3") {
        assert!(n >= 400, "{n} checks");
    }
}

/// `use mpi_f08` (tests/mpi/f08_basic.f90): the routines without a choice
/// buffer (environment, communicators, groups, a vector datatype, requests
/// and statuses) and handle comparison with `==`/`/=`, with `ierror`
/// present and absent, on 2 and 3 ranks.
#[test]
fn fortran_with_use_mpi_f08_matches_native_mpich() {
    for ranks in ["2", "3"] {
        if let Some(n) = fortran_same_output("f08_basic", ranks) {
            assert_eq!(n, 18, "f08_basic on {ranks} ranks");
        }
    }
}

/// `use mpi_f08` choice buffers (tests/mpi/f08_buffers.f90, the `_f08ts`
/// routines): whole arrays, scalars and strided sections sent and
/// received (one with a negative stride, one two-dimensional), a ring of
/// Isend/Irecv on sections, persistent requests on sections started
/// twice, Bcast and Ibcast, Allreduce and Reduce with MPI_IN_PLACE,
/// Gather/Scatter(v) and Alltoall, a vector datatype in Sendrecv, Put and
/// Get on sections in fence epochs, MPI-IO at explicit offsets, the
/// large-count (`_f08ts_large`) forms of Sendrecv, Get_count, Allreduce
/// and Gatherv, and external32 packing of whole arrays, on 2 and 3 ranks.
/// Rank 0 counts its own checks: 3 ring + 2 persistent + 3 bcast + 4
/// reductions + 5 gather/scatter/alltoall + 4 large counts + 1 datatype +
/// 2 external32 + 2 one-sided + 4 file = 30.
#[test]
fn fortran_choice_buffers_with_use_mpi_f08_match_native_mpich() {
    for ranks in ["2", "3"] {
        if let Some(n) = fortran_same_output("f08_buffers", ranks) {
            assert_eq!(n, 30, "f08_buffers on {ranks} ranks");
        }
    }
}

/// `use mpi_f08` routines with strings, callbacks, weights and 8-byte
/// counts (tests/mpi/f08_routines.f90): communicator, datatype and window
/// names, error strings, processor and library names, info objects
/// (set, get, get_string, valuelen, nthkey, delete), a user reduction
/// (`MPI_Op_create`), a communicator error handler, keyvals with
/// `MPI_COMM_DUP_FN`, `MPI_COMM_NULL_COPY_FN` and a delete callback,
/// distributed graphs weighted and `MPI_UNWEIGHTED`, a struct datatype and
/// a vector from 8-byte counts (`_f08_large`), `MPI_Win_allocate(_shared)`
/// and `MPI_Win_shared_query` through C pointers, `MPI_Buffer_detach`
/// returning the address, `MPI_Waitsome`, `MPI_Wtime`/`MPI_Wtick`,
/// `MPI_Aint_add`/`diff`, `MPI_Sizeof`, `MPI_Status_f082f`,
/// `MPI_Pack_external_size`: 36 checks on rank 0, on 2 and 3 ranks.
#[test]
fn fortran_strings_callbacks_and_large_counts_with_use_mpi_f08_match_native_mpich() {
    for ranks in ["2", "3"] {
        if let Some(n) = fortran_same_output("f08_routines", ranks) {
            assert_eq!(n, 36, "f08_routines on {ranks} ranks");
        }
    }
}

/// `use mpi_f08` array sections where Debian's MPICH 4.0.2 cannot be the
/// reference (tests/mpi/f08_sections.f90): blocking reductions between
/// non-contiguous sections (Allreduce in place, from and into sections, a
/// reversed section into a row, Reduce, Reduce_local, Scan in place),
/// which the shim copies through contiguous temporaries and MPICH refuses
/// (MPI_SUM on the hvector it builds for a section), and external32
/// packing from and into sections, where MPICH takes the first elements
/// instead: 11 checks per rank on 2, 4 and 8 ranks, through mpinetsim.
#[test]
fn fortran_sections_with_use_mpi_f08_pass_their_checks_on_2_4_8_ranks() {
    let _g = serial();
    if skip_without("mpif90", "-show", "mpich libmpich-dev gfortran") {
        return;
    }
    fortran_library();
    let prog = build("f08_sections", "f90", "mpif90");
    passes_its_checks_on_2_4_8(&prog, "f08_sections", 11);
}

/// Datatype attributes and names, error classes and handlers, info
/// objects, MPI_ALLOC_MEM and generalized requests, written in Fortran:
/// 32 checks per rank with mpif.h, 50 with the mpi module (MPI_SIZEOF of
/// 18 kinds of argument), on 2, 4 and 8 ranks.
#[test]
fn fortran_object_state_matches_native_mpich_on_2_4_8_ranks() {
    for (name, per_rank) in [("fortran_state_mpif", 32), ("fortran_state_use_mpi", 50)] {
        for ranks in [2u64, 4, 8] {
            let Some(n) = fortran_same_output(name, &ranks.to_string()) else {
                return;
            };
            assert_eq!(n, per_rank * ranks, "{name} on {ranks} ranks");
        }
    }
}

/// Topologies, neighbourhood collectives, subarrays and darrays,
/// envelopes, Fortran kinds, external32 and matched probes from Fortran
/// (tests/mpi/fortran_ext.inc: 36 checks per rank), with mpif.h and with
/// the mpi module, on 2, 4 and 8 ranks.
#[test]
fn fortran_topologies_datatypes_and_probes_match_native_mpich_on_2_4_8_ranks() {
    for name in ["fortran_ext_mpif", "fortran_ext_use_mpi"] {
        for ranks in [2u64, 4, 8] {
            let Some(n) = fortran_same_output(name, &ranks.to_string()) else {
                return;
            };
            assert_eq!(n, 36 * ranks, "{name} on {ranks} ranks");
        }
    }
}

/// MPI 4.0's Sessions model from Fortran (tests/mpi/fortran_sessions.inc:
/// 21 checks per rank and 1 more on each side's leader): process sets by
/// CHARACTER name, communicators from groups, an intercommunicator from
/// two groups, with mpif.h and with the mpi module, on 2, 4 and 8 ranks.
#[test]
fn fortran_sessions_match_native_mpich_on_2_4_8_ranks() {
    for name in ["fortran_sessions_mpif", "fortran_sessions_use_mpi"] {
        for ranks in [2u64, 4, 8] {
            let Some(n) = fortran_same_output(name, &ranks.to_string()) else {
                return;
            };
            assert_eq!(n, 21 * ranks + 2, "{name} on {ranks} ranks");
        }
    }
}

/// MPI 4.0 partitioned communication from Fortran (tests/mpi/fortran_part.inc):
/// a ring of 4 send against 2 receive partitions over 2 rounds, readied
/// with MPI_PREADY_LIST, _RANGE and MPI_PREADY, polled with MPI_PARRIVED,
/// with mpif.h and with the mpi module, on 2, 4 and 8 ranks: 8 checks per
/// rank, every value computed by the program. Through mpinetsim only:
/// Debian's MPICH 4.0.2 crashes natively on this program (SIGSEGV in its
/// Fortran partitioned path), so it cannot be the reference here.
#[test]
fn fortran_partitioned_communication_passes_its_checks_on_2_4_8_ranks() {
    let _g = serial();
    if skip_without("mpif90", "-show", "mpich libmpich-dev gfortran") {
        return;
    }
    fortran_library();
    for name in ["fortran_part_mpif", "fortran_part_use_mpi"] {
        let prog = build(name, "f90", "mpif90");
        passes_its_checks_on_2_4_8(&prog, name, 8);
    }
}

/// Data representations from Fortran (tests/mpi/fortran_datarep.inc):
/// MPI_REGISTER_DATAREP with Fortran conversion and extent subroutines
/// storing each INTEGER in 8 bytes (the file's bytes and the values read
/// back checked, one conversion each way with EXTRA_STATE passed on), a
/// duplicate name, and MPI_CONVERSION_FN_NULL, with mpif.h and with the
/// mpi module, on 2, 4 and 8 ranks: 10 checks per rank. Through mpinetsim
/// only: Debian's MPICH (ROMIO) does not convert through registered
/// representations.
#[test]
fn fortran_registered_representations_convert_file_data_on_2_4_8_ranks() {
    let _g = serial();
    if skip_without("mpif90", "-show", "mpich libmpich-dev gfortran") {
        return;
    }
    fortran_library();
    for name in ["fortran_datarep_mpif", "fortran_datarep_use_mpi"] {
        let prog = build(name, "f90", "mpif90");
        passes_its_checks_on_2_4_8(&prog, name, 10);
    }
}

/// Dynamic processes from Fortran (tests/mpi/fortran_spawn.inc):
/// MPI_COMM_SPAWN with a CHARACTER argument vector ended by a blank
/// element, MPI_COMM_SPAWN_MULTIPLE with ARRAY_OF_ARGV(2, *) one row per
/// command, the children's world, arguments, MPI_APPNUM and an allreduce
/// across, with mpif.h and with the mpi module, on 1, 2 and 3 ranks: 5
/// checks per parent and 4 per child of the two spawns (2 children each),
/// 5 n + 16. Through mpinetsim only (Debian's MPICH over UCX cannot spawn
/// here).
#[test]
fn fortran_programs_spawn_children_and_talk_to_them() {
    let _g = serial();
    if skip_without("mpif90", "-show", "mpich libmpich-dev gfortran") {
        return;
    }
    fortran_library();
    for name in ["fortran_spawn_mpif", "fortran_spawn_use_mpi"] {
        spawns_with_checks(name, |n| 5 * n + 16);
    }
}

/// Builds `name` and runs it on 1, 2 and 3 ranks (a universe of 8 on
/// ideal.toml): every run must pass `checks(n)` checks, the children's
/// included.
fn spawns_with_checks(name: &str, checks: impl Fn(u64) -> u64) {
    let prog = build(name, "f90", "mpif90");
    for n in [1u64, 2, 3] {
        let ranks = n.to_string();
        let args = [
            "-n",
            &ranks,
            "--universe",
            "8",
            "--net",
            &config("ideal.toml"),
            "--time-factor",
            "1",
        ];
        let o = run(&args, &prog, &[]);
        let (out, err) = text(&o);
        let expected = format!("{name}: {} checks passed", checks(n));
        assert!(
            o.status.success() && out.contains(&expected),
            "{name} on {n} ranks: {out}{err}"
        );
    }
}

/// Dynamic processes through `use mpi_f08` (tests/mpi/f08_spawn.f90):
/// MPI_Comm_spawn with TYPE(MPI_Comm)/TYPE(MPI_Info) handles, an argument
/// vector and error codes, MPI_Comm_spawn_multiple with the module's
/// MPI_ARGVS_NULL and MPI_ERRCODES_IGNORE; 4 checks per parent, 2 per
/// child of either spawn: 4 n + 8 on 1, 2 and 3 ranks.
#[test]
fn use_mpi_f08_programs_spawn_children_and_talk_to_them() {
    let _g = serial();
    if skip_without("mpif90", "-show", "mpich libmpich-dev gfortran") {
        return;
    }
    fortran_library();
    spawns_with_checks("f08_spawn", |n| 4 * n + 8);
}

/// Ports from Fortran (tests/mpi/fortran_ports.inc): MPI_OPEN_PORT's
/// name broadcast as CHARACTER, the even ranks accepting and the odd
/// connecting, the intercommunicator's sizes, an allreduce across,
/// MPI_COMM_DISCONNECT and MPI_CLOSE_PORT, with mpif.h and with the mpi
/// module, on 2, 4 and 8 ranks: 4 checks per rank. Through mpinetsim only
/// (Debian's MPICH over UCX does not support MPI_Open_port).
#[test]
fn fortran_ports_connect_two_halves_of_the_world_on_2_4_8_ranks() {
    let _g = serial();
    if skip_without("mpif90", "-show", "mpich libmpich-dev gfortran") {
        return;
    }
    fortran_library();
    for name in ["fortran_ports_mpif", "fortran_ports_use_mpi"] {
        let prog = build(name, "f90", "mpif90");
        passes_its_checks_on_2_4_8(&prog, name, 4);
    }
}

/// One-sided communication from Fortran (tests/mpi/fortran_rma.inc: 15
/// checks per rank): window attributes of kind MPI_ADDRESS_KIND, put,
/// get, accumulate, fetch-and-op, compare-and-swap, fences and
/// post/start/complete/test, shared-memory windows read through a Fortran
/// pointer, with mpif.h and with the mpi module, on 2, 4 and 8 ranks.
#[test]
fn fortran_one_sided_communication_matches_native_mpich_on_2_4_8_ranks() {
    for name in ["fortran_rma_mpif", "fortran_rma_use_mpi"] {
        for ranks in [2u64, 4, 8] {
            let Some(n) = fortran_same_output(name, &ranks.to_string()) else {
                return;
            };
            assert_eq!(n, 15 * ranks, "{name} on {ranks} ranks");
        }
    }
}

/// MPI-IO from Fortran (tests/mpi/fortran_io.inc: 11 checks per rank):
/// file handles as integers, offsets of kind MPI_OFFSET_KIND, a strided
/// view written collectively, pointers individual and shared, ordered and
/// nonblocking writes, the error class of a missing file, with mpif.h and
/// with the mpi module, on 2, 4 and 8 ranks.
#[test]
fn fortran_mpi_io_matches_native_mpich_on_2_4_8_ranks() {
    for name in ["fortran_io_mpif", "fortran_io_use_mpi"] {
        for ranks in [2u64, 4, 8] {
            let Some(n) = fortran_same_output(name, &ranks.to_string()) else {
                return;
            };
            assert_eq!(n, 11 * ranks, "{name} on {ranks} ranks");
        }
    }
}

/// A Fortran coarray program (tests/mpi/coarray_halo.f90: halo exchange,
/// a put with sync images, co_sum, co_broadcast, co_max, a critical
/// section, a lock, a strided get; 8 checks per image) built with
/// gfortran `-fcoarray=lib` against Debian's OpenCoarrays library for
/// MPICH (`caf.mpich`, whose one-sided calls go through the shim's
/// windows), on 2, 4 and 8 images.
#[test]
fn a_fortran_coarray_program_matches_native_mpich_on_2_4_8_images() {
    let _g = serial();
    if skip_without("caf.mpich", "--version", "libcoarrays-mpich-dev") || skip_without_mpiexec() {
        return;
    }
    let prog = build("coarray_halo", "f90", "caf.mpich");
    for images in [2u64, 4, 8] {
        let n = same_output_as_native("coarray_halo", &prog, &images.to_string());
        assert_eq!(n, 8 * images, "on {images} images");
    }
}

/// The dynamic symbols of `library`, defined ones (`--defined-only`) or
/// the ones it needs (`--undefined-only`).
fn dynamic_symbols(library: &Path, which: &str) -> BTreeSet<String> {
    let o = Command::new("nm")
        .args(["-D", which])
        .arg(library)
        .output()
        .expect("run nm (binutils)");
    assert!(o.status.success(), "nm -D {} failed", library.display());
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().last())
        .map(String::from)
        .collect()
}

/// The dynamic symbols `library` defines that gfortran could call:
/// `mpi_x_` and `pmpi_x_` (one trailing underscore, not the `mpi_f08`
/// module's `_f08` names).
fn gfortran_names(library: &Path) -> BTreeSet<String> {
    dynamic_symbols(library, "--defined-only")
        .into_iter()
        .filter(|s| {
            (s.starts_with("mpi_") || s.starts_with("pmpi_"))
                && s.ends_with('_')
                && !s.ends_with("__")
                && !s.contains("_f08")
        })
        .collect()
}

/// Functions are bound lazily: a C function the Fortran library declares
/// but the C library lacks would only fail when called.
#[test]
fn the_c_library_defines_every_mpi_symbol_the_fortran_library_needs() {
    let fortran = fortran_library();
    let c = fortran.with_file_name("libchannel_shim.so");
    let needed: BTreeSet<String> = dynamic_symbols(&fortran, "--undefined-only")
        .into_iter()
        .filter(|s| s.starts_with("MPI") || s.starts_with("mpinetsim_"))
        .collect();
    assert!(needed.len() > 100, "{} MPI symbols needed", needed.len());
    let defined = dynamic_symbols(&c, "--defined-only");
    let missing: Vec<&String> = needed.difference(&defined).collect();
    assert!(missing.is_empty(), "libchannel_shim.so lacks {missing:?}");
}

/// Debian MPICH's Fortran library, the reference for the symbol tests;
/// None (after `skip_because`, which fails under CI) when not installed.
fn debian_fortran_library() -> Option<&'static Path> {
    let debian = Path::new("/usr/lib/x86_64-linux-gnu/libmpichfort.so.12");
    if !debian.is_file()
        && skip_because(&format!(
            "{} not found (apt-get install libmpich12)",
            debian.display()
        ))
    {
        return None;
    }
    Some(debian)
}

#[test]
fn every_gfortran_name_of_debian_mpich_is_exported() {
    let Some(debian) = debian_fortran_library() else {
        return;
    };
    let theirs = gfortran_names(debian);
    let ours = gfortran_names(&fortran_library());
    assert!(
        theirs.len() > 800,
        "{} names in Debian's library",
        theirs.len()
    );
    let missing: Vec<&String> = theirs.difference(&ours).collect();
    assert!(missing.is_empty(), "not exported: {missing:?}");
}

/// Every symbol of Debian's `use mpi_f08` bindings (`_f08`/`_f08ts`
/// routines, module procedures and data, `MPIR_F08_*`) is exported, so
/// every `use mpi_f08` program loads.
#[test]
fn every_mpi_f08_symbol_of_debian_mpich_is_exported() {
    let Some(debian) = debian_fortran_library() else {
        return;
    };
    let f08 = |library: &Path| -> BTreeSet<String> {
        dynamic_symbols(library, "--defined-only")
            .into_iter()
            .filter(|s| s.to_ascii_lowercase().contains("f08"))
            .collect()
    };
    let theirs = f08(debian);
    assert!(
        theirs.len() > 1200,
        "{} f08 symbols in Debian's library",
        theirs.len()
    );
    let mut ours = f08(&fortran_library());
    // MPI_Status_c2f08 and MPI_Status_f082c are the C library's.
    ours.extend(dynamic_symbols(
        &fortran_library().with_file_name("libchannel_shim.so"),
        "--defined-only",
    ));
    let missing: Vec<&String> = theirs.difference(&ours).collect();
    assert!(missing.is_empty(), "not exported: {missing:?}");
}

/// The folder of the `mpi.mod` that `mpif90` compiles `use mpi` against
/// (its `-I` option), if it has one.
fn mpi_module_dir() -> Option<std::path::PathBuf> {
    let o = Command::new("mpif90").arg("-show").output().ok()?;
    String::from_utf8_lossy(&o.stdout)
        .split_whitespace()
        .filter_map(|w| w.strip_prefix("-I"))
        .map(std::path::PathBuf::from)
        .find(|d| d.join("mpi.mod").is_file())
}

/// The gfortran names (`__<module>_MOD_<procedure>`) of the module
/// procedures a gfortran module file lists: entries marked
/// `MODULE-PROC DECL` (interface bodies of external routines are
/// `MODULE-PROC BODY` and resolve to the ordinary `mpi_x_` names).
fn module_procedures(mod_file: &Path) -> BTreeSet<String> {
    let o = Command::new("gzip")
        .arg("-dc")
        .arg(mod_file)
        .output()
        .expect("run gzip");
    assert!(o.status.success(), "gzip -dc {}", mod_file.display());
    let text = String::from_utf8_lossy(&o.stdout).replace('\n', " ");
    let mut out = BTreeSet::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("MODULE-PROC DECL") {
        // "... 'name' 'module' '' 1 ((PROCEDURE UNKNOWN-INTENT MODULE-PROC DECL"
        let before = &rest[..at];
        let head = before.rfind("((PROCEDURE").map_or(before, |p| &before[..p]);
        let quoted: Vec<&str> = head.rsplit('\'').skip(1).step_by(2).take(3).collect();
        if let [_, module, name] = quoted[..] {
            out.insert(format!("__{module}_MOD_{name}"));
        }
        rest = &rest[at + 1..];
    }
    out
}

/// Programs with `use mpi` call the module procedures of Debian's `mpi`
/// module (`MPI_SIZEOF`'s specifics, the handle comparisons) by their
/// gfortran names: every one must be defined, or such a program cannot
/// start (`undefined symbol: __mpi_sizeofs_MOD_mpi_sizeof_r`).
#[test]
fn every_module_procedure_of_debians_mpi_module_is_exported() {
    if skip_without("mpif90", "-show", "mpich libmpich-dev gfortran") {
        return;
    }
    let Some(dir) = mpi_module_dir() else {
        panic!("mpif90 -show names no folder with mpi.mod: install libmpich-dev");
    };
    let wanted = module_procedures(&dir.join("mpi.mod"));
    // 18 specifics of MPI_SIZEOF and == / /= on 10 handle types.
    assert_eq!(wanted.len(), 38, "{wanted:?}");
    assert!(
        wanted.contains("__mpi_sizeofs_MOD_mpi_sizeof_r"),
        "{wanted:?}"
    );
    let ours = dynamic_symbols(&fortran_library(), "--defined-only");
    let missing: Vec<&String> = wanted.difference(&ours).collect();
    assert!(missing.is_empty(), "not exported: {missing:?}");
}

/// MPICH's extensions and `MPI_Delete_error_*` through `use mpi_f08`
/// (tests/mpi/f08_mpix.f90), where Debian's MPICH cannot be the reference
/// (its `MPIX_Comm_agree` asserts): 12 checks per rank that follow from
/// the definitions where no process fails (MPIX_Comm_revoke included), on
/// 2 and 3 ranks.
#[test]
fn mpich_extensions_and_error_deletion_through_use_mpi_f08() {
    let _g = serial();
    if skip_without("mpif90", "-show", "mpich libmpich-dev gfortran") {
        return;
    }
    fortran_library();
    let prog = build("f08_mpix", "f90", "mpif90");
    passes_its_checks_on(&prog, "f08_mpix", 13, &[2, 3]);
}
