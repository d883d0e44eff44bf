//! Decimal helpers for money arithmetic: exact when the result fits, otherwise rounded to
//! 10 fractional digits (never a panic, never `f64`).

use codec::{Decimal, Rounding};

/// Fractional digits kept when an exact result would not fit.
const FALLBACK_EXP: i8 = -10;

fn shrink(d: Decimal) -> Decimal {
    let n = d.normalized();
    if n.exponent() < FALLBACK_EXP {
        n.round_to(FALLBACK_EXP, Rounding::HalfEven).unwrap_or(n)
    } else {
        n
    }
}

/// `a + b`.
pub fn add(a: Decimal, b: Decimal) -> Decimal {
    a.checked_add(b)
        .or_else(|| shrink(a).checked_add(shrink(b)))
        .map(shrink)
        .unwrap_or(a)
}

/// `a − b`.
pub fn sub(a: Decimal, b: Decimal) -> Decimal {
    a.checked_sub(b)
        .or_else(|| shrink(a).checked_sub(shrink(b)))
        .map(shrink)
        .unwrap_or(a)
}

/// `a × b`.
pub fn mul(a: Decimal, b: Decimal) -> Decimal {
    a.normalized()
        .checked_mul(b.normalized())
        .or_else(|| {
            let (a, b) = (shrink(a), shrink(b));
            a.round_to(-6, Rounding::HalfEven)?
                .normalized()
                .checked_mul(b.round_to(-6, Rounding::HalfEven)?.normalized())
        })
        .map(shrink)
        .unwrap_or(Decimal::ZERO)
}

/// `a ÷ b` at 10 fractional digits (0 when `b` is 0).
pub fn div(a: Decimal, b: Decimal) -> Decimal {
    a.checked_div(b, 10, Rounding::HalfEven)
        .or_else(|| a.checked_div(b, 4, Rounding::HalfEven))
        .map(|d| d.normalized())
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
