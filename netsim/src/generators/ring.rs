//! `ring`: `hosts` routers in a bidirectional cycle (router i linked to
//! router i+1, the last to the first), one host on each.

use super::{check_size, Builder};

/// Builds a ring of `n` routers and hosts.
pub fn build(n: u32, b: &mut Builder) -> Result<(), String> {
    if n < 3 {
        return Err(format!(
            "`topology.hosts` is {n}; a ring needs at least 3 (use a star or a mesh for fewer)"
        ));
    }
    check_size(Some(2 * n as u64), "hosts")?;
    let names = b.routers(n);
    b.host_per_router(&names);
    for i in 0..names.len() {
        b.link(&names[i], &names[(i + 1) % names.len()]);
    }
    Ok(())
}
