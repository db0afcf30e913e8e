//! The network a user names on the command line (`--net`): a TOML file, or
//! a thesis-style one-line string when the argument starts with `xsim:`
//! (see [`crate::config::xsim`]). The choice and the error wording live
//! here, outside the configuration layer; reading the file is the caller's,
//! through the `read` function it passes, so netsim itself opens no file.

use crate::config::{xsim, ConfigError, NetworkConfig};
use std::path::Path;

/// Where a `--net` argument's network comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetworkSource<'a> {
    /// The text after `xsim:`.
    Xsim(&'a str),
    /// A TOML file.
    File(&'a Path),
}

impl<'a> NetworkSource<'a> {
    /// Classifies a `--net` argument.
    pub fn of(arg: &'a Path) -> NetworkSource<'a> {
        match arg.to_str().and_then(|s| s.strip_prefix("xsim:")) {
            Some(text) => NetworkSource::Xsim(text),
            None => NetworkSource::File(arg),
        }
    }
}

/// Reads a network given on the command line: a TOML file read with
/// `read` (the driver's file access, e.g. `std::fs::read_to_string`), or
/// an `xsim:` string; `ranks` sizes the string's networks when it has no
/// `vp=` key.
///
/// ```
/// use netsim::loader::load;
/// use std::path::Path;
/// // A file, read by the caller's function (here from memory).
/// let cfg = load(Path::new("two.toml"), Some(2), |_| {
///     Ok("[[host]]\nname = 'a'\n[[host]]\nname = 'b'\n[[link]]\na = 'a'\nb = 'b'\n".into())
/// })?;
/// assert_eq!((cfg.hosts.len(), cfg.links.len()), (2, 1));
/// // A file that cannot be read is one sentence naming it and --net.
/// let e = load(Path::new("gone.toml"), Some(2), std::fs::read_to_string).unwrap_err();
/// assert!(e.to_string().starts_with("cannot read network file gone.toml: "));
/// assert!(e.to_string().ends_with("; check the path given to --net"));
/// // An `xsim:` string needs no file: `read` is not called. A ring of 8
/// // (`vp`), 100 µs per link: 8 routers with a host on each.
/// let cfg = load(Path::new("xsim:type=ring,nlatency=100,vp=8"), None, |_| unreachable!())?;
/// let net = netsim::Network::from_config(&cfg, "xsim")?;
/// assert_eq!((net.hosts.len(), net.links.len()), (8, 16));
/// assert!(net.links.iter().all(|l| l.params.delay_ns == 100_000));
/// # Ok::<(), netsim::config::ConfigError>(())
/// ```
pub fn load<'p>(
    arg: &'p Path,
    ranks: Option<u32>,
    read: impl FnOnce(&'p Path) -> std::io::Result<String>,
) -> Result<NetworkConfig, ConfigError> {
    match NetworkSource::of(arg) {
        NetworkSource::Xsim(text) => xsim::parse(text, ranks),
        NetworkSource::File(path) => from_file(path, read),
    }
}

/// Reads (with `read`) and parses a network file.
pub fn from_file<'p>(
    path: &'p Path,
    read: impl FnOnce(&'p Path) -> std::io::Result<String>,
) -> Result<NetworkConfig, ConfigError> {
    let text = read(path).map_err(|e| {
        ConfigError(format!(
            "cannot read network file {}: {e}; check the path given to --net",
            path.display()
        ))
    })?;
    NetworkConfig::from_toml_str(&text, &path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_xsim_prefix_selects_the_string_and_anything_else_a_file() {
        assert_eq!(
            NetworkSource::of(Path::new("xsim:vp=4")),
            NetworkSource::Xsim("vp=4")
        );
        assert_eq!(
            NetworkSource::of(Path::new("configs/xsim:a.toml")),
            NetworkSource::File(Path::new("configs/xsim:a.toml"))
        );
    }

    #[test]
    fn a_file_that_cannot_be_read_is_one_sentence_naming_it() {
        let e = load(Path::new("/no/such.toml"), None, |_| {
            Err(std::io::Error::from(std::io::ErrorKind::NotFound))
        })
        .unwrap_err();
        assert!(
            e.0.starts_with("cannot read network file /no/such.toml: "),
            "{e}"
        );
        assert!(e.0.ends_with("check the path given to --net"), "{e}");
    }

    #[test]
    fn the_text_read_is_parsed_with_the_path_as_origin() {
        let cfg = load(Path::new("n.toml"), None, |p| {
            assert_eq!(p, Path::new("n.toml"));
            Ok("seed = 7\n".into())
        })
        .unwrap();
        assert_eq!(cfg.seed, 7);
        let e = load(Path::new("n.toml"), None, |_| Ok("sed = 7\n".into())).unwrap_err();
        assert!(e.0.starts_with("n.toml"), "{e}");
    }
}
