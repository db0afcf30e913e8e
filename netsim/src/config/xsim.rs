//! The one-line network description of the xSim network-model thesis, as
//! an alternative to TOML:
//!
//! ```text
//! xsim:type=mesh,nlatency=100,ndegree=2,ndimensions=3*3,nbandwidth=10,cores=8,
//!      ptype=twistedtorus,platency=10,pdegree=3,pdimensions=2*2*2,
//!      pt_connectedness=101,pt_jump=1*1*2,pt_degree=1,pbandwidth=100
//! ```
//!
//! Keys (`n`-prefixed network keys may also be written without the `n`):
//! `type`/`ptype` (star, ring, mesh, torus, twistedtorus, tree; default
//! star), `nlatency`/`platency` (per-link delay; a bare number is
//! microseconds, or give a unit: `250ns`), `nbandwidth`/`pbandwidth` (a bare
//! number is Mbit/s, as in the thesis, or give a unit: `10Gbps`),
//! `ndegree`/`pdegree` (number of dimensions; a tree's arity),
//! `ndimensions`/`pdimensions` (`3*3`; one value repeats for every
//! dimension), `nt_connectedness`/`pt_connectedness` (one 0/1 digit per
//! dimension: which wrap), `nt_jump`/`pt_jump` and `nt_degree`/`pt_degree`
//! (twisted torus jump vector and toroidal degree), `cores` (per processor;
//! default 1 = no processor level) and `vp` (total ranks; default the job's
//! rank count).
//!
//! The parameters are checked against each other as the thesis intended:
//! the product of the processor dimensions must equal `cores`, and `cores`
//! times the network's size must equal the number of ranks (the job is then
//! held to exactly one rank per core).

use crate::base::units;
use crate::config::{
    ConfigError, DurationNs, NetworkConfig, RateBps, TopologyConfig, TopologyKind,
};

const ORIGIN: &str = "network string";

fn fail(msg: String) -> ConfigError {
    ConfigError(format!("{ORIGIN}: {msg}"))
}

/// One level (network or processor) as written.
#[derive(Default)]
struct Level {
    kind: Option<String>,
    latency: Option<String>,
    bandwidth: Option<String>,
    degree: Option<String>,
    dimensions: Option<String>,
    connectedness: Option<String>,
    jump: Option<String>,
    twist_degree: Option<String>,
}

/// Parses the text after `xsim:` into a network description.
pub fn parse(text: &str, ranks: Option<u32>) -> Result<NetworkConfig, ConfigError> {
    let (mut net, mut cpu) = (Level::default(), Level::default());
    let (mut cores, mut vp) = (None, None);
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (key, value) = item.split_once('=').ok_or_else(|| {
            fail(format!("`{item}` is not key=value; separate parameters with commas, e.g. type=mesh,ndimensions=4*4"))
        })?;
        let (key, value) = (key.trim(), value.trim().to_string());
        let slot = match key {
            "type" | "ntype" => &mut net.kind,
            "latency" | "nlatency" => &mut net.latency,
            "bandwidth" | "nbandwidth" => &mut net.bandwidth,
            "degree" | "ndegree" => &mut net.degree,
            "dimensions" | "ndimensions" => &mut net.dimensions,
            "t_connectedness" | "nt_connectedness" => &mut net.connectedness,
            "t_jump" | "nt_jump" => &mut net.jump,
            "t_degree" | "nt_degree" => &mut net.twist_degree,
            "ptype" => &mut cpu.kind,
            "platency" => &mut cpu.latency,
            "pbandwidth" => &mut cpu.bandwidth,
            "pdegree" => &mut cpu.degree,
            "pdimensions" => &mut cpu.dimensions,
            "pt_connectedness" => &mut cpu.connectedness,
            "pt_jump" => &mut cpu.jump,
            "pt_degree" => &mut cpu.twist_degree,
            "cores" => &mut cores,
            "vp" => &mut vp,
            _ => return Err(fail(format!("unknown parameter `{key}`; the string takes type, nlatency, nbandwidth, ndegree, ndimensions, nt_connectedness, nt_jump, nt_degree, cores, ptype, platency, pbandwidth, pdegree, pdimensions, pt_connectedness, pt_jump, pt_degree and vp"))),
        };
        if slot.replace(value).is_some() {
            return Err(fail(format!(
                "`{key}` is given twice; give each parameter once"
            )));
        }
    }
    let cores = match cores {
        Some(c) => number(&c, "cores")?,
        None => 1,
    };
    if cores == 0 {
        return Err(fail(
            "`cores` is 0; a processor needs at least one core".into(),
        ));
    }
    let vp = match (vp, ranks) {
        (Some(v), _) => number(&v, "vp")?,
        (None, Some(r)) => r,
        (None, None) => {
            return Err(fail(
                "the number of ranks is unknown; add vp=N to the string (or give the job's -n)"
                    .into(),
            ))
        }
    };
    if vp % cores != 0 {
        return Err(fail(format!(
            "{vp} ranks do not fill processors of {cores} cores; the rank count must be a multiple of `cores`"
        )));
    }
    let mut topology = level(&net, "n", vp / cores, "ranks ÷ cores")?;
    if cores > 1 {
        topology.processor = Some(Box::new(level(&cpu, "p", cores, "cores")?));
    } else if cpu.kind.is_some() || cpu.dimensions.is_some() {
        return Err(fail(
            "processor parameters are given but `cores` is 1; set cores=N for a processor level"
                .into(),
        ));
    }
    let mut cfg = NetworkConfig {
        name: Some(format!("xsim:{text}")),
        topology: Some(topology),
        ..NetworkConfig::default()
    };
    cfg.ranks.one_per_host = true;
    Ok(cfg)
}

