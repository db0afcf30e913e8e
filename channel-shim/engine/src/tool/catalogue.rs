//! The variables and categories the tool interface offers: performance
//! variables over the engine's matching queues and message counters,
//! control variables mirroring the rank-side settings (read-only), and the
//! categories grouping them. Indices are positions in these lists and never
//! change while the process runs.

use super::readings::Readings;

/// C type of a variable's value (`MPI_INT` or `MPI_UNSIGNED_LONG_LONG`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueType {
    /// `int`.
    Int,
    /// `unsigned long long`.
    UnsignedLongLong,
}

/// `MPI_T_VERBOSITY_*`: who the variable is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verbosity {
    /// `MPI_T_VERBOSITY_USER_BASIC`.
    UserBasic,
    /// `MPI_T_VERBOSITY_TUNER_BASIC`.
    TunerBasic,
    /// `MPI_T_VERBOSITY_TUNER_DETAIL`.
    TunerDetail,
}

/// `MPI_T_PVAR_CLASS_*` of the performance variables offered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PvarClass {
    /// `MPI_T_PVAR_CLASS_LEVEL`: a current utilization (queue length, bytes held).
    Level,
    /// `MPI_T_PVAR_CLASS_COUNTER`: occurrences since the handle started.
    Counter,
    /// `MPI_T_PVAR_CLASS_HIGHWATERMARK`: the highest level while the handle
    /// was started (starting at the level when allocated or reset).
    HighWatermark,
}

/// `MPI_T_SCOPE_*` of the control variables offered (all read-only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// `MPI_T_SCOPE_CONSTANT`: fixed for the whole run.
    Constant,
    /// `MPI_T_SCOPE_READONLY`: decided by the run (network, `MPI_Init`), never writable.
    Readonly,
}

/// Where a performance variable's value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PvarSource {
    /// Receives in the posted queue.
    PostedLength,
    /// Messages in the unexpected queue.
    UnexpectedLength,
    /// Eager payload bytes in the unexpected queue.
    UnexpectedBytes,
    /// Posted receives examined without matching by arriving messages.
    PostedSearchMisses,
    /// Queued messages examined without matching by new receives.
    UnexpectedSearchMisses,
    /// Matches where the message arrived (virtually) after the receive was posted.
    ExpectedMatches,
    /// Matches where the message arrived (virtually) before the receive was posted.
    UnexpectedMatches,
    /// Protocol messages handed to the network.
    MessagesSent,
    /// Bytes of them, envelopes included.
    BytesSent,
    /// Protocol messages received from the network.
    MessagesReceived,
    /// Bytes of them, envelopes included.
    BytesReceived,
    /// Receives in the posted queue; peak: its longest since the previous readings.
    PostedPeak,
    /// Messages in the unexpected queue; peak: its longest since the previous readings.
    UnexpectedPeak,
}

impl PvarSource {
    /// The value in `r`.
    pub fn read(self, r: &Readings) -> u64 {
        let c = &r.counters;
        match self {
            PvarSource::PostedLength => r.posted_len,
            PvarSource::UnexpectedLength => r.unexpected_len,
            PvarSource::UnexpectedBytes => r.unexpected_bytes,
            PvarSource::PostedSearchMisses => r.posted_search_misses,
            PvarSource::UnexpectedSearchMisses => r.unexpected_search_misses,
            PvarSource::ExpectedMatches => c.expected,
            PvarSource::UnexpectedMatches => c.unexpected,
            PvarSource::MessagesSent => c.messages_sent,
            PvarSource::BytesSent => c.bytes_sent,
            PvarSource::MessagesReceived => c.messages_received,
            PvarSource::BytesReceived => c.bytes_received,
            PvarSource::PostedPeak => r.posted_len,
            PvarSource::UnexpectedPeak => r.unexpected_len,
        }
    }

