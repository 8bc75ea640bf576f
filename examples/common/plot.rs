//! Plots for the examples: a figure of panels stacked over one shared time axis, or one x–y
//! plot (a phase portrait, a hysteresis loop), written as SVG to
//! `target/hysens-plots/<name>.svg`.
//!
//! Included by each example that draws, with `#[path = "../common/plot.rs"] mod plot;` (it is
//! not an example itself: `examples/Cargo.toml` lists the examples).
//!
//! Why this shape:
//!
//! - **Jumps stay jumps.** The trajectories of a hybrid system and, even more, their
//!   sensitivities jump at events. A [`Line`] is a list of segments, one per interval between
//!   events ([`split_at`] cuts sampled points at the event times), and each segment is drawn
//!   on its own: a jump shows as a gap from one level to the other, never as a sloped
//!   connector. The event times are marked by thin dashed verticals across every panel.
//! - **Curves in the plane too.** An [`XyFigure`] draws one quantity against another (time
//!   runs along the curves), with the same segments, palette and legends, marks chosen
//!   points (the states at the events) by dots and draws guides (a switching line) dashed.
//! - **One unit per axis.** Each [`Panel`] has its own y axis and label, so quantities with
//!   different units (a height in m, its sensitivity to gravity in s²) never share an axis.
//! - **Nothing but the Rust toolchain.** Only plotters' SVG backend with its built-in text
//!   layout is used (no `ttf` feature, hence no font-kit, fontconfig or freetype): the plots
//!   build and run on a fresh machine, and the viewer renders the SVG's text.

// Each example uses the part of this module it needs.
#![allow(dead_code)]

use std::error::Error;
use std::path::{Path, PathBuf};

use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

/// Supersampling: every figure is drawn at `SCALE` times its size in pixels and shown at its
/// size (the SVG's `width`/`height`; its `viewBox` keeps the drawn size), because plotters'
/// SVG backend rounds every coordinate to a whole pixel: drawn at size, a curve that changes by
/// less than a pixel per point shows as a staircase, which reads as numerical noise. At 4, a
/// coordinate is placed to a quarter pixel. All the sizes below are at the shown size, and
/// [`px`] scales them for drawing.
const SCALE: u32 = 4;
/// Width of a figure, in pixels.
const WIDTH: u32 = 960;
/// Height of one panel, in pixels.
const PANEL_HEIGHT: u32 = 250;
/// Height of the figure's title band, in pixels.
const TITLE_HEIGHT: u32 = 40;
/// Height of the x-axis label area under the last panel (ticks and axis name), in pixels.
const X_AXIS_HEIGHT: u32 = 55;
/// Line colours, in order of the lines of a panel: the Okabe–Ito palette, distinguishable
/// with the common colour-vision deficiencies.
const PALETTE: [RGBColor; 6] = [
    RGBColor(0, 114, 178),   // blue
    RGBColor(213, 94, 0),    // vermillion
    RGBColor(0, 158, 115),   // bluish green
    RGBColor(204, 121, 167), // reddish purple
    RGBColor(230, 159, 0),   // orange
    RGBColor(86, 180, 233),  // sky blue
];
/// Tick labels wanted on the y axis of each panel (at most).
const Y_LABELS: usize = 6;
/// Tick labels wanted on the time axis (at most).
const X_LABELS: usize = 12;
/// Colour of the event markers.
const EVENT_GREY: RGBColor = RGBColor(150, 150, 150);
/// Colour of the guides of an x–y figure ([`XyFigure::guide`]).
const GUIDE_GREY: RGBColor = RGBColor(120, 120, 120);

/// A size in shown pixels as drawn ([`SCALE`]).
fn px(size: u32) -> u32 {
    size * SCALE
}

/// A pixel offset as drawn ([`SCALE`]).
fn offset(size: i32) -> i32 {
    size * SCALE as i32
}

/// A font of `size` shown pixels.
fn font(size: u32) -> (&'static str, u32) {
    ("sans-serif", px(size))
}

/// A line style of `colour`, `width` shown pixels wide.
fn stroke(colour: impl Into<ShapeStyle>, width: u32) -> ShapeStyle {
    colour.into().stroke_width(px(width))
}

/// `root` filled white, with `title` at the top (5 shown pixels down: plotters places it 5
/// drawn pixels down) and what lies under it.
fn titled<'a>(
    root: DrawingArea<SVGBackend<'a>, plotters::coord::Shift>,
    title: &str,
) -> Result<DrawingArea<SVGBackend<'a>, plotters::coord::Shift>, Box<dyn Error>> {
    root.fill(&WHITE)?;
    let top = px(5) - 5;
    Ok(root.margin(top, 0, 0, 0).titled(title, font(22))?)
}

