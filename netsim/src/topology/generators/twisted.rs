//! `twisted-torus`: a torus whose wrap-around links also shift another
//! dimension. Grid points are numbered as in [`super::mesh`]. Leaving the
//! last router of wrapping dimension k (coordinate d_k − 1) in the +k
//! direction reaches coordinate 0 of dimension k *and* moves dimension
//! s = (k + twist_degree) mod n forward by `jump[k]` (modulo d_s); going
//! the other way round the same link undoes it. `twist_degree` 0 (or a
//! multiple of n) is an ordinary torus. Routing on it is the exact
//! breadth-first shortest path of the generated graph (no closed form).

use super::{mesh, torus, Builder};
use std::collections::HashSet;

/// Builds a twisted torus.
pub fn build(
    dims: &[u32],
    wrap: Option<&[bool]>,
    twist_degree: u32,
    jump: Option<&[u32]>,
    b: &mut Builder,
) -> Result<(), String> {
    let wrap = torus::wrap_flags(dims, wrap)?;
    let n = dims.len();
    let jump = match jump {
        None => vec![1; n],
        Some(j) if j.len() == n => j.to_vec(),
        Some(j) if j.len() == 1 => vec![j[0]; n],
        Some(j) => {
            return Err(format!(
                "`topology.jump` has {} values but `topology.dims` has {n} dimensions; give one jump per dimension (or one for all)",
                j.len()
            ))
        }
    };
    let routers = mesh::points(dims)?;
    let stride = mesh::strides(dims);
    let names = b.routers(routers as u32);
    b.host_per_router(&names)?;
    let mut seen: HashSet<(usize, usize)> = HashSet::new();
    let mut join = |b: &mut Builder, i: usize, j: usize| {
        if i != j && seen.insert((i.min(j), i.max(j))) {
            b.link(&names[i], &names[j]);
        }
    };
    for i in 0..routers {
        for k in 0..n {
            let d = dims[k] as usize;
            let c = (i / stride[k]) % d;
            if c + 1 < d {
                join(b, i, i + stride[k]);
            } else if wrap[k] {
                // Back to coordinate 0 of dimension k, shifting dimension s.
                let mut j = i - c * stride[k];
                let s = (k + twist_degree as usize) % n;
                if s != k {
                    let ds = dims[s] as usize;
                    let cs = (j / stride[s]) % ds;
                    let shifted = (cs + jump[k] as usize % ds) % ds;
                    j = j - cs * stride[s] + shifted * stride[s];
                }
                join(b, i, j);
            }
        }
    }
    Ok(())
}
