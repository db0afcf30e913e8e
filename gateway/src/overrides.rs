//! `--set KEY=VALUE`: change one key of a network file for a what-if run.
//!
//! KEY is a dotted path into the TOML document; a segment may be quoted
//! (`link."host0-switch0".rate`). Where the path meets an array of tables
//! (`host`, `switch`, `router`, `link`, `topology.link`), the next segment
//! names the element: its `name`, or for links the default name `a-b`.
//! VALUE is read as a TOML value when it is one (`8`, `true`, `[4, 4]`,
//! `"1ms"`) and as a string otherwise (`100Mbps`).

use crate::error::Error;
use toml::Value;

/// Splits a dotted key, keeping quoted segments whole.
fn segments(key: &str) -> Result<Vec<String>, Error> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in key.chars() {
        match c {
            '"' => quoted = !quoted,
            '.' if !quoted => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    if quoted {
        return Err(Error::Usage(format!("--set {key}: a quote is not closed")));
    }
    out.push(cur);
    if out.iter().any(|s| s.is_empty()) {
        return Err(Error::Usage(format!(
            "--set {key}: empty key segment; write keys like link.\"a-b\".rate"
        )));
    }
    Ok(out)
}

/// The name an element of an array of tables goes by.
fn element_name(v: &Value) -> Option<String> {
    let t = v.as_table()?;
    if let Some(n) = t.get("name").and_then(Value::as_str) {
        return Some(n.to_string());
    }
    match (
        t.get("a").and_then(Value::as_str),
        t.get("b").and_then(Value::as_str),
    ) {
        (Some(a), Some(b)) => Some(format!("{a}-{b}")),
        _ => None,
    }
}

/// Reads VALUE as TOML if it is a TOML value, else as a string.
fn parse_value(text: &str) -> Value {
    match format!("v = {text}").parse::<toml::Table>() {
        Ok(mut t) => t.remove("v").unwrap_or(Value::String(text.to_string())),
        Err(_) => Value::String(text.to_string()),
    }
}

/// Applies `KEY=VALUE` to the document.
pub fn apply(doc: &mut toml::Table, assignment: &str) -> Result<(), Error> {
    let (key, value) = assignment.split_once('=').ok_or_else(|| {
        format!("--set {assignment}: write KEY=VALUE, e.g. link_defaults.delay=2ms")
    })?;
    let path = segments(key.trim())?;
    let value = parse_value(value.trim());
    let mut table = doc;
    let mut i = 0;
    while i + 1 < path.len() {
        let seg = &path[i];
        let entry = table
            .entry(seg.clone())
            .or_insert_with(|| Value::Table(toml::Table::new()));
        match entry {
            Value::Table(t) => {
                table = t;
                i += 1;
            }
            Value::Array(items) => {
                let name = &path[i + 1];
                let names: Vec<String> = items.iter().filter_map(element_name).collect();
                let el = items
                    .iter_mut()
                    .find(|v| element_name(v).as_deref() == Some(name))
                    .ok_or_else(|| {
                        format!(
                            "--set {key}: there is no {seg} named '{name}'; the file has {}",
                            if names.is_empty() {
                                "none".to_string()
                            } else {
                                names.join(", ")
                            }
                        )
                    })?;
                table = el
                    .as_table_mut()
                    .ok_or_else(|| format!("--set {key}: '{seg}' entries are not tables"))?;
                i += 2;
            }
            _ => {
                return Err(Error::Usage(format!(
                    "--set {key}: '{seg}' is a value, not a table; set it directly"
                )))
            }
        }
    }
    if i >= path.len() {
        return Err(Error::Usage(format!(
            "--set {key}: the key names a whole {} entry; add the field to set, e.g. .rate",
            path[path.len() - 2]
        )));
    }
    table.insert(path[i].clone(), value);
    Ok(())
}

/// Reads `file`, applies every assignment, and parses the result.
pub fn load_with(file: &std::path::Path, sets: &[String]) -> Result<netsim::NetworkConfig, Error> {
    let text = std::fs::read_to_string(file).map_err(|e| {
        format!(
            "cannot read network file {}: {e}; check the path given to --net",
            file.display()
        )
    })?;
    let mut doc: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| format!("{}: {}", file.display(), e.message()))?;
    for s in sets {
        apply(&mut doc, s)?;
    }
    let origin = format!("{} with --set {}", file.display(), sets.join(" "));
    netsim::NetworkConfig::from_toml_str(&toml::to_string(&doc).expect("tables serialise"), &origin)
        .map_err(Error::from)
}

/// Reads the network `net` (a file, or an `xsim:` string) for `ranks`
/// ranks, with the `--set` assignments `sets` applied when there are any:
/// what every command taking `--net` and `--set` reads.
pub fn load_net(
    net: &std::path::Path,
    ranks: Option<u32>,
    sets: &[String],
) -> Result<netsim::NetworkConfig, Error> {
    if sets.is_empty() {
        netsim::loader::load(net, ranks, std::fs::read_to_string).map_err(Error::from)
    } else {
        load_with(net, sets)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NET: &str = "[link_defaults]\nrate='1Gbps'\n[[host]]\nname='host0'\n[[switch]]\nname='switch0'\n[[link]]\na='host0'\nb='switch0'\n[[link]]\na='switch0'\nb='host1'\nname='up'\n";

    #[test]
    fn sets_nested_named_and_plain_keys() {
        let mut doc: toml::Table = NET.parse().unwrap();
        apply(&mut doc, "link.\"host0-switch0\".rate=100Mbps").unwrap();
        apply(&mut doc, "link.up.delay=\"2ms\"").unwrap();
        apply(&mut doc, "link_defaults.queue_packets=50").unwrap();
        apply(&mut doc, "tcp.nagle=true").unwrap();
        let links = doc["link"].as_array().unwrap();
        assert_eq!(links[0]["rate"].as_str(), Some("100Mbps"));
        assert_eq!(links[1]["delay"].as_str(), Some("2ms"));
        assert_eq!(doc["link_defaults"]["queue_packets"].as_integer(), Some(50));
        assert_eq!(doc["tcp"]["nagle"].as_bool(), Some(true));
    }

    #[test]
    fn names_what_is_missing() {
        let mut doc: toml::Table = NET.parse().unwrap();
        let e = apply(&mut doc, "link.nowhere.rate=1Gbps")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("no link named 'nowhere'") && e.contains("host0-switch0, up"),
            "{e}"
        );
        assert!(apply(&mut doc, "rate")
            .unwrap_err()
            .to_string()
            .contains("KEY=VALUE"));
        assert!(apply(&mut doc, "link.\"a.rate=1")
            .unwrap_err()
            .to_string()
            .contains("quote"));
    }
}
