//! `torus`: the mesh of [`super::mesh`] whose dimensions wrap around (the
//! last router of a row is linked to the first), each as `wrap` says.

use super::{mesh, Builder, Layout};

/// Checks `wrap` against `dims`; the default is every dimension wrapping.
pub(super) fn wrap_flags(dims: &[u32], wrap: Option<&[bool]>) -> Result<Vec<bool>, String> {
    match wrap {
        None => Ok(vec![true; dims.len()]),
        Some(w) if w.len() == dims.len() => Ok(w.to_vec()),
        Some(w) => Err(format!(
            "`topology.wrap` has {} flags but `topology.dims` has {} dimensions; give one flag per dimension",
            w.len(),
            dims.len()
        )),
    }
}

/// Builds a torus.
pub fn build(dims: &[u32], wrap: Option<&[bool]>, b: &mut Builder) -> Result<Layout, String> {
    let wrap = wrap_flags(dims, wrap)?;
    mesh::grid(dims, &wrap, b)
}