/// Writes the SVG at `path`, drawn at [`SCALE`] times `(width, height)`, with its shown size.
fn show_at_size(path: &Path, (width, height): (u32, u32)) -> Result<(), Box<dyn Error>> {
    let svg = std::fs::read_to_string(path)?;
    let drawn = format!("width=\"{}\" height=\"{}\"", px(width), px(height));
    let shown = format!("width=\"{width}\" height=\"{height}\"");
    if !svg.contains(&drawn) {
        return Err(format!("{}: no `{drawn}` to show at size", path.display()).into());
    }
    std::fs::write(path, svg.replacen(&drawn, &shown, 1))?;
    Ok(())
}

/// The time axis: linear, or logarithmic (for stiff problems spanning many decades).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scale {
    /// Evenly spaced.
    Linear,
    /// Base 10; the range must be positive.
    Log,
}

/// Where a panel's legend goes (inside the plotting area).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LegendAt {
    /// Top right.
    UpperRight,
    /// Top left.
    UpperLeft,
    /// Bottom right.
    LowerRight,
    /// Bottom left.
    LowerLeft,
    /// Halfway up the left side.
    MiddleLeft,
    /// Halfway up the right side.
    MiddleRight,
}

/// One curve: a label for the legend, and its segments (each a polyline drawn on its own).
#[derive(Clone, Debug)]
pub struct Line {
    /// The legend's text.
    pub label: String,
    /// The pieces between events.
    pub segments: Vec<Vec<(f64, f64)>>,
    /// Whether each point is marked by a dot too: for data that exist only at their points
    /// (a discrete adjoint at the step boundaries), so the straight pieces between them read
    /// as interpolation.
    pub dots: bool,
}

impl Line {
    /// A line named `label` of these segments, with a dot at each point if `dots`.
    fn new(label: impl Into<String>, segments: Vec<Vec<(f64, f64)>>, dots: bool) -> Self {
        Line {
            label: label.into(),
            segments,
            dots,
        }
    }
}

/// One panel: a y axis with its label (and unit) and the lines drawn on it.
#[derive(Clone, Debug)]
pub struct Panel {
    y_label: String,
    lines: Vec<Line>,
    legend: LegendAt,
}

impl Panel {
    /// An empty panel whose y axis is labelled `y_label` (say which unit).
    pub fn new(y_label: impl Into<String>) -> Self {
        Panel {
            y_label: y_label.into(),
            lines: Vec::new(),
            legend: LegendAt::UpperRight,
        }
    }

    /// Adds a line, drawn in the next colour of the palette.
    pub fn line(mut self, label: impl Into<String>, segments: Vec<Vec<(f64, f64)>>) -> Self {
        self.lines.push(Line::new(label, segments, false));
        self
    }

    /// Adds a line with a dot at each of its points ([`Line::dots`]).
    pub fn line_with_dots(
        mut self,
        label: impl Into<String>,
        segments: Vec<Vec<(f64, f64)>>,
    ) -> Self {
        self.lines.push(Line::new(label, segments, true));
        self
    }

    /// Puts the legend elsewhere (the default is the top right).
    pub fn legend(mut self, at: LegendAt) -> Self {
        self.legend = at;
        self
    }
}

/// A figure: panels stacked over one time axis, with the event times marked.
#[derive(Clone, Debug)]
pub struct Figure {
    name: String,
    title: String,
    x_label: String,
    scale: Scale,
    events: Option<(String, Vec<f64>)>,
    panels: Vec<Panel>,
}

impl Figure {
    /// An empty figure, saved as `<name>.svg`, titled `title`, whose time axis is labelled
    /// `x_label` (say which unit).
    pub fn new(name: &str, title: impl Into<String>, x_label: impl Into<String>) -> Self {
        Figure {
            name: name.into(),
            title: title.into(),
            x_label: x_label.into(),
            scale: Scale::Linear,
            events: None,
            panels: Vec::new(),
        }
    }

    /// Another scale for the time axis.
    pub fn scale(mut self, scale: Scale) -> Self {
        self.scale = scale;
        self
    }

    /// Marks these event times by dashed verticals; `label` names them in the first panel's
    /// legend.
    pub fn events(mut self, label: impl Into<String>, times: Vec<f64>) -> Self {
        self.events = Some((label.into(), times));
        self
    }

