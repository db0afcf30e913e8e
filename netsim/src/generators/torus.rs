//! `torus`: the mesh of [`super::mesh`] whose dimensions wrap around (the
//! last router of a row is linked to the first), each as `wrap` says.

use super::{mesh, Builder};

/// Builds a torus; `wrap` defaults to every dimension wrapping.
pub fn build(dims: &[u32], wrap: Option<&[bool]>, b: &mut Builder) -> Result<(), String> {
    let all = vec![true; dims.len()];
    let wrap = wrap.unwrap_or(&all);
    if wrap.len() != dims.len() {
        return Err(format!(
            "`topology.wrap` has {} flags but `topology.dims` has {} dimensions; give one flag per dimension",
            wrap.len(),
            dims.len()
        ));
    }
    mesh::grid(dims, wrap, b)
}
