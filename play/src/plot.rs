//! PNG charts: the strength curve of a training run and the reliability
//! diagram of a calibration. Text is drawn with the bundled DejaVu Sans, so
//! charts look the same on every machine.

use std::path::Path;
use std::sync::Once;

use anyhow::{Context, Result, anyhow};
use plotters::prelude::*;
use plotters::style::{FontStyle, register_font};

const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
const PALETTE: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

fn register() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The font is bundled and valid; a failure would only blank the text.
        let _ = register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

fn plot_error<E: std::fmt::Debug>(error: E) -> anyhow::Error {
    anyhow!("drawing the chart: {error:?}")
}

/// Renders into `path` through a temporary file renamed into place.
fn render(path: &Path, draw: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
    register();
    grandmaitre_engine::files::write_with(path, ".tmp.png", draw)
        .with_context(|| format!("writing {}", path.display()))
}

/// One line of points with 95 % intervals.
#[derive(Clone, Debug)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// `(x, y, low, high)`.
    pub points: Vec<(f64, f64, f64, f64)>,
}

/// A line chart with error bars, `series` in the palette's colours.
pub fn line_chart(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    y_range: (f64, f64),
    series: &[Series],
) -> Result<()> {
    let size = (900, 560);
    render(path, |staging| {
        let root = BitMapBackend::new(staging, size).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let x_max = series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0))
            .fold(1.0f64, f64::max);
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 22))
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(0.0..x_max * 1.02, y_range.0..y_range.1)
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .x_desc(x_label)
            .y_desc(y_label)
            .label_style(("sans-serif", 14))
            .draw()
            .map_err(plot_error)?;
        for (index, line) in series.iter().enumerate() {
            let colour = PALETTE[index % PALETTE.len()];
            let clamp = |y: f64| y.clamp(y_range.0, y_range.1);
            chart
                .draw_series(line.points.iter().map(|&(x, y, low, high)| {
                    ErrorBar::new_vertical(
                        x,
                        clamp(low),
                        clamp(y),
                        clamp(high),
                        colour.mix(0.5).stroke_width(1),
                        6,
                    )
                }))
                .map_err(plot_error)?;
            chart
                .draw_series(LineSeries::new(
                    line.points.iter().map(|&(x, y, _, _)| (x, clamp(y))),
                    colour.stroke_width(2),
                ))
                .map_err(plot_error)?
                .label(line.name.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .label_font(("sans-serif", 14))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(plot_error)?;
        root.present().map_err(plot_error)?;
        Ok(())
    })
}

/// One panel of a reliability diagram: `(mean prediction, frequency,
/// count)` per non-empty bin, before and after calibration.
#[derive(Clone, Debug)]
pub struct ReliabilityPanel {
    /// The outcome.
    pub title: String,
    /// Bins before calibration.
    pub before: Vec<(f64, f64, usize)>,
    /// Bins after.
    pub after: Vec<(f64, f64, usize)>,
}

/// Reliability diagrams side by side: the diagonal is perfect calibration;
/// each bin is a dot at (mean predicted probability, observed frequency).
pub fn reliability_diagram(path: &Path, title: &str, panels: &[ReliabilityPanel]) -> Result<()> {
    let size = (420 * panels.len().max(1) as u32, 470);
    render(path, |staging| {
        let root = BitMapBackend::new(staging, size).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let root = root.titled(title, ("sans-serif", 20)).map_err(plot_error)?;
        for (area, panel) in root
            .split_evenly((1, panels.len().max(1)))
            .iter()
            .zip(panels)
        {
            let mut chart = ChartBuilder::on(area)
                .caption(&panel.title, ("sans-serif", 16))
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(50)
                .build_cartesian_2d(0.0..1.0f64, 0.0..1.0f64)
                .map_err(plot_error)?;
            chart
                .configure_mesh()
                .x_desc("predicted")
                .y_desc("observed")
                .label_style(("sans-serif", 12))
                .draw()
                .map_err(plot_error)?;
            chart
                .draw_series(LineSeries::new(
                    [(0.0, 0.0), (1.0, 1.0)],
                    BLACK.mix(0.4).stroke_width(1),
                ))
                .map_err(plot_error)?;
            for (bins, colour, name) in [
                (&panel.before, PALETTE[1], "before"),
                (&panel.after, PALETTE[0], "after"),
            ] {
                chart
                    .draw_series(LineSeries::new(
                        bins.iter().map(|&(x, y, _)| (x, y)),
                        colour.stroke_width(2),
                    ))
                    .map_err(plot_error)?
                    .label(name)
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
                    });
                chart
                    .draw_series(bins.iter().map(|&(x, y, count)| {
                        let radius = 2 + (count as f64).log10().max(0.0) as i32;
                        Circle::new((x, y), radius, colour.filled())
                    }))
                    .map_err(plot_error)?;
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .label_font(("sans-serif", 12))
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .draw()
                .map_err(plot_error)?;
        }
        root.present().map_err(plot_error)?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charts_are_written_as_png_files() {
        let directory = tempfile::tempdir().expect("temp dir");
        let curve = directory.path().join("curve.png");
        line_chart(
            &curve,
            "strength",
            "generation",
            "Elo",
            (-400.0, 400.0),
            &[Series {
                name: "against a".to_string(),
                points: vec![(10.0, -100.0, -200.0, 0.0), (20.0, 50.0, -40.0, 140.0)],
            }],
        )
        .expect("curve");
        let diagram = directory.path().join("reliability.png");
        reliability_diagram(
            &diagram,
            "calibration",
            &[ReliabilityPanel {
                title: "Light wins".to_string(),
                before: vec![(0.1, 0.2, 10), (0.9, 0.7, 100)],
                after: vec![(0.2, 0.2, 10), (0.7, 0.7, 100)],
            }],
        )
        .expect("diagram");
        for path in [curve, diagram] {
            let bytes = std::fs::read(&path).expect("written");
            assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{}", path.display());
        }
        let names = std::fs::read_dir(directory.path()).expect("list").count();
        assert_eq!(names, 2, "no staging file is left");
    }
}
