//! The bottom layer: vocabulary every other layer uses and that uses
//! nothing of netsim — virtual time, human units, the ids of a network's
//! parts, addresses, the seeded random generator, the event queue, fast
//! hash maps and one-line text.

pub mod addr;
pub mod event;
pub mod fasthash;
pub mod ids;
pub mod rng;
pub mod text;
pub mod time;
pub mod units;
