//! Latency pictures as SVG (plotters): the percentile distribution of several histograms, log
//! scaled as HdrHistogram's plotter draws it (x: percentile as 1/(1-p), so 90 %, 99 %,
//! 99.9 % … are equally spaced; y: latency in µs, log), and latency against throughput (x:
//! requests/s sent, y: p50 / p99 / p99.9 in µs, log). `demo --plot` and `load --plot` write
//! them.

use std::path::{Path, PathBuf};

use hdrhistogram::Histogram;
use plotters::coord::combinators::IntoLogRange;
use plotters::prelude::*;

/// Size of every picture, pixels.
const SIZE: (u32, u32) = (1000, 620);
/// The highest percentile drawn (1/(1-p) = 10⁶).
const MAX_PERCENTILE: f64 = 99.9999;

const COLORS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(23, 190, 207),
];

fn err(e: impl std::fmt::Display) -> String {
    format!("plot: {e}")
}

/// Draws the series' legend in the upper left corner.
fn legend<'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, CT>,
) -> Result<(), String> {
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(err)
}

/// `FILE.svg` → `FILE-suffix.svg` (the second picture of a run).
pub fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "plot".into());
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().into_owned())
        .unwrap_or_else(|| "svg".into());
    path.with_file_name(format!("{stem}-{suffix}.{ext}"))
}

/// The (1/(1-p), µs) points of a histogram of ns, from p = 0 up to its maximum.
fn distribution(h: &Histogram<u64>) -> Vec<(f64, f64)> {
    let mut points = Vec::new();
    for v in h.iter_quantiles(4) {
        let q = v.quantile_iterated_to();
        if q * 100.0 > MAX_PERCENTILE {
            break;
        }
        let x = 1.0 / (1.0 - q);
        let y = (v.value_iterated_to() as f64 / 1_000.0).max(0.001);
        points.push((x, y));
    }
    let top = 1.0 / (1.0 - MAX_PERCENTILE / 100.0);
    let last_x = points.last().map_or(1.0, |p| p.0);
    points.push((top.min(last_x * 10.0).max(last_x), h.max() as f64 / 1_000.0));
    points
}

/// Writes the percentile distribution of each `(name, histogram of ns)` to `path` (SVG).
///
/// Errors: the file could not be written, as text.
pub fn percentiles_svg(
    path: &Path,
    title: &str,
    series: &[(&str, &Histogram<u64>)],
) -> Result<(), String> {
    let series: Vec<(&str, Vec<(f64, f64)>)> = series
        .iter()
        .filter(|(_, h)| !h.is_empty())
        .map(|(n, h)| (*n, distribution(h)))
        .collect();
    let y_max = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.1))
        .fold(1.0f64, f64::max)
        * 2.0;
    let y_min = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.1))
        .fold(f64::MAX, f64::min)
        .clamp(0.01, y_max / 10.0)
        / 2.0;
    let x_max = 1.0 / (1.0 - MAX_PERCENTILE / 100.0);
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d((1.0..x_max).log_scale(), (y_min..y_max).log_scale())
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("percentile")
        .y_desc("latency (µs)")
        .x_label_formatter(&|x| {
            let p = 100.0 * (1.0 - 1.0 / x);
            format!("{p:.4}")
                .trim_end_matches('0')
                .trim_end_matches('.')
                .to_owned()
                + "%"
        })
        .y_label_formatter(&|y| format!("{y}"))
        .draw()
        .map_err(err)?;
    for (i, (name, points)) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        chart
            .draw_series(LineSeries::new(
                points.iter().copied(),
                color.stroke_width(2),
            ))
            .map_err(err)?
            .label(*name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
    }
    legend(&mut chart)?;
    root.present().map_err(err)
}

/// One point of a latency-vs-throughput picture: requests/s sent and p50/p99/p99.9 in ns.
#[derive(Debug, Clone, Copy)]
pub struct ThroughputPoint {
    /// Requests per second actually sent.
    pub rate: f64,
    /// Median, ns.
    pub p50: u64,
    /// 99th percentile, ns.
    pub p99: u64,
    /// 99.9th percentile, ns.
    pub p999: u64,
}

