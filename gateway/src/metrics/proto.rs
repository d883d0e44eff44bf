//! Builders of the `prometheus` crate's protobuf metric types, shared by every file that
//! renders families for the exposition ([`super::exposition`], [`super::control`]).

use prometheus::proto::{Counter, Gauge, LabelPair, Metric, MetricFamily, MetricType};

/// Label pairs from `(name, value)`s.
pub(super) fn labels(pairs: &[(&str, &str)]) -> Vec<LabelPair> {
    pairs
        .iter()
        .map(|(k, v)| {
            let mut l = LabelPair::default();
            l.set_name((*k).to_owned());
            l.set_value((*v).to_owned());
            l
        })
        .collect()
}

/// A counter sample with labels `pairs`.
pub(super) fn counter(pairs: &[(&str, &str)], v: u64) -> Metric {
    let mut c = Counter::default();
    c.set_value(v as f64);
    let mut m = Metric::from_label(labels(pairs));
    m.set_counter(c);
    m
}

/// A gauge sample with labels `pairs`.
pub(super) fn gauge(pairs: &[(&str, &str)], v: f64) -> Metric {
    let mut g = Gauge::default();
    g.set_value(v);
    let mut m = Metric::from_label(labels(pairs));
    m.set_gauge(g);
    m
}

/// A family of `metrics` with its HELP and TYPE.
pub(super) fn family(name: &str, help: &str, ty: MetricType, metrics: Vec<Metric>) -> MetricFamily {
    let mut f = MetricFamily::default();
    f.set_name(name.to_owned());
    f.set_help(help.to_owned());
    f.set_field_type(ty);
    f.set_metric(metrics);
    f
}

/// 1 or 0.
pub(super) fn bool_f(b: bool) -> f64 {
    if b {
        1.0
    } else {
        0.0
    }
}
