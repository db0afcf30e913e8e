//! The shim's datatype engine, driven as an MPI program drives it: a
//! sequence of constructor, commit, free and use calls with whatever
//! counts, strides, displacements and bounds the program passes (counts
//! are C `int`s the C layer has checked to be non-negative; strides and
//! displacements are `int` or `MPI_Aint`).
//!
//! Every call must return a result, never panic; a type that exists must
//! pack `count` instances into exactly `count × size` bytes, unpack them
//! back, and answer `MPI_Get_count` / `MPI_Get_elements` consistently.

use arbitrary::{Arbitrary, Unstructured};
use shim_engine::datatype::subarray as sa;
use shim_engine::datatype::{BuiltinType, Datatypes, TypeArg};
use shim_engine::DatatypeId;

/// Largest user-memory region the harness allocates for one use.
const MAX_REGION: usize = 1 << 20;
/// Most calls one input makes.
const MAX_CALLS: usize = 64;
/// Most typemap runs the live types of one input may hold together (the
/// engine allows each type [`shim_engine::datatype::MAX_TYPEMAP_RUNS`];
/// this keeps the fuzzer's memory bounded when an input makes many).
const MAX_LIVE_RUNS: usize = 1 << 23;

/// One call of the program. Types are named by index into the list of
/// predefined types followed by the types created so far.
#[derive(Arbitrary, Debug)]
enum Call {
    Contiguous {
        count: Count,
        old: u8,
    },
    Vector {
        count: Count,
        blocklen: Count,
        stride: i32,
        old: u8,
    },
    Hvector {
        count: Count,
        blocklen: Count,
        stride: i64,
        old: u8,
    },
    Indexed {
        blocks: Vec<(Count, i32)>,
        old: u8,
    },
    Hindexed {
        blocks: Vec<(Count, i64)>,
        old: u8,
    },
    IndexedBlock {
        blocklen: Count,
        disps: Vec<i32>,
        old: u8,
    },
    HindexedBlock {
        blocklen: Count,
        disps: Vec<i64>,
        old: u8,
    },
    Struct {
        fields: Vec<(Count, i64, u8)>,
    },
    Resized {
        old: u8,
        lb: i64,
        extent: i64,
    },
    Subarray {
        /// (size, subsize, start) per dimension.
        dims: Vec<(i32, i32, i32)>,
        order: i32,
        old: u8,
    },
    Darray {
        size: i32,
        rank: i32,
        /// (gsize, distribution, darg, psize) per dimension.
        dims: Vec<(i32, i32, i32, i32)>,
        order: i32,
        old: u8,
    },
    Dup {
        old: u8,
    },
    Commit {
        t: u8,
    },
    Free {
        t: u8,
    },
    Use {
        t: u8,
        count: u8,
        seed: u8,
    },
    Sizes {
        t: u8,
        count: Count,
    },
}

/// A count as the C layer passes it on: an `int` it has checked to be
/// non-negative. Mostly small, sometimes anything up to `INT_MAX`.
#[derive(Debug, Clone, Copy)]
struct Count(usize);

impl<'a> Arbitrary<'a> for Count {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(Count(if u.ratio(1, 8)? {
            u.int_in_range(0..=i32::MAX as usize)?
        } else {
            u.int_in_range(0..=40)?
        }))
    }
}

/// Runs the calls the bytes describe.
pub fn datatypes(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let mut dts = Datatypes::new();
    let mut types: Vec<DatatypeId> = BuiltinType::ALL
        .iter()
        .map(|&b| DatatypeId::Builtin(b))
        .collect();
    for _ in 0..MAX_CALLS {
        let Ok(call) = Call::arbitrary(&mut u) else {
            return;
        };
        let pick = |i: u8| types[i as usize % types.len()];
        let made = match call {
            Call::Contiguous { count, old } => dts.contiguous(count.0, pick(old)),
            Call::Vector {
                count,
                blocklen,
                stride,
                old,
            } => dts.vector(count.0, blocklen.0, stride.into(), pick(old)),
            Call::Hvector {
                count,
                blocklen,
                stride,
                old,
            } => dts.hvector(count.0, blocklen.0, stride, pick(old)),
            Call::Indexed { blocks, old } => {
                let (lens, disps) = unzip(&blocks, |&(l, d)| (l.0, i64::from(d)));
                dts.indexed(&lens, &disps, pick(old))
            }
            Call::Hindexed { blocks, old } => {
                let (lens, disps) = unzip(&blocks, |&(l, d)| (l.0, d));
                dts.hindexed(&lens, &disps, pick(old))
            }
            Call::IndexedBlock {
                blocklen,
                disps,
                old,
            } => {
                let disps: Vec<i64> = disps.iter().map(|&d| d.into()).collect();
                dts.indexed_block(blocklen.0, &disps, pick(old))
            }
            Call::HindexedBlock {
                blocklen,
                disps,
                old,
            } => dts.hindexed_block(blocklen.0, &disps, pick(old)),
            Call::Struct { fields } => {
                let lens: Vec<usize> = fields.iter().map(|f| f.0 .0).collect();
                let disps: Vec<i64> = fields.iter().map(|f| f.1).collect();
                let olds: Vec<TypeArg> = fields.iter().map(|f| TypeArg::Type(pick(f.2))).collect();
                dts.create_struct(&lens, &disps, &olds)
            }
            Call::Resized { old, lb, extent } => dts.resized(pick(old), lb, extent),
            Call::Subarray { dims, order, old } => {
                let (mut sz, mut sub, mut st) = (Vec::new(), Vec::new(), Vec::new());
                for (a, b, c) in dims {
                    sz.push(a);
                    sub.push(b);
                    st.push(c);
                }
                dts.subarray(&sz, &sub, &st, mpi_order(order), pick(old))
            }
            Call::Darray {
                size,
                rank,
                dims,
                order,
                old,
            } => {
                let (mut g, mut d, mut a, mut p) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
                for (gi, di, ai, pi) in dims {
                    g.push(gi);
                    d.push(mpi_distribution(di));
                    a.push(if ai % 3 == 0 {
                        sa::DISTRIBUTE_DFLT_DARG
                    } else {
                        ai
                    });
                    p.push(pi);
                }
                dts.darray(size, rank, &g, &d, &a, &p, mpi_order(order), pick(old))
            }
            Call::Dup { old } => dts.dup(pick(old)),
            Call::Commit { t } => {
                let _ = dts.commit(pick(t));
                continue;
            }
            Call::Free { t } => {
                let _ = dts.free(pick(t));
                continue;
            }
            Call::Use { t, count, seed } => {
                use_type(&dts, pick(t), count.into(), seed);
                continue;
            }
            Call::Sizes { t, count } => {
                sizes(&dts, pick(t), count.0);
                continue;
            }
        };
        if let Ok(t) = made {
            check_bounds(&dts, t);
            let live: usize = types
                .iter()
                .filter_map(|&t| dts.info(t).ok())
                .map(|i| i.runs.len())
                .sum();
            if live > MAX_LIVE_RUNS {
                dts.free(t).expect("a type just made can be freed");
            } else {
                types.push(t);
            }
        }
    }
}