    /// Adds a panel under the others.
    pub fn panel(mut self, panel: Panel) -> Self {
        self.panels.push(panel);
        self
    }

    /// Writes the figure to `target/hysens-plots/<name>.svg` (creating the directory) and
    /// returns the path.
    pub fn save(&self) -> Result<PathBuf, Box<dyn Error>> {
        let directory = output_directory();
        std::fs::create_dir_all(&directory)?;
        let path = directory.join(format!("{}.svg", self.name));
        let (t_min, t_max) = self.time_range()?;
        match self.scale {
            Scale::Linear => {
                self.draw(&path, || RangedCoordf64::from(t_min..t_max))?;
            }
            Scale::Log => {
                if t_min <= 0.0 {
                    return Err(format!("a log time axis needs t > 0, got {t_min}").into());
                }
                self.draw(&path, || LogCoord::from((t_min..t_max).log_scale()))?;
            }
        }
        Ok(path)
    }

    /// The smallest and largest time of every point.
    fn time_range(&self) -> Result<(f64, f64), Box<dyn Error>> {
        let times = self
            .panels
            .iter()
            .flat_map(|p| &p.lines)
            .flat_map(|l| &l.segments)
            .flatten()
            .map(|&(t, _)| t);
        let (lo, hi) = finite_range(times).ok_or("nothing to plot")?;
        Ok(if lo < hi { (lo, hi) } else { (lo, lo + 1.0) })
    }

    /// Draws every panel, each with the time axis `x()`.
    fn draw<X>(&self, path: &Path, x: impl Fn() -> X) -> Result<(), Box<dyn Error>>
    where
        X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        let n = self.panels.len() as u32;
        let height = TITLE_HEIGHT + n * PANEL_HEIGHT + X_AXIS_HEIGHT;
        let root = SVGBackend::new(path, (px(WIDTH), px(height))).into_drawing_area();
        let root = titled(root, &self.title)?;
        // Every panel gets the same height; the last one also holds the time axis's label area.
        let mut rest = root;
        for (k, panel) in self.panels.iter().enumerate() {
            let last = k + 1 == self.panels.len();
            let (area, below) = if last {
                (rest.clone(), rest.clone())
            } else {
                rest.split_vertically(px(PANEL_HEIGHT))
            };
            let first = k == 0;
            self.draw_panel(&area, panel, x(), first, last)?;
            rest = below;
        }
        rest.present()?;
        drop(rest);
        show_at_size(path, (WIDTH, height))
    }

    /// Draws one panel: its mesh, the event markers, the lines segment by segment, the legend.
    fn draw_panel<X>(
        &self,
        area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
        panel: &Panel,
        x: X,
        first: bool,
        last: bool,
    ) -> Result<(), Box<dyn Error>>
    where
        X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        let values = panel.lines.iter().flat_map(|l| &l.segments).flatten();
        let (lo, hi) = finite_range(values.map(|&(_, y)| y)).unwrap_or((0.0, 1.0));
        let pad = if hi > lo {
            0.06 * (hi - lo)
        } else {
            0.5 * lo.abs().max(1.0)
        };
        let (y_lo, y_hi) = (lo - pad, hi + pad);
        let y: RangedCoordf64 = (y_lo..y_hi).into();
        let y_step = tick_step(y_lo, y_hi, Y_LABELS);
        let y_format = |v: &f64| linear_tick_label(*v, y_step);
        let (x_lo, x_hi) = (x.range().start, x.range().end);
        let x_step = tick_step(x_lo, x_hi, X_LABELS);
        let x_format = |v: &f64| match self.scale {
            Scale::Linear => linear_tick_label(*v, x_step),
            Scale::Log => log_tick_label(*v),
        };
        let no_label = |_: &f64| String::new();
        let mut chart = ChartBuilder::on(area)
            .margin_top(px(8))
            .margin_right(px(24))
            .x_label_area_size(if last { px(X_AXIS_HEIGHT) } else { 0 })
            .y_label_area_size(px(95))
            .build_cartesian_2d(x, y)?;
        let mut mesh = chart.configure_mesh();
        mesh.y_desc(panel.y_label.as_str())
            .label_style(font(15))
            .axis_desc_style(font(17))
            .axis_style(stroke(BLACK, 1))
            .light_line_style(stroke(RGBColor(238, 238, 238), 1))
            .bold_line_style(stroke(RGBColor(215, 215, 215), 1))
            .y_labels(Y_LABELS)
            .x_labels(X_LABELS)
            .y_label_formatter(&y_format);
        if last {
            mesh.x_desc(self.x_label.as_str())
                .x_label_formatter(&x_format);
        } else {
            mesh.x_label_formatter(&no_label);
        }
        mesh.draw()?;

        if let Some((label, times)) = &self.events {
            let style = stroke(EVENT_GREY, 1);
            for (i, &t) in times.iter().enumerate() {
                let marker = chart.draw_series(DashedLineSeries::new(
                    [(t, y_lo), (t, y_hi)],
                    px(6),
                    px(4),
                    style,
                ))?;
                if first && i == 0 {
                    marker.label(label.as_str()).legend(move |(x, y)| {
                        DashedPathElement::new([(x, y), (x + offset(20), y)], px(4), px(3), style)
                    });
                }
            }
        }

        draw_lines(&mut chart, &panel.lines)?;

        draw_legend(&mut chart, panel.legend)?;
        Ok(())
    }
}

