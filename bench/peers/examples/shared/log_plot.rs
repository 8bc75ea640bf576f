//! What the benchmark's log–log plots (`work_precision`, `scaling_report`) draw the same way:
//! one tool's line with its markers and legend entry (hysens thick with filled markers, the
//! other tools thin and hollow), and the framed legend.

use plotters::coord::combinators::LogCoord;
use plotters::prelude::*;

/// A chart with logarithmic axes on an SVG file.
pub type LogChart<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<LogCoord<f64>, LogCoord<f64>>>;

/// Draws `data` as a line with a marker at each point, labelled `label` in the legend;
/// `hysens` picks the thick, filled style.
pub fn draw_line(
    chart: &mut LogChart<'_, '_>,
    label: &str,
    data: &[(f64, f64)],
    color: RGBAColor,
    hysens: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    let style = ShapeStyle {
        color,
        filled: hysens,
        stroke_width: if hysens { 2 } else { 1 },
    };
    chart
        .draw_series(LineSeries::new(data.to_vec(), style))?
        .label(label)
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
    chart.draw_series(data.iter().map(|&(x, y)| Circle::new((x, y), 4, style)))?;
    Ok(())
}

/// The legend, framed on a translucent white background, at `position`.
pub fn draw_legend<'a, 'b: 'a>(
    chart: &mut LogChart<'a, 'b>,
    position: SeriesLabelPosition,
) -> Result<(), Box<dyn std::error::Error>> {
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}
