//! The hasher of the simulator's internal maps: rustc-hash's FxHasher
//! (keys are small integers and MAC addresses chosen by the simulator, so
//! hash flooding is not a concern; SipHash would cost more than the
//! lookups).

use std::collections::HashMap;

/// A `HashMap` using rustc-hash's Fx hasher.
pub type FastMap<K, V> = HashMap<K, V, rustc_hash::FxBuildHasher>;