/// Width and height of an x–y figure, in pixels.
const XY_SIZE: (u32, u32) = (960, 720);
/// Radius of the dots of marked points, in pixels.
const DOT_RADIUS: u32 = 3;

/// A figure of curves in the plane: `y` against `x`, neither of them time (a hysteresis loop, a
/// phase portrait). Lines are drawn segment by segment as in [`Figure`]; guides (a switching
/// surface) dashed and grey under them; marked points (say, the states at the events) are
/// dots.
#[derive(Clone, Debug)]
pub struct XyFigure {
    name: String,
    title: String,
    x_label: String,
    y_label: String,
    guides: Vec<Line>,
    lines: Vec<Line>,
    dots: Option<(String, Vec<(f64, f64)>)>,
    legend: LegendAt,
}

impl XyFigure {
    /// An empty figure, saved as `<name>.svg`, titled `title`, with axes labelled `x_label` and
    /// `y_label` (say which unit).
    pub fn new(
        name: &str,
        title: impl Into<String>,
        x_label: impl Into<String>,
        y_label: impl Into<String>,
    ) -> Self {
        XyFigure {
            name: name.into(),
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            guides: Vec::new(),
            lines: Vec::new(),
            dots: None,
            legend: LegendAt::UpperLeft,
        }
    }

    /// Adds a guide: a reference curve that is not a solution (a switching surface, a
    /// nullcline), drawn dashed and grey under the lines, so a line running along it shows.
    pub fn guide(mut self, label: impl Into<String>, segments: Vec<Vec<(f64, f64)>>) -> Self {
        self.guides.push(Line::new(label, segments, false));
        self
    }

    /// Adds a line of points `(x, y)`, drawn in the next colour of the palette.
    pub fn line(mut self, label: impl Into<String>, segments: Vec<Vec<(f64, f64)>>) -> Self {
        self.lines.push(Line::new(label, segments, false));
        self
    }

    /// Marks these points by black dots, named `label` in the legend.
    pub fn dots(mut self, label: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        self.dots = Some((label.into(), points));
        self
    }

    /// Puts the legend elsewhere (the default is the top left).
    pub fn legend(mut self, at: LegendAt) -> Self {
        self.legend = at;
        self
    }

    /// Writes the figure to `target/hysens-plots/<name>.svg` (creating the directory) and
    /// returns the path.
    pub fn save(&self) -> Result<PathBuf, Box<dyn Error>> {
        let directory = output_directory();
        std::fs::create_dir_all(&directory)?;
        let path = directory.join(format!("{}.svg", self.name));
        self.draw(&path)?;
        Ok(path)
    }