fn number(v: &str, key: &str) -> Result<u32, ConfigError> {
    v.parse()
        .map_err(|_| fail(format!("`{key}` is `{v}`; it must be a whole number")))
}

/// Values written `a*b*c`; one value stands for all `n` dimensions.
fn vector(v: &str, key: &str, n: usize) -> Result<Vec<u32>, ConfigError> {
    let values: Vec<u32> = v
        .split('*')
        .map(|x| number(x.trim(), key))
        .collect::<Result<_, _>>()?;
    match values.len() {
        1 => Ok(vec![values[0]; n]),
        m if m == n => Ok(values),
        m => Err(fail(format!(
            "`{key}` has {m} values but the degree is {n}; give one value per dimension"
        ))),
    }
}

/// Builds one level's topology holding exactly `hosts` hosts.
fn level(l: &Level, p: &str, hosts: u32, what: &str) -> Result<TopologyConfig, ConfigError> {
    let kind_text = l.kind.as_deref().unwrap_or("star");
    let kind = match kind_text {
        "star" => TopologyKind::Star,
        "ring" => TopologyKind::Ring,
        "mesh" => TopologyKind::Mesh,
        "torus" => TopologyKind::Torus,
        "twistedtorus" | "twisted" => TopologyKind::TwistedTorus,
        "tree" => TopologyKind::Tree,
        other => {
            return Err(fail(format!(
                "`{}type` is `{other}`; use star, ring, mesh, torus, twistedtorus or tree",
                if p == "p" { "p" } else { "" }
            )))
        }
    };
    let rate = l
        .bandwidth
        .as_deref()
        .map(|b| quantity(b, "Mbps", units::parse_rate_bps, &format!("{p}bandwidth")))
        .transpose()?
        .map(RateBps);
    let delay = l
        .latency
        .as_deref()
        .map(|b| quantity(b, "us", units::parse_duration_ns, &format!("{p}latency")))
        .transpose()?
        .map(DurationNs);
    let mut t = TopologyConfig {
        kind,
        cpu_speed: None,
        cpu_threshold: None,
        poll_cost: None,
        hosts: None,
        directed: None,
        dims: None,
        wrap: None,
        twist_degree: None,
        jump: None,
        order: None,
        arity: None,
        levels: None,
        hosts_per_leaf: None,
        k: None,
        groups: None,
        routers_per_group: None,
        hosts_per_router: None,
        global_links_per_router: None,
        flowlet_gap: None,
        routing: Default::default(),
        rate,
        delay,
        processor: None,
        links: Vec::new(),
    };
    let degree = l
        .degree
        .as_deref()
        .map(|d| number(d, &format!("{p}degree")))
        .transpose()?;
    match kind {
        TopologyKind::Star | TopologyKind::Ring => t.hosts = Some(hosts),
        TopologyKind::Tree => {
            let arity = degree.unwrap_or(2);
            if arity < 2 {
                return Err(fail(format!(
                    "`{p}degree` of a tree is its arity and must be at least 2"
                )));
            }
            let mut levels = 0;
            let mut leaves = 1u64;
            while leaves < hosts as u64 {
                leaves *= arity as u64;
                levels += 1;
            }
            if leaves != hosts as u64 || levels == 0 {
                return Err(fail(format!(
                    "a tree of arity {arity} holds a power of {arity} hosts at its leaves, but {what} is {hosts}; change the rank count or the degree"
                )));
            }
            t.arity = Some(arity);
            t.levels = Some(levels);
        }
        _ => {
            let key = format!("{p}dimensions");
            let text = l.dimensions.as_deref().ok_or_else(|| {
                fail(format!(
                    "`{key}` is missing; a {kind_text} needs its dimensions, e.g. {key}=4*4"
                ))
            })?;
            let n = degree.unwrap_or_else(|| text.split('*').count() as u32) as usize;
            if n == 0 {
                return Err(fail(format!(
                    "`{p}degree` is 0; a {kind_text} needs at least one dimension"
                )));
            }
            let dims = vector(text, &key, n)?;
            let product = dims
                .iter()
                .try_fold(1u64, |p, &d| p.checked_mul(u64::from(d)));
            if product != Some(u64::from(hosts)) {
                let product = product.map_or("more than 2^64".to_string(), |p| p.to_string());
                return Err(fail(format!(
                    "`{key}` = {text} holds {product} nodes but {what} is {hosts}; the product of the dimensions must equal it"
                )));
            }
            t.dims = Some(dims);
            if kind != TopologyKind::Mesh {
                if let Some(c) = &l.connectedness {
                    let flags: Vec<bool> = c
                        .chars()
                        .map(|ch| match ch {
                            '0' => Ok(false),
                            '1' => Ok(true),
                            _ => Err(fail(format!("`{p}t_connectedness` is `{c}`; write one 0 or 1 per dimension, e.g. 101"))),
                        })
                        .collect::<Result<_, _>>()?;
                    if flags.len() != n {
                        return Err(fail(format!("`{p}t_connectedness` has {} digits but the degree is {n}; give one per dimension", flags.len())));
                    }
                    t.wrap = Some(flags);
                }
            }
            if kind == TopologyKind::TwistedTorus {
                if let Some(j) = &l.jump {
                    t.jump = Some(vector(j, &format!("{p}t_jump"), n)?);
                }
                if let Some(d) = &l.twist_degree {
                    let d = number(d, &format!("{p}t_degree"))?;
                    if d as usize >= n {
                        return Err(fail(format!("`{p}t_degree` is {d}; the toroidal degree must be below the degree {n} (0 is an ordinary torus)")));
                    }
                    t.twist_degree = Some(d);
                }
            }
        }
    }
    if kind != TopologyKind::TwistedTorus && (l.jump.is_some() || l.twist_degree.is_some()) {
        return Err(fail(format!("`{p}t_jump` and `{p}t_degree` only apply to a twisted torus; remove them or use type twistedtorus")));
    }
    Ok(t)
}

