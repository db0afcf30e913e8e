//! `star`: `hosts` hosts, each linked to one static switch.

use super::{check_size, Builder};

/// Builds host0…host(n−1) around `switch0`.
pub fn build(hosts: u32, b: &mut Builder) -> Result<(), String> {
    if hosts == 0 {
        return Err("`topology.hosts` is 0; a star needs at least one host".into());
    }
    check_size(Some(hosts as u64 + 1), "hosts")?;
    let sw = b.switch();
    for _ in 0..hosts {
        let h = b.host()?;
        b.link(&h, &sw);
    }
    Ok(())
}