    /// Draws the figure into `path`: the mesh fitted to every point, the lines, the dots, the
    /// legend.
    fn draw(&self, path: &Path) -> Result<(), Box<dyn Error>> {
        let points = || {
            let curves = self.guides.iter().chain(&self.lines);
            let on_lines = curves.flat_map(|l| &l.segments).flatten();
            on_lines.chain(self.dots.iter().flat_map(|(_, d)| d))
        };
        let padded = |values: &mut dyn Iterator<Item = f64>| {
            let (lo, hi) = finite_range(values).ok_or("nothing to plot")?;
            let pad = if hi > lo {
                0.04 * (hi - lo)
            } else {
                0.5 * lo.abs().max(1.0)
            };
            Ok::<_, Box<dyn Error>>((lo - pad, hi + pad))
        };
        let (x_lo, x_hi) = padded(&mut points().map(|p| p.0))?;
        let (y_lo, y_hi) = padded(&mut points().map(|p| p.1))?;
        let (x_step, y_step) = (
            tick_step(x_lo, x_hi, X_LABELS),
            tick_step(y_lo, y_hi, Y_LABELS + 4),
        );
        let x_format = |v: &f64| linear_tick_label(*v, x_step);
        let y_format = |v: &f64| linear_tick_label(*v, y_step);

        let (width, height) = XY_SIZE;
        let root = SVGBackend::new(path, (px(width), px(height))).into_drawing_area();
        let root = titled(root, &self.title)?;
        let mut chart = ChartBuilder::on(&root)
            .margin_top(px(8))
            .margin_right(px(24))
            .x_label_area_size(px(X_AXIS_HEIGHT))
            .y_label_area_size(px(95))
            .build_cartesian_2d(x_lo..x_hi, y_lo..y_hi)?;
        chart
            .configure_mesh()
            .x_desc(self.x_label.as_str())
            .y_desc(self.y_label.as_str())
            .label_style(font(15))
            .axis_desc_style(font(17))
            .axis_style(stroke(BLACK, 1))
            .light_line_style(stroke(RGBColor(238, 238, 238), 1))
            .bold_line_style(stroke(RGBColor(215, 215, 215), 1))
            .x_labels(X_LABELS)
            .y_labels(Y_LABELS + 4)
            .x_label_formatter(&x_format)
            .y_label_formatter(&y_format)
            .draw()?;

        let guide_style = stroke(GUIDE_GREY, 2);
        for guide in &self.guides {
            for (i, segment) in guide.segments.iter().enumerate() {
                let drawn = chart.draw_series(DashedLineSeries::new(
                    segment.iter().copied(),
                    px(8),
                    px(5),
                    guide_style,
                ))?;
                if i == 0 {
                    drawn.label(guide.label.as_str()).legend(move |(x, y)| {
                        let end = (x + offset(20), y);
                        DashedPathElement::new([(x, y), end], px(5), px(3), guide_style)
                    });
                }
            }
        }
        draw_lines(&mut chart, &self.lines)?;
        if let Some((label, dots)) = &self.dots {
            let style = ShapeStyle::from(BLACK).filled();
            chart
                .draw_series(dots.iter().map(|&p| Circle::new(p, px(DOT_RADIUS), style)))?
                .label(label.as_str())
                .legend(move |(x, y)| Circle::new((x + offset(10), y), px(DOT_RADIUS), style));
        }

        draw_legend(&mut chart, self.legend)?;
        root.present()?;
        drop(chart);
        drop(root);
        show_at_size(path, XY_SIZE)
    }
}

/// Draws `lines` in the palette's colours, each segment a polyline of its own, with a dot at
/// every point of a line that asks for them ([`Line::dots`]); a line's first segment names it
/// in the legend. The lines of [`Figure`]'s panels and of [`XyFigure`].
fn draw_lines<'chart, 'svg: 'chart, CT>(
    chart: &mut ChartContext<'chart, SVGBackend<'svg>, CT>,
    lines: &[Line],
) -> Result<(), Box<dyn Error>>
where
    CT: CoordTranslate<From = (f64, f64)>,
{
    for (line, &colour) in lines.iter().zip(PALETTE.iter().cycle()) {
        let style = stroke(colour, 2);
        for (i, segment) in line.segments.iter().enumerate() {
            let drawn = chart.draw_series(LineSeries::new(segment.iter().copied(), style))?;
            if i == 0 {
                drawn
                    .label(line.label.as_str())
                    .legend(move |(x, y)| PathElement::new([(x, y), (x + offset(20), y)], style));
            }
            if line.dots {
                let dot = ShapeStyle::from(colour).filled();
                let dots = segment.iter().map(|&p| Circle::new(p, px(DOT_RADIUS), dot));
                chart.draw_series(dots)?;
            }
        }
    }
    Ok(())
}

/// Draws the legend of `chart`'s labelled series at `at`, on a translucent white box: the
/// legend of [`Figure`]'s panels and of [`XyFigure`].
fn draw_legend<'chart, 'svg: 'chart, CT: CoordTranslate>(
    chart: &mut ChartContext<'chart, SVGBackend<'svg>, CT>,
    at: LegendAt,
) -> Result<(), Box<dyn Error>> {
    chart
        .configure_series_labels()
        .position(at.position())
        .label_font(font(15))
        .margin(px(10))
        .legend_area_size(px(30))
        .background_style(WHITE.mix(0.85))
        .border_style(stroke(RGBColor(160, 160, 160), 1))
        .draw()?;
    Ok(())
}

