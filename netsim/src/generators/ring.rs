//! (not generated yet)
use super::Builder;
#[allow(clippy::ptr_arg)]
pub fn build(_: u32, _: &mut Builder) -> Result<(), String> {
    Err("this topology is not generated yet; list its nodes and links instead".into())
}
