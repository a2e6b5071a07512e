//! Sample statistics for timings in nanoseconds: [`Summary`] (median, min, max)
//! and [`ratio`].

/// The median of `samples`: the middle of the sorted samples, or the mean of the
/// two middles (rounded half up) for an even count. `None` when empty.
pub fn median(samples: &[u64]) -> Option<u64> {
    let mut v = samples.to_vec();
    v.sort_unstable();
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => {
            let (a, b) = (u128::from(v[n / 2 - 1]), u128::from(v[n / 2]));
            // The mean of two u64 values fits a u64.
            Some((a + b).div_ceil(2) as u64)
        }
    }
}

/// Median, minimum and maximum of a non-empty sample set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Summary {
    /// See [`median`].
    pub median: u64,
    /// The smallest sample.
    pub min: u64,
    /// The largest sample.
    pub max: u64,
}

impl Summary {
    /// Summarises `samples`; `None` when empty.
    pub fn of(samples: &[u64]) -> Option<Summary> {
        Some(Summary {
            median: median(samples)?,
            min: *samples.iter().min()?,
            max: *samples.iter().max()?,
        })
    }
}

/// `num / den` as a float; `None` when `den` is zero.
pub fn ratio(num: u64, den: u64) -> Option<f64> {
    (den != 0).then(|| num as f64 / den as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_odd_even_and_empty() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[5]), Some(5));
        assert_eq!(median(&[9, 1, 5]), Some(5));
        assert_eq!(median(&[4, 1, 3, 2]), Some(3)); // (2 + 3) / 2 = 2.5, rounded up
        assert_eq!(median(&[10, 20]), Some(15));
        assert_eq!(median(&[7, 7, 7, 100]), Some(7));
        assert_eq!(median(&[u64::MAX, u64::MAX]), Some(u64::MAX));
    }

    #[test]
    fn summary_and_ratio() {
        let s = Summary::of(&[30, 10, 20]).unwrap();
        assert_eq!((s.median, s.min, s.max), (20, 10, 30));
        assert!(Summary::of(&[]).is_none());
        assert_eq!(ratio(30, 10), Some(3.0));
        assert_eq!(ratio(1, 0), None);
    }
}