    /// For a high-water mark's source, the highest value since the
    /// previous readings (the current value for the others).
    pub fn peak(self, r: &Readings) -> u64 {
        match self {
            PvarSource::PostedPeak => r.posted_peak,
            PvarSource::UnexpectedPeak => r.unexpected_peak,
            other => other.read(r),
        }
    }
}

/// Where a control variable's value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CvarSource {
    /// [`super::readings::Settings::eager_threshold`].
    EagerThreshold,
    /// [`super::readings::Settings::rendezvous_chunk`].
    RendezvousChunk,
    /// [`super::readings::Settings::rendezvous_window`].
    RendezvousWindow,
    /// [`super::readings::Settings::thread_level`].
    ThreadLevel,
    /// Bcast: binomial tree below this many bytes.
    BcastShort,
    /// Bcast: scatter + recursive-doubling allgather below this many bytes.
    BcastLong,
    /// Bcast: binomial tree below this many ranks.
    BcastMinProcs,
    /// Allreduce: recursive doubling up to this many bytes.
    AllreduceShort,
    /// Alltoall: Bruck up to this many bytes per block.
    AlltoallShort,
    /// Alltoall: all at once up to this many bytes per block.
    AlltoallMedium,
    /// Allgather: Bruck below this total for non-powers of two.
    AllgatherShort,
    /// Allgather: recursive doubling below this total for powers of two.
    AllgatherLong,
    /// Intercommunicator gather/scatter through the root group below this total.
    InterShort,
}

impl CvarSource {
    /// The value in `r`, as the variable's C type holds it (`int` values
    /// sign-extended).
    pub fn read(self, r: &Readings) -> i64 {
        let s = &r.settings;
        let c = &s.coll;
        let v = match self {
            CvarSource::EagerThreshold => s.eager_threshold,
            CvarSource::RendezvousChunk => s.rendezvous_chunk,
            CvarSource::RendezvousWindow => s.rendezvous_window as u64,
            CvarSource::ThreadLevel => return s.thread_level as i64,
            CvarSource::BcastShort => c.bcast_short,
            CvarSource::BcastLong => c.bcast_long,
            CvarSource::BcastMinProcs => c.bcast_min_procs as u64,
            CvarSource::AllreduceShort => c.allreduce_short,
            CvarSource::AlltoallShort => c.alltoall_short,
            CvarSource::AlltoallMedium => c.alltoall_medium,
            CvarSource::AllgatherShort => c.allgather_short,
            CvarSource::AllgatherLong => c.allgather_long,
            CvarSource::InterShort => c.inter_short,
        };
        v.min(i64::MAX as u64) as i64
    }
}

/// A performance variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PvarInfo {
    /// Its name (`MPI_T_pvar_get_index`).
    pub name: &'static str,
    /// Its description, unit included.
    pub desc: &'static str,
    /// Who it is for.
    pub verbosity: Verbosity,
    /// Its class.
    pub class: PvarClass,
    /// Its C type.
    pub datatype: ValueType,
    /// Where its value comes from.
    pub source: PvarSource,
    /// Cannot be written or reset (`MPI_T_ERR_PVAR_NO_WRITE`).
    pub readonly: bool,
    /// Always active; cannot be started or stopped (`MPI_T_ERR_PVAR_NO_STARTSTOP`).
    pub continuous: bool,
    /// Can be read and reset in one atomic step (`MPI_T_pvar_readreset`).
    pub atomic: bool,
}

/// A control variable (all read-only here: they mirror settings).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CvarInfo {
    /// Its name (`MPI_T_cvar_get_index`).
    pub name: &'static str,
    /// Its description, unit included.
    pub desc: &'static str,
    /// Who it is for.
    pub verbosity: Verbosity,
    /// Its C type.
    pub datatype: ValueType,
    /// Its enumeration (index into [`Catalogue::enums`]), if its values are named.
    pub enumeration: Option<usize>,
    /// Its scope.
    pub scope: Scope,
    /// Where its value comes from.
    pub source: CvarSource,
}