/// Mostly one of the two orders, sometimes anything.
fn mpi_order(v: i32) -> i32 {
    match v.rem_euclid(5) {
        0..=1 => sa::ORDER_C,
        2..=3 => sa::ORDER_FORTRAN,
        _ => v,
    }
}

/// Mostly one of the three distributions, sometimes anything.
fn mpi_distribution(v: i32) -> i32 {
    match v.rem_euclid(7) {
        0..=1 => sa::DISTRIBUTE_BLOCK,
        2..=3 => sa::DISTRIBUTE_CYCLIC,
        4..=5 => sa::DISTRIBUTE_NONE,
        _ => v,
    }
}

fn unzip<T>(items: &[T], f: impl Fn(&T) -> (usize, i64)) -> (Vec<usize>, Vec<i64>) {
    items.iter().map(f).unzip()
}

/// A new type's bounds are ordered and its data lies inside its true
/// bounds.
fn check_bounds(dts: &Datatypes, t: DatatypeId) {
    let info = dts.info(t).expect("a type just made exists");
    assert!(info.true_lb <= info.true_ub, "{info:?}");
    assert!(info.runs.len() as u64 <= shim_engine::datatype::MAX_TYPEMAP_RUNS);
    let data: u64 = info.runs.iter().map(|r| r.count * r.ty.size()).sum();
    assert_eq!(data, info.size, "runs and size disagree: {info:?}");
}

/// Queries that take a count but no memory: they must answer or refuse,
/// whatever the count.
fn sizes(dts: &Datatypes, t: DatatypeId, count: usize) {
    let Ok(size) = dts.size(t) else { return };
    if let Ok(packed) = dts.pack_size(t, count) {
        assert_eq!(Some(packed), size.checked_mul(count as u64));
    }
    let _ = dts.span(t, count);
    let _ = dts.get_elements(t, size.saturating_mul(count as u64));
}

/// Packs `count` instances of `t` from a patterned region, unpacks them
/// into a fresh one and packs again; checks sizes, counts and elements.
fn use_type(dts: &Datatypes, t: DatatypeId, count: usize, seed: u8) {
    if dts.committed(t).is_err() {
        return;
    }
    let Ok(span) = dts.span(t, count) else { return };
    if span.len > MAX_REGION {
        return;
    }
    let size = dts.size(t).expect("committed");
    let region: Vec<u8> = (0..span.len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect();
    // Instance offsets beyond MPI_Aint are refused (MPI_ERR_COUNT, as
    // documented), even when the data itself spans little.
    let packed = match dts.pack(t, count, &region) {
        Ok(p) => p,
        Err(shim_engine::MpiError::Count) => return,
        Err(e) => panic!("packs from its own span: {e:?}"),
    };
    assert_eq!(packed.len() as u64, size * count as u64);
    // Which region bytes does unpacking write? If every packed byte lands
    // on a byte of its own, the type does not overlap itself and a round
    // trip must give the packed bytes back.
    let mut marks = vec![0u8; span.len];
    let ones = vec![0xffu8; packed.len()];
    let used = dts
        .unpack(t, count, &ones, &mut marks)
        .expect("unpacks into its own span");
    assert_eq!(used, packed.len());
    let written = marks.iter().filter(|&&b| b == 0xff).count();
    assert!(written <= packed.len());
    if written == packed.len() {
        let mut fresh = vec![0u8; span.len];
        dts.unpack(t, count, &packed, &mut fresh).expect("unpacks");
        assert_eq!(dts.pack(t, count, &fresh).expect("packs"), packed);
    }
    // A short message fills only its leading part.
    let half = packed.len() / 2;
    let mut fresh = vec![0u8; span.len];
    assert_eq!(dts.unpack(t, count, &packed[..half], &mut fresh), Ok(half));
    if size > 0 {
        let bytes = size * count as u64;
        assert_eq!(dts.get_count(t, bytes), Ok(Some(count as u64)));
        let per = dts.info(t).expect("exists").basic_elements();
        assert_eq!(dts.get_elements(t, bytes), Ok(per * count as u64));
    }
}