/// Writes latency (p50, p99, p99.9) against throughput to `path` (SVG), with the p99 bound as
/// a horizontal line.
///
/// Errors: the file could not be written, as text.
pub fn throughput_svg(
    path: &Path,
    title: &str,
    points: &[ThroughputPoint],
    p99_bound_ns: u64,
) -> Result<(), String> {
    let us = |ns: u64| (ns as f64 / 1_000.0).max(0.01);
    let x_max = points.iter().map(|p| p.rate).fold(1.0f64, f64::max) * 1.1;
    let y_max = points
        .iter()
        .map(|p| us(p.p999))
        .fold(us(p99_bound_ns), f64::max)
        * 2.0;
    let y_min = points
        .iter()
        .map(|p| us(p.p50))
        .fold(f64::MAX, f64::min)
        .min(y_max / 10.0)
        / 2.0;
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..x_max, (y_min..y_max).log_scale())
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("requests/s sent")
        .y_desc("latency from intended send (µs)")
        .y_label_formatter(&|y| format!("{y}"))
        .draw()
        .map_err(err)?;
    let lines = [
        (
            "p50",
            points
                .iter()
                .map(|p| (p.rate, us(p.p50)))
                .collect::<Vec<_>>(),
        ),
        ("p99", points.iter().map(|p| (p.rate, us(p.p99))).collect()),
        (
            "p99.9",
            points.iter().map(|p| (p.rate, us(p.p999))).collect(),
        ),
    ];
    for (i, (name, pts)) in lines.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        chart
            .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
            .map_err(err)?
            .label(*name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        chart
            .draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(err)?;
    }
    let bound = us(p99_bound_ns);
    chart
        .draw_series(LineSeries::new(
            [(0.0, bound), (x_max, bound)],
            BLACK.mix(0.5),
        ))
        .map_err(err)?
        .label("p99 bound")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.mix(0.5)));
    legend(&mut chart)?;
    root.present().map_err(err)
}

/// One row of the endurance bench as drawn: orders done, gateway RSS, journal bytes and each
/// leg's p99.9 of the interval.
#[derive(Debug, Clone)]
pub struct EndurancePoint {
    /// Orders accepted when the row was taken.
    pub orders: u64,
    /// Gateway resident set, MiB.
    pub rss_mib: f64,
    /// Bytes in the journal directory, MiB.
    pub journal_mib: f64,
    /// Per leg: the interval's p99.9, µs (`None`: no sample).
    pub p999_us: Vec<(&'static str, Option<f64>)>,
}

/// Marks each restart (orders done when the gateway was killed) as a vertical line from `y0`
/// to `y1`, labelled once.
fn restart_marks<'a, Y>(
    chart: &mut ChartContext<
        'a,
        SVGBackend<'a>,
        Cartesian2d<plotters::coord::types::RangedCoordf64, Y>,
    >,
    restarts: &[u64],
    y0: f64,
    y1: f64,
) -> Result<(), String>
where
    Y: Ranged<ValueType = f64>,
{
    let color = RGBColor(127, 127, 127).mix(0.6);
    for (i, &r) in restarts.iter().enumerate() {
        let series = chart
            .draw_series(LineSeries::new(
                [(r as f64, y0), (r as f64, y1)],
                color.stroke_width(2),
            ))
            .map_err(err)?;
        if i == 0 {
            series
                .label("restart (SIGKILL)")
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        }
    }
    Ok(())
}

/// Reads one linear figure of an [`EndurancePoint`].
type Field = fn(&EndurancePoint) -> f64;