/// A named enumeration of `int` values (`MPI_T_enum`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnumInfo {
    /// Its name.
    pub name: &'static str,
    /// Its items: (value, name).
    pub items: Vec<(i32, &'static str)>,
}

/// A category: a named group of variables and subcategories.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CategoryInfo {
    /// Its name (`MPI_T_category_get_index`).
    pub name: &'static str,
    /// Its description.
    pub desc: &'static str,
    /// Indices of its control variables.
    pub cvars: Vec<usize>,
    /// Indices of its performance variables.
    pub pvars: Vec<usize>,
    /// Indices of its subcategories.
    pub categories: Vec<usize>,
}

/// Everything the tool interface offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Catalogue {
    /// Performance variables, by index.
    pub pvars: Vec<PvarInfo>,
    /// Control variables, by index.
    pub cvars: Vec<CvarInfo>,
    /// Enumerations, by index.
    pub enums: Vec<EnumInfo>,
    /// Categories, by index.
    pub categories: Vec<CategoryInfo>,
}

fn level(name: &'static str, source: PvarSource, desc: &'static str) -> PvarInfo {
    PvarInfo {
        name,
        desc,
        verbosity: Verbosity::TunerBasic,
        class: PvarClass::Level,
        datatype: ValueType::UnsignedLongLong,
        source,
        readonly: true,
        continuous: true,
        atomic: true,
    }
}

fn counter(name: &'static str, source: PvarSource, desc: &'static str) -> PvarInfo {
    PvarInfo {
        name,
        desc,
        verbosity: Verbosity::TunerBasic,
        class: PvarClass::Counter,
        datatype: ValueType::UnsignedLongLong,
        source,
        readonly: false,
        continuous: false,
        atomic: true,
    }
}

fn watermark(name: &'static str, source: PvarSource, desc: &'static str) -> PvarInfo {
    PvarInfo {
        class: PvarClass::HighWatermark,
        ..counter(name, source, desc)
    }
}

fn cvar(
    name: &'static str,
    datatype: ValueType,
    scope: Scope,
    source: CvarSource,
    desc: &'static str,
) -> CvarInfo {
    CvarInfo {
        name,
        desc,
        verbosity: Verbosity::TunerDetail,
        datatype,
        enumeration: None,
        scope,
        source,
    }
}

/// Names of the MPI thread levels, by value.
pub const THREAD_LEVELS: [(i32, &str); 4] = [
    (0, "MPI_THREAD_SINGLE"),
    (1, "MPI_THREAD_FUNNELED"),
    (2, "MPI_THREAD_SERIALIZED"),
    (3, "MPI_THREAD_MULTIPLE"),
];

