//! Property tests of `codec::Decimal` against `rust_decimal` (parse, Display, add/sub/mul,
//! checked_div rounding, is_multiple_of, Ord), plus an exact i128 model where rust_decimal's
//! own range or rounding would blur the comparison.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use codec::{Decimal, Rounding};
use proptest::prelude::*;
use rust_decimal::{Decimal as Rd, RoundingStrategy};

/// The same value as a rust_decimal, if it fits one (|value| < 2^96, at most 28 fractional digits).
fn to_rd(x: Decimal) -> Option<Rd> {
    let m = i128::from(x.mantissa());
    if x.exponent() <= 0 {
        Some(Rd::from_i128_with_scale(
            m,
            (-i32::from(x.exponent())) as u32,
        ))
    } else {
        let v = m.checked_mul(10i128.pow(x.exponent() as u32))?;
        Rd::try_from_i128_with_scale(v, 0).ok()
    }
}

/// Whether the exact value `m × 10^e` has a `Decimal` form (i64 mantissa, exponent −18..=18).
fn representable(mut m: i128, mut e: i32) -> bool {
    if m == 0 {
        return true;
    }
    while m % 10 == 0 {
        m /= 10;
        e += 1;
    }
    if e < -18 {
        return false;
    }
    // Use the largest allowed exponent ≤ e: the smallest mantissa.
    let target = e.min(18);
    let mut mm = m;
    for _ in 0..(e - target) {
        mm = match mm.checked_mul(10) {
            Some(v) => v,
            None => return false,
        };
    }
    i64::try_from(mm).is_ok()
}

/// Whether a rust_decimal value has a `Decimal` form.
fn rd_representable(r: Rd) -> bool {
    representable(r.mantissa(), -(r.scale() as i32))
}

fn mantissa() -> impl Strategy<Value = i64> {
    prop_oneof![
        -1000i64..1000,
        -10_000_000_000i64..10_000_000_000,
        any::<i64>(),
        Just(i64::MAX),
        Just(i64::MIN),
        Just(0i64),
    ]
}

fn exponent() -> impl Strategy<Value = i8> {
    prop_oneof![-8i8..=0, -18i8..=18]
}

fn decimal() -> impl Strategy<Value = Decimal> {
    (mantissa(), exponent()).prop_map(|(m, e)| Decimal::new(m, e).unwrap())
}

/// Decimals that rust_decimal can hold too.
fn rd_decimal() -> impl Strategy<Value = Decimal> {
    decimal().prop_filter("fits rust_decimal", |x| to_rd(*x).is_some())
}

fn rounding() -> impl Strategy<Value = (Rounding, RoundingStrategy)> {
    prop_oneof![
        Just((Rounding::Down, RoundingStrategy::ToZero)),
        Just((Rounding::HalfUp, RoundingStrategy::MidpointAwayFromZero)),
        Just((Rounding::HalfEven, RoundingStrategy::MidpointNearestEven)),
    ]
}

