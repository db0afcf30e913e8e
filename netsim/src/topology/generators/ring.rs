//! `ring`: `hosts` routers in a cycle (router i linked to router i+1, the
//! last to the first), one host on each. Bidirectional rings are the
//! one-dimensional torus; a `directed` ring sends every packet the same way
//! round (router i only forwards to router i+1), as a unidirectional ring.

use super::{mesh, Builder, Layout};

/// Builds a ring of `n` routers and hosts.
pub fn build(n: u32, directed: bool, b: &mut Builder) -> Result<Layout, String> {
    if n < 3 {
        return Err(format!(
            "`topology.hosts` is {n}; a ring needs at least 3 (use a star or a mesh for fewer)"
        ));
    }
    let grid = mesh::grid(&[n], &[true], b)?;
    Ok(if directed {
        Layout::DirectedRing { n }
    } else {
        grid
    })
}
