//! `mesh`: a grid of routers `dims = [d1, d2, …]`, each linked to its
//! neighbours along every dimension, with one host per router. The grid
//! point (c1, c2, …) is router and host number Σ ci·(d(i+1)·…·dn): the last
//! dimension varies fastest.

use super::{check_size, Builder, Layout};

/// Builds a mesh (no wrap-around).
pub fn build(dims: &[u32], b: &mut Builder) -> Result<Layout, String> {
    grid(dims, &vec![false; dims.len()], b)
}

/// Checks `dims` and returns the number of grid points.
pub(super) fn points(dims: &[u32]) -> Result<usize, String> {
    if dims.is_empty() {
        return Err("`topology.dims` is empty; give the number of routers along each dimension, e.g. [4, 4]".into());
    }
    if let Some(k) = dims.iter().position(|&d| d == 0) {
        return Err(format!(
            "`topology.dims[{k}]` is 0; every dimension needs at least one router"
        ));
    }
    let routers = dims
        .iter()
        .try_fold(1u64, |acc, &d| acc.checked_mul(d as u64));
    check_size(routers.and_then(|r| r.checked_mul(2)), "dims")?;
    Ok(routers.expect("checked above") as usize)
}

/// Index distance between neighbours along each dimension.
pub(super) fn strides(dims: &[u32]) -> Vec<usize> {
    let mut stride = vec![1usize; dims.len()];
    for k in (0..dims.len().saturating_sub(1)).rev() {
        stride[k] = stride[k + 1] * dims[k + 1] as usize;
    }
    stride
}

/// Builds a grid; dimension k wraps around when `wrap[k]` (a wrap link is
/// only added when the dimension has more than two routers, since with two
/// it would duplicate the existing link and with one join a router to itself).
pub(super) fn grid(dims: &[u32], wrap: &[bool], b: &mut Builder) -> Result<Layout, String> {
    let routers = points(dims)?;
    let stride = strides(dims);
    let names = b.routers(routers as u32);
    b.host_per_router(&names)?;
    for (i, name) in names.iter().enumerate() {
        for (k, &d) in dims.iter().enumerate() {
            let c = (i / stride[k]) % d as usize;
            if c + 1 < d as usize {
                b.link(name, &names[i + stride[k]]);
            } else if wrap[k] && d > 2 {
                b.link(name, &names[i - c * stride[k]]);
            }
        }
    }
    Ok(Layout::Grid {
        dims: dims.to_vec(),
        wrap: dims.iter().zip(wrap).map(|(&d, &w)| w && d > 2).collect(),
    })
}
