//! (being written; see p2p.rs for the pattern)