impl LegendAt {
    /// Plotters' name of the position.
    fn position(self) -> SeriesLabelPosition {
        match self {
            LegendAt::UpperRight => SeriesLabelPosition::UpperRight,
            LegendAt::UpperLeft => SeriesLabelPosition::UpperLeft,
            LegendAt::LowerRight => SeriesLabelPosition::LowerRight,
            LegendAt::LowerLeft => SeriesLabelPosition::LowerLeft,
            LegendAt::MiddleLeft => SeriesLabelPosition::MiddleLeft,
            LegendAt::MiddleRight => SeriesLabelPosition::MiddleRight,
        }
    }
}

/// Cuts sampled points `(t, value)` (in time order) at the event times: a new segment starts
/// at the first point at or after each event. A point exactly at an event belongs to the
/// segment after it, as the solver reports the state right after the event there.
pub fn split_at(
    points: impl IntoIterator<Item = (f64, f64)>,
    events: &[f64],
) -> Vec<Vec<(f64, f64)>> {
    let mut segments: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
    let mut next_event = events.iter().peekable();
    for (t, v) in points {
        let mut crossed = false;
        while next_event.next_if(|&&e| e <= t).is_some() {
            crossed = true;
        }
        if crossed && segments.last().is_some_and(|s| !s.is_empty()) {
            segments.push(Vec::new());
        }
        if let Some(segment) = segments.last_mut() {
            segment.push((t, v));
        }
    }
    segments.retain(|s| !s.is_empty());
    segments
}

/// `target/hysens-plots`: under `CARGO_TARGET_DIR` if it is set, else under the workspace's
/// `target` (the repository root's: this package is `examples/`, its sibling is `target/`).
pub fn output_directory() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).with_file_name("target"));
    target.join("hysens-plots")
}

/// The spacing of plotters' tick marks on a linear axis over `[lo, hi]` with at most `n`
/// ticks: the finest of `{1, 2, 5} × 10^k` that gives at most `n` multiples in the range.
fn tick_step(lo: f64, hi: f64, n: usize) -> f64 {
    let span = (hi - lo).abs();
    if !(span > 0.0 && span.is_finite()) {
        return 1.0;
    }
    let count = |step: f64| (hi / step).floor() - (lo / step).ceil() + 1.0;
    let mut decade = 10f64.powf(span.log10().floor() + 1.0);
    loop {
        let finer = [decade / 2.0, decade / 5.0, decade / 10.0];
        match finer.iter().position(|&s| count(s) > n as f64) {
            Some(0) => return decade,
            Some(i) => return finer[i - 1],
            None => decade /= 10.0,
        }
    }
}

/// A tick label on a linear axis whose ticks are `step` apart: as many decimals as the step
/// needs (so all labels of an axis agree), scientific notation for magnitudes beyond
/// `[1e-3, 1e5)`, and no `-0`.
fn linear_tick_label(value: f64, step: f64) -> String {
    // Ticks are multiples of the step; snapping removes the round-off of their computation.
    let value = (value / step).round() * step + 0.0;
    let exponent = |v: f64| v.abs().log10().floor();
    let magnitude = value.abs().max(step);
    if !(1e-3..1e5).contains(&magnitude) {
        if value == 0.0 {
            return "0".into();
        }
        let digits = (exponent(value) - exponent(step)).max(0.0) as usize;
        format!("{value:.digits$e}")
    } else {
        let decimals = (-exponent(step)).max(0.0) as usize;
        format!("{value:.decimals$}")
    }
}

/// A tick label on a log axis: `10ⁿ` for powers of ten, scientific notation otherwise.
fn log_tick_label(value: f64) -> String {
    let exponent = value.log10().round();
    if (value / 10f64.powf(exponent) - 1.0).abs() < 1e-9 {
        let superscript: String = format!("{}", exponent as i64)
            .chars()
            .map(|c| match c {
                '-' => '⁻',
                d => ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹']
                    [d.to_digit(10).unwrap_or(0) as usize],
            })
            .collect();
        format!("10{superscript}")
    } else {
        format!("{value:e}")
    }
}

/// The smallest and largest finite value, if any.
fn finite_range(values: impl IntoIterator<Item = f64>) -> Option<(f64, f64)> {
    values
        .into_iter()
        .filter(|v| v.is_finite())
        .fold(None, |range, v| match range {
            None => Some((v, v)),
            Some((lo, hi)) => Some((f64::min(lo, v), f64::max(hi, v))),
        })
}
