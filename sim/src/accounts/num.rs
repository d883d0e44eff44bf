//! Decimal helpers for money arithmetic: exact when the result fits, otherwise rounded to
//! 10 fractional digits (never a panic, never `f64`).

use codec::{Decimal, Rounding};

/// Coarser and coarser exponents tried when an exact result does not fit an `i64` mantissa.
const FALLBACK_EXPS: [i8; 6] = [-10, -8, -6, -4, -2, 0];

fn shrink(d: Decimal) -> Decimal {
    let n = d.normalized();
    if n.exponent() < FALLBACK_EXPS[0] {
        n.round_to(FALLBACK_EXPS[0], Rounding::HalfEven)
            .map(Decimal::normalized)
            .unwrap_or(n)
    } else {
        n
    }
}

/// Tries `op` exactly, then on both operands rounded to coarser exponents.
fn fallback(
    a: Decimal,
    b: Decimal,
    op: impl Fn(Decimal, Decimal) -> Option<Decimal>,
) -> Option<Decimal> {
    op(a, b).map(shrink).or_else(|| {
        FALLBACK_EXPS.iter().find_map(|e| {
            let ra = a.round_to(*e, Rounding::HalfEven)?.normalized();
            let rb = b.round_to(*e, Rounding::HalfEven)?.normalized();
            op(ra, rb).map(shrink)
        })
    })
}

/// `a + b` (exact when it fits; `a` unchanged only beyond ±9.2 × 10^18).
pub fn add(a: Decimal, b: Decimal) -> Decimal {
    fallback(a, b, Decimal::checked_add).unwrap_or(a)
}

/// `a − b` (exact when it fits; `a` unchanged only beyond ±9.2 × 10^18).
pub fn sub(a: Decimal, b: Decimal) -> Decimal {
    fallback(a, b, Decimal::checked_sub).unwrap_or(a)
}

/// `a × b` (exact when it fits; 0 beyond ±9.2 × 10^18).
pub fn mul(a: Decimal, b: Decimal) -> Decimal {
    fallback(a.normalized(), b.normalized(), Decimal::checked_mul).unwrap_or(Decimal::ZERO)
}

/// `a ÷ b` at 10 fractional digits, fewer when needed (0 when `b` is 0).
pub fn div(a: Decimal, b: Decimal) -> Decimal {
    [10u8, 8, 6, 4, 2, 0]
        .iter()
        .find_map(|scale| a.checked_div(b, *scale, Rounding::HalfEven))
        .map(Decimal::normalized)
        .unwrap_or(Decimal::ZERO)
}

/// The smaller of two values.
pub fn min(a: Decimal, b: Decimal) -> Decimal {
    if a <= b {
        a
    } else {
        b
    }
}

/// `max(a, 0)`.
pub fn non_neg(a: Decimal) -> Decimal {
    if a.is_negative() {
        Decimal::ZERO
    } else {
        a
    }
}

/// `−a`.
pub fn neg(a: Decimal) -> Decimal {
    sub(Decimal::ZERO, a)
}

/// Canonical wire text (`"0"`, `"117066.1"`).
pub fn s(a: Decimal) -> String {
    a.normalized().to_string()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    #[test]
    fn exact_when_it_fits_rounded_when_not() {
        assert_eq!(add(d("0.1"), d("0.2")), d("0.3"));
        assert_eq!(mul(d("60000.5"), d("0.0006")), d("36.0003"));
        assert_eq!(div(d("430"), d("4")), d("107.5"));
        // 5 × 10^9 with 10 fractional digits does not fit an i64 mantissa: rounded to 8.
        let big = add(d("5000000000"), d("0.0000000001"));
        assert_eq!(big, d("5000000000"));
        let big = add(d("5000000000.12345678"), d("1"));
        assert_eq!(big, d("5000000001.12345678"));
        assert_eq!(div(d("1"), Decimal::ZERO), Decimal::ZERO);
    }
}