/// Writes the endurance picture to `path` (SVG): three panels against orders done, gateway
/// RSS (MiB), journal directory (MiB), and each leg's per-interval p99.9 (µs, log scale);
/// restarts as grey vertical lines.
///
/// Errors: the file could not be written, as text.
pub fn endurance_svg(
    path: &Path,
    points: &[EndurancePoint],
    restarts: &[u64],
) -> Result<(), String> {
    let x_max = points.iter().map(|p| p.orders).max().unwrap_or(1).max(1) as f64 * 1.02;
    let root = SVGBackend::new(path, (SIZE.0, SIZE.1 * 2)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let root = root
        .titled("endurance: against orders done", ("sans-serif", 22))
        .map_err(err)?;
    let panels = root.split_evenly((3, 1));
    let linear: [(&str, Field); 2] = [
        ("gateway RSS (MiB)", |p| p.rss_mib),
        ("journal directory (MiB)", |p| p.journal_mib),
    ];
    for (panel, (name, value)) in panels.iter().zip(linear) {
        let y_max = points.iter().map(value).fold(1.0f64, f64::max) * 1.15;
        let mut chart = ChartBuilder::on(panel)
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..x_max, 0.0..y_max)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("orders done")
            .y_desc(name)
            .x_label_formatter(&|x| format!("{x:.0}"))
            .draw()
            .map_err(err)?;
        restart_marks(&mut chart, restarts, 0.0, y_max)?;
        let color = COLORS[0];
        chart
            .draw_series(LineSeries::new(
                points.iter().map(|p| (p.orders as f64, value(p))),
                color.stroke_width(2),
            ))
            .map_err(err)?
            .label(name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        chart
            .draw_series(
                points
                    .iter()
                    .map(|p| Circle::new((p.orders as f64, value(p)), 3, color.filled())),
            )
            .map_err(err)?;
        legend(&mut chart)?;
    }
    let legs: Vec<&str> = points
        .iter()
        .flat_map(|p| p.p999_us.iter().map(|(n, _)| *n))
        .fold(Vec::new(), |mut v, n| {
            if !v.contains(&n) {
                v.push(n);
            }
            v
        });
    let all = || {
        points
            .iter()
            .flat_map(|p| p.p999_us.iter().filter_map(|(_, v)| *v))
    };
    let y_max = all().fold(10.0f64, f64::max) * 2.0;
    let y_min = all().fold(f64::MAX, f64::min).clamp(0.1, y_max / 10.0) / 2.0;
    let mut chart = ChartBuilder::on(&panels[2])
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..x_max, (y_min..y_max).log_scale())
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("orders done")
        .y_desc("p99.9 of the interval (µs)")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y}"))
        .draw()
        .map_err(err)?;
    restart_marks(&mut chart, restarts, y_min, y_max)?;
    for (i, leg) in legs.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let pts: Vec<(f64, f64)> = points
            .iter()
            .filter_map(|p| {
                p.p999_us
                    .iter()
                    .find(|(n, _)| n == leg)
                    .and_then(|(_, v)| *v)
                    .map(|v| (p.orders as f64, v.max(y_min)))
            })
            .collect();
        chart
            .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
            .map_err(err)?
            .label(*leg)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
    }
    legend(&mut chart)?;
    root.present().map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_pictures_are_written_as_svg_with_their_series() {
        let dir = std::env::temp_dir().join(format!("bgw-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let mut a = Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3).expect("h");
        for v in 1..=10_000u64 {
            a.record(20_000 + v * 10).expect("record");
        }
        let path = dir.join("legs.svg");
        percentiles_svg(&path, "legs", &[("round trip", &a)]).expect("written");
        let svg = std::fs::read_to_string(&path).expect("read");
        assert!(svg.starts_with("<svg"), "{}", &svg[..40.min(svg.len())]);
        assert!(svg.contains("round trip") && svg.contains("<polyline"));

        let t = sibling(&path, "throughput");
        assert_eq!(t, dir.join("legs-throughput.svg"));
        let pts = [
            ThroughputPoint {
                rate: 1000.0,
                p50: 100_000,
                p99: 400_000,
                p999: 900_000,
            },
            ThroughputPoint {
                rate: 2000.0,
                p50: 90_000,
                p99: 500_000,
                p999: 1_500_000,
            },
        ];
        throughput_svg(&t, "load", &pts, 1_000_000).expect("written");
        let svg = std::fs::read_to_string(&t).expect("read");
        assert!(svg.contains("p99.9") && svg.contains("p99 bound"));

        let e = sibling(&path, "endurance");
        let rows: Vec<EndurancePoint> = (1..=4u64)
            .map(|k| EndurancePoint {
                orders: k * 100_000,
                rss_mib: 40.0 + k as f64,
                journal_mib: 10.0 * k as f64,
                p999_us: vec![("round_trip", Some(300.0)), ("first_push", None)],
            })
            .collect();
        endurance_svg(&e, &rows, &[200_000]).expect("written");
        let svg = std::fs::read_to_string(&e).expect("read");
        assert!(svg.contains("gateway RSS") && svg.contains("journal directory"));
        assert!(svg.contains("round_trip") && svg.contains("<polyline"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
