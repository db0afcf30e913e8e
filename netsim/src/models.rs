//! The network models a configuration can name (`model = "packet"` or
//! `"analytic"`), and building the one it names as a
//! [`NetworkModel`]. This is the one place that lists the models: a driver
//! holds the `Box<dyn NetworkModel>` this returns and needs no change when
//! a model is added.

use crate::analytic::AnalyticSim;
use crate::config::analytic::ModelKind;
use crate::config::{ConfigError, NetworkConfig};
use crate::model::NetworkModel;
use crate::sim::Simulator;

/// What the driver wants of the model besides carrying messages.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ModelOptions {
    /// Packet captures (`--capture`).
    pub capture: bool,
    /// Time series of links and connections (`--vectors`).
    pub vectors: bool,
}

/// Builds the model `cfg.model` names for `ranks` ranks. Captures, time
/// series and faults exist only in the packet model: asking for them with
/// another is an error saying so.
///
/// The same driver code runs either model:
///
/// ```
/// use netsim::models::{from_config, ModelOptions};
/// use netsim::{Nanos, NetworkConfig};
/// for model in ["packet", "analytic"] {
///     let cfg = NetworkConfig::from_toml_str(
///         &format!(
///             "model = '{model}'\n[link_defaults]\ndelay = '500us'\n\
///              [[host]]\nname = 'a'\n[[host]]\nname = 'b'\n\
///              [[link]]\na = 'a'\nb = 'b'\n"
///         ),
///         "example",
///     )?;
///     let mut m = from_config(&cfg, "example", 2, ModelOptions::default())?;
///     m.inject(0, 1, vec![1u8; 100].into(), Nanos::ZERO)?;
///     while m.step().is_some() {}
///     let mut out = Vec::new();
///     m.take_deliveries(&mut out);
///     assert_eq!(out.len(), 1);
///     assert_eq!(m.messages_in_flight(), 0);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn from_config(
    cfg: &NetworkConfig,
    origin: &str,
    ranks: u32,
    options: ModelOptions,
) -> Result<Box<dyn NetworkModel>, ConfigError> {
    match cfg.model {
        ModelKind::Packet => Ok(Box::new(Simulator::from_config(
            cfg,
            origin,
            ranks as usize,
            options.capture,
        )?)),
        ModelKind::Analytic => {
            refuse_packet_features(cfg, origin, ModelKind::Analytic, options)?;
            Ok(Box::new(AnalyticSim::from_config(
                cfg,
                origin,
                ranks as usize,
            )?))
        }
    }
}

/// The error for asking a model without packets for captures, time series
/// or faults.
fn refuse_packet_features(
    cfg: &NetworkConfig,
    origin: &str,
    kind: ModelKind,
    options: ModelOptions,
) -> Result<(), ConfigError> {
    let name = kind.name();
    if options.capture {
        return Err(ConfigError(format!("--capture: the {name} model has no packets, so it writes no captures; drop --capture or run with --model packet")));
    }
    if options.vectors {
        return Err(ConfigError(format!("--vectors: the {name} model has no links or TCP connections to sample; drop --vectors or run with --model packet")));
    }
    if !cfg.fault_entries.is_empty() {
        return Err(ConfigError(format!(
            "{origin}: faults ([[fault]] or --fault) need the packet model; remove them or run with --model packet"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(model: &str, extra: &str) -> NetworkConfig {
        NetworkConfig::from_toml_str(
            &format!(
                "model = '{model}'\n[[host]]\nname='h0'\n[[host]]\nname='h1'\n[[link]]\na='h0'\nb='h1'\n{extra}"
            ),
            "n.toml",
        )
        .unwrap()
    }

    #[test]
    fn the_config_names_the_model_that_is_built() {
        let m = from_config(&config("packet", ""), "n.toml", 2, ModelOptions::default()).unwrap();
        assert_eq!(m.kind(), ModelKind::Packet);
        assert!(m.as_any().is::<Simulator>());
        assert!(!m.times_collectives());
        assert_eq!(m.rank_host_names(), ["h0", "h1"]);
        let mut m = from_config(
            &config("analytic", ""),
            "n.toml",
            2,
            ModelOptions::default(),
        )
        .unwrap();
        assert_eq!(m.kind(), ModelKind::Analytic);
        assert!(m.as_any().is::<AnalyticSim>());
        assert!(m.collectives().is_some());
        assert_eq!(m.summary(), "analytic model, 2 ranks");
    }

    #[test]
    fn packet_features_on_the_analytic_model_are_refused_naming_the_option() {
        for (options, extra, says) in [
            (
                ModelOptions {
                    capture: true,
                    vectors: false,
                },
                "",
                "--capture: the analytic model has no packets",
            ),
            (
                ModelOptions {
                    capture: false,
                    vectors: true,
                },
                "",
                "--vectors: the analytic model has no links",
            ),
            (
                ModelOptions::default(),
                "[[fault]]\nat='1ms'\nlink='*'\naction='down'\n",
                "n.toml: faults ([[fault]] or --fault) need the packet model",
            ),
        ] {
            let e = from_config(&config("analytic", extra), "n.toml", 2, options)
                .err()
                .unwrap();
            assert!(e.0.starts_with(says), "{e}");
        }
    }
}