/// A number with an optional unit; a bare number is in `default_unit`.
fn quantity(
    text: &str,
    default_unit: &str,
    parse: fn(&str) -> Result<u64, String>,
    key: &str,
) -> Result<u64, ConfigError> {
    let with_unit = if text.chars().all(|c| c.is_ascii_digit() || c == '.') {
        format!("{text}{default_unit}")
    } else {
        text.to_string()
    };
    parse(&with_unit).map_err(|e| fail(format!("`{key}` is `{text}`: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_thesis_example_builds_a_hybrid_network() {
        let cfg = parse(
            "type=mesh,nlatency=100,ndegree=2,ndimensions=3*3,nbandwidth=10,cores=8,ptype=twistedtorus,platency=10,pdegree=3,pdimensions=2*2*2,pt_connectedness=101,pt_jump=1*1*2,pt_degree=1,pbandwidth=100",
            Some(72),
        )
        .unwrap();
        let t = cfg.topology.as_ref().unwrap();
        assert_eq!(t.dims.as_deref(), Some(&[3, 3][..]));
        assert_eq!(t.delay.unwrap().0, 100_000);
        assert_eq!(t.rate.unwrap().0, 10_000_000);
        let p = t.processor.as_ref().unwrap();
        assert_eq!(p.kind, TopologyKind::TwistedTorus);
        assert_eq!(p.wrap.as_deref(), Some(&[true, false, true][..]));
        assert_eq!(p.jump.as_deref(), Some(&[1, 1, 2][..]));
        let net = crate::Network::from_config(&cfg, "s").unwrap();
        assert_eq!(net.hosts.len(), 72);
    }

    #[test]
    fn dimension_products_must_match_the_ranks() {
        let e = parse(
            "type=mesh,ndimensions=3*3,cores=8,ptype=mesh,pdimensions=2*2",
            Some(72),
        )
        .unwrap_err();
        assert!(
            e.0.contains("`pdimensions` = 2*2 holds 4 nodes but cores is 8"),
            "{e}"
        );
        let e = parse("type=torus,ndimensions=4*4", Some(8)).unwrap_err();
        assert!(e.0.contains("ranks ÷ cores is 8"), "{e}");
        let e = parse("type=mesh,ndimensions=4*4,cores=3", Some(32)).unwrap_err();
        assert!(e.0.contains("multiple of `cores`"), "{e}");
        let e = parse("type=mesh,ndegree=3,ndimensions=4*4", Some(16)).unwrap_err();
        assert!(e.0.contains("degree is 3"), "{e}");
        let e = parse("type=mesh,colour=red", Some(4)).unwrap_err();
        assert!(e.0.contains("unknown parameter `colour`"), "{e}");
        let e = parse("type=twistedtorus,ndimensions=4*4,nt_degree=2", Some(16)).unwrap_err();
        assert!(e.0.contains("below the degree 2"), "{e}");
    }

    #[test]
    fn one_value_stands_for_every_dimension_and_vp_overrides_ranks() {
        let cfg = parse("type=torus,ndegree=3,ndimensions=2,vp=8", None).unwrap();
        assert_eq!(cfg.topology.unwrap().dims, Some(vec![2, 2, 2]));
        let cfg = parse("type=tree,ndegree=2", Some(16)).unwrap();
        let t = cfg.topology.unwrap();
        assert_eq!((t.arity, t.levels), (Some(2), Some(4)));
        assert!(parse("type=tree", Some(12)).is_err());
        assert!(parse("type=star", None).is_err());
    }
}
