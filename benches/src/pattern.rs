//! The fill pattern a benchmark writes into its source and checks after every
//! flip: one native-endian `u64` at the start of each page,
//! `pattern(page_index) = splitmix64(seed ^ page_index)`. Checks are sampled
//! (about [`SAMPLES`] pages spread over the range, always the first and last).

/// How many pages a sampled check reads, roughly (first and last included).
pub const SAMPLES: usize = 1024;

/// The splitmix64 finaliser: a fast, well-mixed 64-bit hash.
pub const fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The word expected at the start of page `index` for `seed`.
pub const fn pattern(seed: u64, index: usize) -> u64 {
    splitmix64(seed ^ index as u64)
}

/// A page whose first word is not what the pattern says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Index of the page in the span.
    pub page: usize,
    /// The pattern word.
    pub expected: u64,
    /// The word found.
    pub found: u64,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "page {} holds {:#018x}, expected {:#018x}",
            self.page, self.found, self.expected
        )
    }
}

fn word(bytes: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&bytes[at..at + 8]);
    u64::from_ne_bytes(w)
}

fn put_word(bytes: &mut [u8], at: usize, value: u64) {
    bytes[at..at + 8].copy_from_slice(&value.to_ne_bytes());
}

/// Writes the pattern word at the start of every `page`-byte page of `bytes`.
pub fn write_pattern(bytes: &mut [u8], page: usize, seed: u64) {
    for (i, at) in (0..bytes.len()).step_by(page).enumerate() {
        put_word(bytes, at, pattern(seed, i));
    }
}

/// Indices of the pages a sampled check reads among `pages`: `SAMPLES + 1`
/// evenly spread indices from the first to the last page, without repeats.
pub fn sample_pages(pages: usize) -> Vec<usize> {
    if pages == 0 {
        return Vec::new();
    }
    let mut v: Vec<usize> = (0..=SAMPLES).map(|i| i * (pages - 1) / SAMPLES).collect();
    v.dedup();
    v
}

/// Checks the sampled pages of `bytes` against the pattern. Returns how many
/// pages were checked, or the first mismatch.
pub fn verify_sampled(bytes: &[u8], page: usize, seed: u64) -> Result<usize, Mismatch> {
    let pages = sample_pages(bytes.len() / page);
    for &i in &pages {
        let (expected, found) = (pattern(seed, i), word(bytes, i * page));
        if found != expected {
            return Err(Mismatch {
                page: i,
                expected,
                found,
            });
        }
    }
    Ok(pages.len())
}

/// Overwrites the sampled pages' words with the complement of the pattern, so
/// a later [`verify_sampled`] passes only if a flip really wrote them.
pub fn poison_sampled(bytes: &mut [u8], page: usize, seed: u64) {
    for i in sample_pages(bytes.len() / page) {
        put_word(bytes, i * page, !pattern(seed, i));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_known_values() {
        // First outputs of splitmix64 seeded with 0 (state += gamma, then mix).
        assert_eq!(splitmix64(0), 0xE220_A839_7B1D_CDAF);
        assert_ne!(pattern(1, 0), pattern(1, 1));
        assert_ne!(pattern(1, 5), pattern(2, 5));
    }

    #[test]
    fn samples_cover_first_and_last() {
        assert!(sample_pages(0).is_empty());
        assert_eq!(sample_pages(1), vec![0]);
        assert_eq!(sample_pages(3), vec![0, 1, 2]);
        let s = sample_pages(262_144);
        assert_eq!(s.len(), SAMPLES + 1);
        assert_eq!((s[0], *s.last().unwrap()), (0, 262_143));
        assert!(s.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn write_poison_verify() {
        let page = 64;
        let mut buf = vec![0u8; page * 5000];
        assert!(verify_sampled(&buf, page, 7).is_err());
        write_pattern(&mut buf, page, 7);
        assert_eq!(verify_sampled(&buf, page, 7), Ok(SAMPLES + 1));
        assert!(verify_sampled(&buf, page, 8).is_err());
        poison_sampled(&mut buf, page, 7);
        let m = verify_sampled(&buf, page, 7).unwrap_err();
        assert_eq!((m.page, m.found), (0, !m.expected));
        assert!(m.to_string().contains("page 0 holds"), "{m}");
        // A wrong last page is caught.
        write_pattern(&mut buf, page, 7);
        buf[4999 * page] ^= 1;
        assert_eq!(verify_sampled(&buf, page, 7).unwrap_err().page, 4999);
    }
}
