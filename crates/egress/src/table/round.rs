//! Unbiased random rounding to base 5, seeded by the table's content.
//!
//! A count `v` with remainder `r = v mod 5` becomes `v − r + 5` with
//! probability `r/5` and `v − r` otherwise, so its expected value is `v`.
//! Multiples of 5 (and 0) stay. Totals are rounded like any other count, on
//! their own, so they need not equal the sum of the rounded cells.
//!
//! The draw for each cell comes from a SHA-256 hash of every cell of the
//! table mixed with the cell's position: the same table always rounds the
//! same way (no clock, no global RNG), so asking again reveals nothing new.
//! A table that differs in any cell gets a fresh draw; averaging many
//! slightly different versions is the known limit of this method.

use sha2::{Digest, Sha256};

use super::model::Model;
use super::parse::RawTable;

/// Rounding base.
pub(crate) const BASE: u64 = 5;

/// The rounded value of every known count cell, as `(cell index, value)`.
pub(crate) fn round_table(raw: &RawTable<'_>, m: &Model) -> Vec<(usize, u64)> {
    let seed = seed(raw);
    let mut out = Vec::new();
    for cell in 0..m.values.len() {
        if let Some(v) = m.values.get(cell) {
            out.push((cell, round_one(v, seed, cell as u64)));
        }
    }
    out
}

fn seed(raw: &RawTable<'_>) -> u64 {
    let mut h = Sha256::new();
    if let Some(header) = &raw.header {
        for c in header {
            h.update(c.text.as_bytes());
            h.update([0x1f]);
        }
    }
    h.update([0x1d]);
    for row in raw.rows.iter() {
        for c in row.iter() {
            h.update(c.text.as_bytes());
            h.update([0x1f]);
        }
        h.update([0x1e]);
    }
    let digest = h.finalize();
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(bytes)
}

/// Round `v` up with probability `(v mod 5)/5`, the draw fixed by `seed`
/// and `position`.
pub(crate) fn round_one(v: u64, seed: u64, position: u64) -> u64 {
    let r = v % BASE;
    if r == 0 {
        return v;
    }
    let x = splitmix64(seed ^ position.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    // Multiply-shift maps x uniformly onto 0..BASE.
    let draw = ((u128::from(x) * u128::from(BASE)) >> 64) as u64;
    if draw < r {
        v - r + BASE
    } else {
        v - r
    }
}

fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multiples_stay_and_others_go_to_a_neighbour_multiple() {
        for v in 0..200u64 {
            for pos in 0..20 {
                let r = round_one(v, 42, pos);
                assert_eq!(r % 5, 0);
                if v % 5 == 0 {
                    assert_eq!(r, v);
                } else {
                    assert!(r == v - v % 5 || r == v - v % 5 + 5);
                }
            }
        }
    }

    #[test]
    fn unbiased_on_average() {
        // Over many positions, the mean of the rounded 3 is close to 3.
        let n = 20_000u64;
        let sum: u64 = (0..n).map(|pos| round_one(3, 7, pos)).sum();
        let mean = sum as f64 / n as f64;
        assert!((mean - 3.0).abs() < 0.1, "mean {mean}");
    }
}
