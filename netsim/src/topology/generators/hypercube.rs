//! `hypercube`: 2^N routers numbered 0…2^N−1, router i linked to every
//! router whose number differs from i in exactly one bit, one host each.

use super::{check_size, Builder, Layout};

/// Builds a hypercube of order `order` (N).
pub fn build(order: u32, b: &mut Builder) -> Result<Layout, String> {
    if order == 0 {
        return Err(
            "`topology.order` is 0; a hypercube needs order 1 or more (2^order routers)".into(),
        );
    }
    check_size(1u64.checked_shl(order + 1).filter(|_| order < 32), "order")?;
    let names = b.routers(1 << order);
    b.host_per_router(&names)?;
    for i in 0..names.len() {
        for bit in 0..order {
            let j = i ^ (1 << bit);
            if j > i {
                b.link(&names[i], &names[j]);
            }
        }
    }
    Ok(Layout::Hypercube { order })
}