/// Plain decimal strings: optional sign, 1–22 integer digits, optional 0–22 fractional digits.
fn decimal_string() -> impl Strategy<Value = String> {
    "[+-]?[0-9]{1,22}(\\.[0-9]{0,22})?"
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn parse_agrees_with_rust_decimal(s in decimal_string()) {
        let ours = Decimal::parse(s.as_bytes());
        // rust_decimal does not take a trailing '.'; it means the same as no fraction.
        let rd = Rd::from_str_exact(s.trim_end_matches('.'));
        match (ours, rd) {
            (Ok(x), Ok(r)) => prop_assert_eq!(to_rd(x), Some(r), "{}", s),
            (Ok(x), Err(_)) => {
                // Beyond rust_decimal's 96 bits / 28 digits: check through Display instead.
                let t = x.to_string();
                let digits = |v: &str| v.trim_start_matches(['+', '-']).replace('.', "").trim_start_matches('0').trim_end_matches('0').to_string();
                prop_assert_eq!(digits(&t), digits(&s), "{} vs {}", s, t);
            }
            (Err(_), Ok(r)) => prop_assert!(!rd_representable(r), "refused representable {}", s),
            (Err(_), Err(_)) => {}
        }
    }

    #[test]
    fn display_round_trips(x in decimal()) {
        let s = x.to_string();
        let y: Decimal = s.parse().unwrap();
        prop_assert_eq!(y, x);
        if x.exponent() <= 0 {
            prop_assert_eq!((y.mantissa(), y.exponent()), (x.mantissa(), x.exponent()));
            // Same text as rust_decimal, scale kept ("0.50").
            prop_assert_eq!(s, to_rd(x).unwrap().to_string());
        }
        let mut v = Vec::new();
        x.write_to(&mut v);
        prop_assert_eq!(v, x.to_string().into_bytes());
    }

    #[test]
    fn add_sub_mul_agree(a in rd_decimal(), b in rd_decimal()) {
        let (ra, rb) = (to_rd(a).unwrap(), to_rd(b).unwrap());
        for (name, ours, theirs) in [
            ("add", a.checked_add(b), ra.checked_add(rb)),
            ("sub", a.checked_sub(b), ra.checked_sub(rb)),
            ("mul", a.checked_mul(b), ra.checked_mul(rb)),
        ] {
            if let Some(x) = ours {
                if let Some(r) = theirs {
                    prop_assert_eq!(to_rd(x), Some(r), "{} {} {}", a, name, b);
                }
            }
        }
    }

    #[test]
    fn add_sub_mul_exact_model(a in decimal(), b in decimal()) {
        // Exact i128 model: products always fit; sums when the alignment does.
        let p = i128::from(a.mantissa()) * i128::from(b.mantissa());
        let pe = i32::from(a.exponent()) + i32::from(b.exponent());
        let mul = a.checked_mul(b);
        prop_assert_eq!(mul.is_some(), representable(p, pe), "{} * {}", a, b);
        if let Some(x) = mul {
            prop_assert!(same_value(x, p, pe), "{} * {} = {}", a, b, x);
        }
        let e = a.exponent().min(b.exponent());
        let align = |x: Decimal| i128::from(x.mantissa()).checked_mul(10i128.checked_pow((x.exponent() - e) as u32)?);
        if let (Some(ma), Some(mb)) = (align(a), align(b)) {
            for (name, exact, ours) in [
                ("add", ma.checked_add(mb), a.checked_add(b)),
                ("sub", ma.checked_sub(mb), a.checked_sub(b)),
            ] {
                if let Some(m) = exact {
                    prop_assert_eq!(ours.is_some(), representable(m, i32::from(e)), "{} {} {}", a, name, b);
                    if let Some(x) = ours {
                        prop_assert!(same_value(x, m, i32::from(e)), "{} {} {} = {}", a, name, b, x);
                    }
                }
            }
        }
    }

    #[test]
    fn div_rounding_agrees(a in rd_decimal(), b in rd_decimal(), scale in 0u8..=18, (ours_r, rd_r) in rounding()) {
        prop_assume!(!b.is_zero());
        let (ra, rb) = (to_rd(a).unwrap(), to_rd(b).unwrap());
        let Some(q) = ra.checked_div(rb) else { return Ok(()); };
        if q.checked_mul(rb) != Some(ra) {
            // rust_decimal rounded the quotient at ~28 digits; a second rounding can only differ
            // from one exact rounding when its tail beyond `scale` became exactly 0 or one half.
            let scaled = q.checked_mul(Rd::from(10u64.pow(u32::from(scale))));
            prop_assume!(scaled.is_some());
            let tail = scaled.unwrap().fract().abs();
            prop_assume!(tail != Rd::ZERO && tail != Rd::new(5, 1));
        }
        let expected = q.round_dp_with_strategy(u32::from(scale), rd_r);
        match a.checked_div(b, scale, ours_r) {
            Some(x) => {
                prop_assert_eq!(to_rd(x), Some(expected), "{} / {} @{} {:?}", a, b, scale, ours_r);
                prop_assert!(x.exponent() >= -(scale as i8));
            }
            None => prop_assert!(
                !rd_representable(expected),
                "{} / {} @{} {:?}: None but {} fits", a, b, scale, ours_r, expected
            ),
        }
    }

    #[test]
    fn is_multiple_of_agrees_with_rem(a in rd_decimal(), b in rd_decimal()) {
        let (ra, rb) = (to_rd(a).unwrap(), to_rd(b).unwrap());
        let expected = if rb.is_zero() { true } else { ra.checked_rem(rb).unwrap().is_zero() };
        prop_assert_eq!(a.is_multiple_of(b), expected, "{} multiple of {}", a, b);
    }

    #[test]
    fn ord_agrees(a in decimal(), b in decimal()) {
        if let (Some(ra), Some(rb)) = (to_rd(a), to_rd(b)) {
            prop_assert_eq!(a.cmp(&b), ra.cmp(&rb), "{} vs {}", a, b);
        }
        // Antisymmetry and Eq/Hash consistency over the whole range.
        prop_assert_eq!(a.cmp(&b), b.cmp(&a).reverse());
        if a == b {
            prop_assert_eq!(a.normalized().mantissa(), b.normalized().mantissa());
        }
    }

    #[test]
    fn ord_is_transitive(a in decimal(), b in decimal(), c in decimal()) {
        if a <= b && b <= c {
            prop_assert!(a <= c, "{} <= {} <= {}", a, b, c);
        }
    }
}