impl Catalogue {
    /// The shim's variables (documented in docs/user-guide.md, "MPI_T variables").
    pub fn standard() -> Catalogue {
        use PvarSource as P;
        let pvars = vec![
            level("posted_recvq_length", P::PostedLength,
                "Receives posted and not yet matched (the posted-receive queue's length), receives."),
            level("unexpected_recvq_length", P::UnexpectedLength,
                "Messages arrived and not yet matched by a receive (the unexpected-message queue's length), messages."),
            level("unexpected_recvq_buffer_size", P::UnexpectedBytes,
                "Payload of the eager messages in the unexpected-message queue, bytes."),
            counter("posted_recvq_unsuccessful_matches", P::PostedSearchMisses,
                "Posted receives an arriving message examined without matching them, receives."),
            counter("unexpected_recvq_unsuccessful_matches", P::UnexpectedSearchMisses,
                "Queued unexpected messages a new receive examined without matching them, messages."),
            counter("expected_matches", P::ExpectedMatches,
                "Matches of a message that arrived (in emulated time) after its receive was posted, matches."),
            counter("unexpected_matches", P::UnexpectedMatches,
                "Matches of a message that arrived (in emulated time) before its receive was posted, matches."),
            counter("messages_sent", P::MessagesSent,
                "Protocol messages this rank handed to the simulated network (eager, rendezvous and acknowledgement messages, those of collectives included), messages."),
            counter("bytes_sent", P::BytesSent,
                "Bytes of the protocol messages sent, envelopes included, bytes."),
            counter("messages_received", P::MessagesReceived,
                "Protocol messages this rank received from the simulated network, messages."),
            counter("bytes_received", P::BytesReceived,
                "Bytes of the protocol messages received, envelopes included, bytes."),
            watermark("posted_recvq_length_highwatermark", P::PostedPeak,
                "Longest the posted-receive queue has been while the handle was started, receives."),
            watermark("unexpected_recvq_length_highwatermark", P::UnexpectedPeak,
                "Longest the unexpected-message queue has been while the handle was started, messages."),
        ];
        use CvarSource as C;
        use Scope::{Constant, Readonly};
        use ValueType::{Int, UnsignedLongLong as Ull};
        let mut cvars = vec![
            cvar("MPINETSIM_EAGER_THRESHOLD", Ull, Readonly, C::EagerThreshold,
                "Messages up to this many bytes are sent eagerly, larger ones by rendezvous: the network configuration's eager limit, at most one rendezvous piece (0 before MPI_Init), bytes."),
            cvar("MPINETSIM_RENDEZVOUS_CHUNK", Ull, Readonly, C::RendezvousChunk,
                "Largest piece of rendezvous data one message carries (0 before MPI_Init), bytes."),
            cvar("MPINETSIM_RENDEZVOUS_WINDOW", Int, Constant, C::RendezvousWindow,
                "Pieces of one rendezvous transfer a sender may have sent and not yet seen acknowledged, pieces."),
            cvar("MPINETSIM_THREAD_LEVEL", Int, Readonly, C::ThreadLevel,
                "Thread level MPI_Init_thread provided (MPI_THREAD_SINGLE before MPI_Init)."),
            cvar("MPIR_CVAR_BCAST_SHORT_MSG_SIZE", Int, Constant, C::BcastShort,
                "MPI_Bcast uses a binomial tree below this message size, bytes."),
            cvar("MPIR_CVAR_BCAST_LONG_MSG_SIZE", Int, Constant, C::BcastLong,
                "MPI_Bcast uses scatter and recursive-doubling allgather (powers of two) or scatter and ring below this message size, bytes."),
            cvar("MPIR_CVAR_BCAST_MIN_PROCS", Int, Constant, C::BcastMinProcs,
                "MPI_Bcast always uses a binomial tree below this many ranks, ranks."),
            cvar("MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE", Int, Constant, C::AllreduceShort,
                "MPI_Allreduce uses recursive doubling up to this message size, Rabenseifner's algorithm above (commutative operations), bytes."),
            cvar("MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE", Int, Constant, C::AlltoallShort,
                "MPI_Alltoall uses Bruck's algorithm up to this block size (8 ranks or more), bytes."),
            cvar("MPIR_CVAR_ALLTOALL_MEDIUM_MSG_SIZE", Int, Constant, C::AlltoallMedium,
                "MPI_Alltoall posts all sends and receives at once up to this block size, pairwise exchange above, bytes."),
            cvar("MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE", Int, Constant, C::AllgatherShort,
                "MPI_Allgather uses Bruck's algorithm below this total size (non-powers of two), bytes."),
            cvar("MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE", Int, Constant, C::AllgatherLong,
                "MPI_Allgather uses recursive doubling below this total size (powers of two), a ring above, bytes."),
            cvar("MPIR_CVAR_GATHER_INTER_SHORT_MSG_SIZE", Int, Constant, C::InterShort,
                "Intercommunicator gathers and scatters go through the receiving group's rank 0 below this total size, bytes."),
        ];
        cvars[3].enumeration = Some(0);
        let enums = vec![EnumInfo {
            name: "MPI_THREAD_LEVEL",
            items: THREAD_LEVELS.to_vec(),
        }];
        let categories = vec![
            CategoryInfo {
                name: "MPINETSIM",
                desc: "Variables of mpinetsim's MPI library.",
                cvars: vec![3],
                pvars: vec![],
                categories: vec![1, 2, 3],
            },
            CategoryInfo {
                name: "MPINETSIM_MATCHING",
                desc: "Message matching: the posted-receive and unexpected-message queues.",
                cvars: vec![],
                pvars: vec![0, 1, 2, 11, 12, 3, 4, 5, 6],
                categories: vec![],
            },
            CategoryInfo {
                name: "MPINETSIM_PROTOCOL",
                desc: "Messages on the simulated network and the eager/rendezvous protocols.",
                cvars: vec![0, 1, 2],
                pvars: (7..11).collect(),
                categories: vec![],
            },
            CategoryInfo {
                name: "COLLECTIVE",
                desc: "Message sizes and rank counts at which the collectives change algorithm (MPICH's defaults).",
                cvars: (4..13).collect(),
                pvars: vec![],
                categories: vec![],
            },
        ];
        Catalogue {
            pvars,
            cvars,
            enums,
            categories,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// Every variable is in exactly one category, every index is valid,
    /// names are unique, and the category tree has no cycle.
    #[test]
    fn standard_catalogue_is_consistent() {
        let c = Catalogue::standard();
        let mut pv = vec![0; c.pvars.len()];
        let mut cv = vec![0; c.cvars.len()];
        for cat in &c.categories {
            cat.pvars.iter().for_each(|&i| pv[i] += 1);
            cat.cvars.iter().for_each(|&i| cv[i] += 1);
            assert!(cat.categories.iter().all(|&i| i < c.categories.len()));
        }
        assert!(pv.iter().all(|&n| n == 1), "{pv:?}");
        assert!(cv.iter().all(|&n| n == 1), "{cv:?}");
        // Subcategories only point forward: no cycle.
        for (i, cat) in c.categories.iter().enumerate() {
            assert!(cat.categories.iter().all(|&j| j > i));
        }
        let names: HashSet<_> = c.pvars.iter().map(|p| p.name).collect();
        assert_eq!(names.len(), c.pvars.len());
        let names: HashSet<_> = c.cvars.iter().map(|v| v.name).collect();
        assert_eq!(names.len(), c.cvars.len());
        for v in &c.cvars {
            if let Some(e) = v.enumeration {
                assert!(e < c.enums.len());
                assert_eq!(v.datatype, ValueType::Int);
            }
        }
    }

    #[test]
    fn sources_read_their_fields() {
        let mut r = Readings {
            posted_len: 3,
            unexpected_len: 4,
            unexpected_bytes: 40,
            posted_search_misses: 5,
            unexpected_search_misses: 6,
            ..Readings::default()
        };
        r.counters.messages_sent = 7;
        r.counters.bytes_received = 8;
        r.settings.thread_level = 3;
        r.settings.eager_threshold = 65536;
        let c = Catalogue::standard();
        let by_name = |n: &str| {
            c.pvars
                .iter()
                .find(|p| p.name == n)
                .unwrap()
                .source
                .read(&r)
        };
        assert_eq!(by_name("posted_recvq_length"), 3);
        assert_eq!(by_name("unexpected_recvq_length"), 4);
        assert_eq!(by_name("unexpected_recvq_buffer_size"), 40);
        assert_eq!(by_name("posted_recvq_unsuccessful_matches"), 5);
        assert_eq!(by_name("unexpected_recvq_unsuccessful_matches"), 6);
        assert_eq!(by_name("messages_sent"), 7);
        assert_eq!(by_name("bytes_received"), 8);
        let cv = |n: &str| {
            c.cvars
                .iter()
                .find(|v| v.name == n)
                .unwrap()
                .source
                .read(&r)
        };
        assert_eq!(cv("MPINETSIM_THREAD_LEVEL"), 3);
        assert_eq!(cv("MPINETSIM_EAGER_THRESHOLD"), 65536);
        assert_eq!(cv("MPIR_CVAR_BCAST_SHORT_MSG_SIZE"), 12288);
    }
}
