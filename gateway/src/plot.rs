//! The calibration figure (like MPI-NeTSim's Figures 5 and 6): maxBehind
//! and emulated runtime against the time factor, drawn as SVG and PNG.

use crate::calibrate::FactorRow;
use crate::error::Error;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// Fonts tried for the plots' text (plotters lays text out with a real
/// font, for SVG too).
const FONT_FILES: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/freefont/FreeSans.ttf",
];

/// Makes a TrueType font available to the bitmap backend, once.
fn register_font() -> Result<(), Error> {
    static DONE: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    DONE.get_or_init(|| {
        let bytes = FONT_FILES
            .iter()
            .find_map(|p| std::fs::read(p).ok())
            .ok_or_else(|| {
                "no TrueType font found to draw the calibration plots; install fonts-dejavu-core (the CSV and JSON tables have been written)".to_string()
            })?;
        let leaked: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        plotters::style::register_font("sans-serif", FontStyle::Normal, leaked)
            .map_err(|_| "the font for the calibration plots could not be loaded".to_string())
    })
    .clone()
    .map_err(Error::Internal)
}

/// Writes `stem.svg` and `stem.png`.
pub fn calibration(rows: &[FactorRow], title: &str, stem: &Path) -> Result<(), Error> {
    register_font()?;
    let svg = stem.with_extension("svg");
    {
        let root = SVGBackend::new(&svg, (1200, 480)).into_drawing_area();
        draw(&root, rows, title)
            .map_err(|e| Error::internal(format!("cannot draw {}: {e}", svg.display())))?;
        root.present()
            .map_err(|e| Error::internal(format!("cannot write {}: {e}", svg.display())))?;
    }
    let png = stem.with_extension("png");
    let root = BitMapBackend::new(&png, (1200, 480)).into_drawing_area();
    draw(&root, rows, title)
        .map_err(|e| Error::internal(format!("cannot draw {}: {e}", png.display())))?;
    root.present()
        .map_err(|e| Error::internal(format!("cannot write {}: {e}", png.display())))
}

type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    rows: &[FactorRow],
    title: &str,
) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    let root = root.titled(title, ("sans-serif", 20))?;
    let (left, right) = root.split_horizontally(600);
    let f_lo = rows.first().map_or(1.0, |r| r.factor) * 0.8;
    let f_hi = rows.last().map_or(2.0, |r| r.factor) * 1.25;

    let behind_max = rows
        .iter()
        .map(|r| r.behind_max_us / 1000.0)
        .fold(0.0f64, f64::max)
        .max(0.001)
        * 1.1;
    let mut chart = ChartBuilder::on(&left)
        .caption("maxBehind (ms of scaled time)", ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d((f_lo..f_hi).log_scale(), 0.0..behind_max)?;
    chart
        .configure_mesh()
        .x_desc("time factor")
        .y_desc("ms")
        .x_label_formatter(&|v| format!("{v:.0}"))
        .draw()?;
    for (label, colour, pick) in [
        (
            "max",
            RED,
            (|r: &FactorRow| r.behind_max_us) as fn(&FactorRow) -> f64,
        ),
        ("p99", BLUE, |r: &FactorRow| r.behind_p99_us),
        ("p50", GREEN, |r: &FactorRow| r.behind_p50_us),
    ] {
        let pts: Vec<(f64, f64)> = rows.iter().map(|r| (r.factor, pick(r) / 1000.0)).collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), colour.stroke_width(2)))?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour));
        chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, colour.filled())))?;
    }
    chart
        .configure_series_labels()
        .border_style(BLACK)
        .background_style(WHITE.mix(0.8))
        .draw()?;

    let rt_hi = rows
        .iter()
        .map(|r| r.runtime_max_s)
        .fold(0.0f64, f64::max)
        .max(1e-6)
        * 1.15;
    let rt_lo = rows
        .iter()
        .map(|r| r.runtime_min_s)
        .fold(f64::MAX, f64::min)
        .min(rt_hi)
        * 0.85;
    let mut chart = ChartBuilder::on(&right)
        .caption("emulated runtime (s)", ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(64)
        .build_cartesian_2d((f_lo..f_hi).log_scale(), rt_lo..rt_hi)?;
    chart
        .configure_mesh()
        .x_desc("time factor")
        .y_desc("s")
        .x_label_formatter(&|v| format!("{v:.0}"))
        .draw()?;
    chart.draw_series(LineSeries::new(
        rows.iter().map(|r| (r.factor, r.runtime_s)),
        BLACK.stroke_width(2),
    ))?;
    for r in rows {
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(r.factor, r.runtime_min_s), (r.factor, r.runtime_max_s)],
            BLACK,
        )))?;
        let style = if r.recommended {
            RED.filled()
        } else {
            BLACK.filled()
        };
        chart.draw_series(std::iter::once(Circle::new(
            (r.factor, r.runtime_s),
            4,
            style,
        )))?;
    }
    Ok(())
}