/// `x == m × 10^e` exactly.
fn same_value(x: Decimal, m: i128, e: i32) -> bool {
    let (mut xm, mut xe) = (i128::from(x.mantissa()), i32::from(x.exponent()));
    let (mut m, mut e) = (m, e);
    if xm == 0 || m == 0 {
        return xm == m;
    }
    while xm % 10 == 0 {
        xm /= 10;
        xe += 1;
    }
    while m % 10 == 0 {
        m /= 10;
        e += 1;
    }
    (xm, xe) == (m, e)
}

#[test]
fn known_edge_cases() {
    let d = |s: &str| s.parse::<Decimal>().unwrap();
    // A tiny dividend over a huge divisor rounds to zero (no i128 overflow to None).
    let tiny = Decimal::new(1, -18).unwrap();
    let huge = Decimal::new(7_000_000_000, 18).unwrap();
    assert_eq!(
        tiny.checked_div(huge, 0, Rounding::HalfUp),
        Some(Decimal::ZERO)
    );
    assert_eq!(
        tiny.checked_div(huge, 18, Rounding::Down),
        Some(Decimal::ZERO)
    );
    // Ties.
    assert_eq!(
        d("2.5").checked_div(Decimal::ONE, 0, Rounding::HalfEven),
        Some(d("2"))
    );
    assert_eq!(
        d("-2.5").checked_div(Decimal::ONE, 0, Rounding::HalfUp),
        Some(d("-3"))
    );
    assert_eq!(
        d("-2.5").checked_div(Decimal::ONE, 0, Rounding::Down),
        Some(d("-2"))
    );
    // Found by the properties above (fixed in decimal.rs): a large dividend at a fine scale
    // overflowed the i128 pre-scaling although the quotient fits.
    assert_eq!(
        Decimal::new(i64::MAX, 0).unwrap().checked_div(
            d("9223372036854.775807"),
            14,
            Rounding::Down
        ),
        Some(d("1000000"))
    );
    let big = Decimal::new(9_000_000_000_000_000_000, 18).unwrap();
    assert_eq!(
        big.checked_div(Decimal::ONE, 18, Rounding::HalfEven),
        Some(big)
    );
    assert_eq!(
        Decimal::new(0, 18)
            .unwrap()
            .checked_div(d("-0.00000001"), 14, Rounding::Down),
        Some(Decimal::ZERO)
    );
    // is_multiple_of across exponent gaps above 19.
    assert!(Decimal::new(12, 18)
        .unwrap()
        .is_multiple_of(Decimal::new(3, -18).unwrap()));
    assert!(!Decimal::new(10, 18)
        .unwrap()
        .is_multiple_of(Decimal::new(3, -18).unwrap()));
    assert!(!Decimal::new(1, -18)
        .unwrap()
        .is_multiple_of(Decimal::new(3, 18).unwrap()));
    // Zero is a multiple of anything.
    assert!(Decimal::new(0, -18)
        .unwrap()
        .is_multiple_of(Decimal::new(i64::MAX, 18).unwrap()));
}
