//! Where a gateway listens and ranks connect: `unix:PATH` or
//! `tcp:HOST:PORT` (a host name or an IP address, IPv6 in brackets). One
//! parser for the gateway's `--listen` and the shim's `MPINETSIM_GATEWAY`,
//! so both accept exactly the same spellings.

use std::fmt;

/// A gateway address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GatewayAddress {
    /// A Unix socket path (ranks on the gateway's host).
    Unix(String),
    /// A TCP endpoint (ranks on any host that can reach it).
    Tcp {
        /// Host name or IP address, without brackets.
        host: String,
        /// Port (0 for the gateway: pick a free one).
        port: u16,
    },
}

impl GatewayAddress {
    /// Parses `unix:PATH` or `tcp:HOST:PORT`; the error is one sentence.
    pub fn parse(text: &str) -> Result<GatewayAddress, String> {
        if let Some(path) = text.strip_prefix("unix:") {
            if path.is_empty() {
                return Err(format!("{text}: give a socket path after unix:"));
            }
            return Ok(GatewayAddress::Unix(path.to_string()));
        }
        let Some(rest) = text.strip_prefix("tcp:") else {
            return Err(format!(
                "{text} is not an address; write unix:PATH or tcp:HOST:PORT (IPv6 as tcp:[::1]:PORT)"
            ));
        };
        let (host, port) = if let Some(v6) = rest.strip_prefix('[') {
            let Some((host, port)) = v6.split_once("]:") else {
                return Err(format!("{text}: write an IPv6 address as tcp:[ADDR]:PORT"));
            };
            (host, port)
        } else {
            match rest.rsplit_once(':') {
                Some((h, _)) if h.contains(':') => {
                    return Err(format!(
                        "{text}: put an IPv6 address in brackets, e.g. tcp:[::1]:5000"
                    ))
                }
                Some(hp) => hp,
                None => return Err(format!("{text}: give a port, e.g. tcp:{rest}:5000")),
            }
        };
        if host.is_empty() {
            return Err(format!(
                "{text}: give a host name or IP address before the port"
            ));
        }
        let port: u16 = port
            .parse()
            .map_err(|_| format!("{text}: the port {port:?} is not a number from 0 to 65535"))?;
        Ok(GatewayAddress::Tcp {
            host: host.to_string(),
            port,
        })
    }

    /// `host:port` as `std::net::ToSocketAddrs` wants it (IPv6 bracketed).
    pub fn host_port(host: &str, port: u16) -> String {
        if host.contains(':') {
            format!("[{host}]:{port}")
        } else {
            format!("{host}:{port}")
        }
    }
}

impl fmt::Display for GatewayAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GatewayAddress::Unix(p) => write!(f, "unix:{p}"),
            GatewayAddress::Tcp { host, port } => {
                write!(f, "tcp:{}", GatewayAddress::host_port(host, *port))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_every_form() {
        for (text, want) in [
            (
                "unix:/tmp/a b/gw.sock",
                GatewayAddress::Unix("/tmp/a b/gw.sock".into()),
            ),
            (
                "tcp:10.0.0.1:5000",
                GatewayAddress::Tcp {
                    host: "10.0.0.1".into(),
                    port: 5000,
                },
            ),
            (
                "tcp:node-7.cluster:0",
                GatewayAddress::Tcp {
                    host: "node-7.cluster".into(),
                    port: 0,
                },
            ),
            (
                "tcp:[fe80::1]:65535",
                GatewayAddress::Tcp {
                    host: "fe80::1".into(),
                    port: 65535,
                },
            ),
        ] {
            let a = GatewayAddress::parse(text).unwrap();
            assert_eq!(a, want);
            assert_eq!(a.to_string(), text);
        }
    }

    #[test]
    fn bad_addresses_are_one_sentence() {
        for (text, needle) in [
            ("/tmp/gw.sock", "write unix:PATH or tcp:HOST:PORT"),
            ("unix:", "give a socket path"),
            ("tcp:host", "give a port"),
            ("tcp::5000", "give a host name"),
            ("tcp:host:70000", "not a number from 0 to 65535"),
            ("tcp:::1:5000", "in brackets"),
            ("tcp:[::1]5000", "tcp:[ADDR]:PORT"),
        ] {
            let e = GatewayAddress::parse(text).unwrap_err();
            assert!(e.contains(needle), "{text}: {e}");
        }
    }
}
