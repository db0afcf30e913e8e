//! `dragonfly`: `groups` groups of `routers_per_group` routers, all routers
//! of a group linked to each other, `hosts_per_router` hosts on each router,
//! and exactly one global link between every two groups, carried by
//! routers with at most `global_links_per_router` global links each.
//!
//! Global wiring: group G's global channels are numbered c = 0, 1, …; the
//! link between groups G and T uses channel (T − G − 1) mod g at G, held by
//! router ⌊c / h⌋ of G (the "consecutive" arrangement). Router i of group G
//! is `g<G>.router<i>`, number G·a + i; host j sits on router ⌊j / p⌋.

use super::{check_size, Builder, Layout};

/// The group-local router that carries the global link from `from` to `to`.
pub(crate) fn global_router(from: u32, to: u32, groups: u32, h: u32) -> u32 {
    ((to + groups - from - 1) % groups) / h
}

/// Builds a dragonfly.
pub fn build(groups: u32, a: u32, p: u32, h: u32, b: &mut Builder) -> Result<Layout, String> {
    for (v, key) in [
        (groups, "groups"),
        (a, "routers_per_group"),
        (p, "hosts_per_router"),
    ] {
        if v == 0 {
            return Err(format!(
                "`topology.{key}` is 0; a dragonfly needs at least one"
            ));
        }
    }
    if groups > 1 && (groups as u64 - 1) > a as u64 * h as u64 {
        return Err(format!(
            "a dragonfly of {groups} groups needs {} global links per group but `routers_per_group` × `global_links_per_router` = {}; raise either or use at most {} groups",
            groups - 1,
            a as u64 * h as u64,
            a as u64 * h as u64 + 1
        ));
    }
    let routers = groups as u64 * a as u64;
    check_size(routers.checked_mul(p as u64 + 1), "groups")?;
    let names: Vec<Vec<String>> = (0..groups)
        .map(|g| {
            (0..a)
                .map(|i| b.named_router(&format!("g{g}.router{i}")))
                .collect()
        })
        .collect();
    for group in &names {
        for r in group {
            for _ in 0..p {
                let host = b.host()?;
                b.link(&host, r);
            }
        }
    }
    for group in &names {
        for i in 0..group.len() {
            for j in i + 1..group.len() {
                b.link(&group[i], &group[j]);
            }
        }
    }
    for g in 0..groups {
        for t in g + 1..groups {
            let rg = global_router(g, t, groups, h);
            let rt = global_router(t, g, groups, h);
            b.link(
                &names[g as usize][rg as usize],
                &names[t as usize][rt as usize],
            );
        }
    }
    Ok(Layout::Dragonfly { groups, a, h })
}
