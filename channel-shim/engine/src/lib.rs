//! MPI semantics of the channel shim, in safe Rust and independent of the
//! C ABI: everything here is unit-tested without a gateway.
//!
//! The C layer owns one [`Engine`] per process and calls its methods for
//! every MPI call; see the module docs for the conventions on buffers
//! ([`datatype`]), requests ([`p2p`]) and collectives.

// Style lints that clippy raises only since the workspace's rust-version went
// from 1.80 to 1.88 (the newer std methods they suggest were not there at
// 1.80). The rewrite belongs to the shim's owners; it changes no behaviour.
#![allow(
    clippy::manual_is_multiple_of,
    clippy::unnecessary_map_or,
    clippy::manual_repeat_n
)]

pub mod attr;
pub mod cancel;
pub mod collectives;
pub mod comm;
pub mod comm_create;
pub mod comm_ops;
pub mod context;
pub mod datatype;
pub mod engine;
pub mod envelope;
pub mod errhandler;
pub mod error;
pub mod error_codes;
pub mod grequest;
pub mod group;
pub mod info;
pub mod io;
pub mod isendrecv;
pub mod matching;
pub mod mem_transport;
pub mod message_data;
pub mod mprobe;
pub mod names;
pub mod object;
pub mod object_ops;
pub mod op;
pub mod opaque;
pub mod p2p;
pub mod partitioned;
pub mod persistent_coll;
pub mod ports;
mod rendezvous;
pub mod replay_codes;
pub mod request;
pub mod revoke;
pub mod rma;
pub mod session;
pub mod spawn;
pub mod status;
pub mod tool;
pub mod topo;
pub mod transport;
pub mod waiting;

pub use attr::{AttrCall, Keyval, PredefinedAttr};
pub use comm::CommId;
pub use datatype::{BuiltinType, DatatypeId};
pub use engine::{Counters, Engine, EngineConfig};
pub use errhandler::{ErrhandlerId, ErrorAction};
pub use error::{MpiError, MpiResult};
pub use group::{Comparison, GroupId};
pub use matching::{Source, Tag};
pub use message_data::UserBuffer;
pub use object::{Object, ObjectKind};
pub use op::{BuiltinOp, OpId};
pub use opaque::Opaque;
pub use request::{Dest, RequestId, SendMode};
pub use status::{Completion, Status};
