//! `fat-tree`: the three-level k-ary fat-tree of L3 switches (routers): k
//! pods, each with k/2 edge and k/2 aggregation routers, every edge router
//! linked to every aggregation router of its pod and to k/2 hosts; (k/2)²
//! core routers, core c linked to aggregation router ⌊c / (k/2)⌋ of every
//! pod. k³/4 hosts; host h sits on edge router ⌊h / (k/2)⌋ (pods in order).
//!
//! Routers are created cores first (`core0`…), then aggregation
//! (`pod0.agg0`…), then edge (`pod0.edge0`…), which [`super::Layout::FatTree`]
//! relies on.

use super::{check_size, Builder, Layout};

/// Builds a k-ary fat-tree.
pub fn build(k: u32, b: &mut Builder) -> Result<Layout, String> {
    if k < 2 || k % 2 == 1 {
        return Err(format!(
            "`topology.k` is {k}; a fat-tree's radix must be an even number of at least 2"
        ));
    }
    let k64 = k as u64;
    check_size(
        Some(k64 * k64 * k64 / 4 + 5 * k64 * k64 / 4).filter(|_| k <= 1024),
        "k",
    )?;
    let half = k / 2;
    let cores: Vec<String> = (0..half * half)
        .map(|c| b.named_router(&format!("core{c}")))
        .collect();
    let aggs: Vec<Vec<String>> = (0..k)
        .map(|p| {
            (0..half)
                .map(|i| b.named_router(&format!("pod{p}.agg{i}")))
                .collect()
        })
        .collect();
    let edges: Vec<Vec<String>> = (0..k)
        .map(|p| {
            (0..half)
                .map(|i| b.named_router(&format!("pod{p}.edge{i}")))
                .collect()
        })
        .collect();
    for pod in &edges {
        for e in pod {
            for _ in 0..half {
                let h = b.host()?;
                b.link(&h, e);
            }
        }
    }
    for (p, pod) in edges.iter().enumerate() {
        for e in pod {
            for a in &aggs[p] {
                b.link(e, a);
            }
        }
    }
    for (c, core) in cores.iter().enumerate() {
        for pod in &aggs {
            b.link(&pod[c / half as usize], core);
        }
    }
    Ok(Layout::FatTree { k })
}
