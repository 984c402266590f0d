//! Summary statistics for per-page measurements.

/// Median, 10th and 90th percentiles of a sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// Number of values summarised.
    pub n: usize,
    /// 10th percentile.
    pub p10: f64,
    /// 50th percentile.
    pub median: f64,
    /// 90th percentile.
    pub p90: f64,
}

/// The `q`-quantile (0 ≤ q ≤ 1) of `sorted`, interpolating linearly between closest ranks
/// (R's and NumPy's default "type 7"), so a small sample's p10/p90 are not pinned to its
/// extremes. `None` for an empty sample.
pub fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let h = (sorted.len() - 1) as f64 * q.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    let hi = h.ceil() as usize;
    Some(sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo]))
}

/// Summarises `values` (any order; NaNs are dropped). `None` when nothing is left.
pub fn summarize(values: &[f64]) -> Option<Summary> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
    v.sort_by(f64::total_cmp);
    Some(Summary {
        n: v.len(),
        p10: quantile(&v, 0.1)?,
        median: quantile(&v, 0.5)?,
        p90: quantile(&v, 0.9)?,
    })
}

/// `a / b`, or `None` when `b` is zero (a page one side failed to observe has no ratio).
pub fn ratio(a: f64, b: f64) -> Option<f64> {
    (b != 0.0).then(|| a / b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate_between_ranks() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.5), Some(2.5));
        assert_eq!(quantile(&v, 0.0), Some(1.0));
        assert_eq!(quantile(&v, 1.0), Some(4.0));
        assert!((quantile(&v, 0.1).unwrap() - 1.3).abs() < 1e-12);
        assert!((quantile(&v, 0.9).unwrap() - 3.7).abs() < 1e-12);
    }

    #[test]
    fn summary_ignores_order_and_nan() {
        let s = summarize(&[5.0, f64::NAN, 1.0, 3.0]).unwrap();
        assert_eq!(s.n, 3);
        assert_eq!(s.median, 3.0);
        assert!((s.p10 - 1.4).abs() < 1e-12);
        assert!((s.p90 - 4.6).abs() < 1e-12);
        assert_eq!(summarize(&[]), None);
        assert_eq!(summarize(&[f64::NAN]), None);
    }

    #[test]
    fn single_value_is_every_percentile() {
        let s = summarize(&[7.0]).unwrap();
        assert_eq!((s.p10, s.median, s.p90), (7.0, 7.0, 7.0));
    }

    #[test]
    fn ratio_refuses_zero_denominator() {
        assert_eq!(ratio(1.0, 0.0), None);
        assert_eq!(ratio(1.0, 4.0), Some(0.25));
    }
}
