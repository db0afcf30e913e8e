//! `tree`: an `arity`-ary tree of routers `levels` deep (the root is level
//! 0), numbered breadth-first from router0 at the root; hosts only at the
//! leaves, `hosts_per_leaf` on each (default `arity`, making the hosts the
//! tree's last level), numbered from the leftmost leaf.

use super::{check_size, Builder, Layout};

/// Builds the tree.
pub fn build(
    arity: u32,
    levels: u32,
    hosts_per_leaf: u32,
    b: &mut Builder,
) -> Result<Layout, String> {
    if arity == 0 {
        return Err("`topology.arity` is 0; every inner router needs at least one child".into());
    }
    if levels == 0 {
        return Err("`topology.levels` is 0; a tree needs at least one level (the root)".into());
    }
    if hosts_per_leaf == 0 {
        return Err(
            "`topology.hosts_per_leaf` is 0; every leaf router needs at least one host".into(),
        );
    }
    // Routers per level, total routers, and leaves, without overflow.
    let mut width = 1u64;
    let mut routers = 0u64;
    for l in 0..levels {
        routers += width;
        if routers > super::MAX_NODES {
            break;
        }
        if l + 1 < levels {
            width = width.saturating_mul(arity as u64);
        }
    }
    let total = width
        .checked_mul(hosts_per_leaf as u64)
        .and_then(|h| h.checked_add(routers));
    check_size(total.filter(|_| routers <= super::MAX_NODES), "levels")?;
    let names = b.routers(routers as u32);
    // Router p's children are arity·p + 1 … arity·p + arity (breadth-first).
    for (p, parent) in names.iter().enumerate() {
        for c in 1..=arity as usize {
            if let Some(child) = names.get(arity as usize * p + c) {
                b.link(parent, child);
            }
        }
    }
    for leaf in &names[names.len() - width as usize..] {
        for _ in 0..hosts_per_leaf {
            let h = b.host()?;
            b.link(&h, leaf);
        }
    }
    Ok(Layout::Tree { arity, levels })
}
