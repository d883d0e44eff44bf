//! Exact decimals for prices and quantities: `value = mantissa × 10^exponent`.
//!
//! The same shape as the SBE `decimal` composite of the strategy link (`int64` mantissa, `int8`
//! exponent; see `codec/schema/bgw.xml`) and a lossless image of Bitget's decimal strings
//! (`"117066.1"`, `"0.0002"`, `"-0.00819462"`). Never floating point.
//!
//! Ranges: the mantissa is any `i64`; the exponent is kept within
//! [`MIN_EXPONENT`]`..=`[`MAX_EXPONENT`] (−18..=18), so that every rescaling fits an `i128`.
//! Two decimals with different scales but the same value (`"1.0"` and `"1"`) compare and hash
//! equal; [`Decimal::normalized`] strips trailing zeros.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

/// Smallest exponent a [`Decimal`] may carry (18 fractional digits).
pub const MIN_EXPONENT: i8 = -18;
/// Largest exponent a [`Decimal`] may carry.
pub const MAX_EXPONENT: i8 = 18;

/// Powers of ten that fit an `i128` (10^0 ..= 10^38).
const POW10: [i128; 39] = {
    let mut t = [1i128; 39];
    let mut i = 1;
    while i < 39 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// 10^n as `i128`, `None` past 10^38.
#[inline]
fn pow10(n: u32) -> Option<i128> {
    POW10.get(n as usize).copied()
}

/// Why a decimal string or value was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DecimalError {
    /// The input was empty (Bitget sends `""` for "not set"; callers decide what that means).
    #[error("empty decimal")]
    Empty,
    /// A byte other than an optional leading sign, digits and one `.`.
    #[error("invalid character at byte {0}")]
    InvalidChar(usize),
    /// No digit at all (`"-"`, `"."`).
    #[error("no digits")]
    NoDigits,
    /// More significant digits than an `i64` mantissa holds, or an arithmetic overflow.
    #[error("decimal overflow")]
    Overflow,
    /// More than 18 fractional digits or an exponent beyond ±18.
    #[error("exponent out of range")]
    ExponentOutOfRange,
}

/// How [`Decimal::round_to`] and [`Decimal::checked_div`] round a value that does not fit the
/// requested scale.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounding {
    /// Toward zero (truncate).
    Down,
    /// Half away from zero.
    HalfUp,
    /// Half to even (banker's rounding).
    HalfEven,
}

/// An exact decimal `mantissa × 10^exponent` (see the module docs for ranges).
#[derive(Clone, Copy, Default)]
pub struct Decimal {
    mantissa: i64,
    exponent: i8,
}

impl Decimal {
    /// Zero (`0 × 10^0`).
    pub const ZERO: Decimal = Decimal {
        mantissa: 0,
        exponent: 0,
    };
    /// One (`1 × 10^0`).
    pub const ONE: Decimal = Decimal {
        mantissa: 1,
        exponent: 0,
    };

    /// `mantissa × 10^exponent`. Errors: [`DecimalError::ExponentOutOfRange`] outside −18..=18.
    pub const fn new(mantissa: i64, exponent: i8) -> Result<Decimal, DecimalError> {
        if exponent < MIN_EXPONENT || exponent > MAX_EXPONENT {
            return Err(DecimalError::ExponentOutOfRange);
        }
        Ok(Decimal { mantissa, exponent })
    }

    /// The integer mantissa.
    #[inline]
    pub const fn mantissa(self) -> i64 {
        self.mantissa
    }

    /// The power-of-ten exponent (negative: number of fractional digits).
    #[inline]
    pub const fn exponent(self) -> i8 {
        self.exponent
    }

    /// True for any zero (`0`, `0.00`).
    #[inline]
    pub const fn is_zero(self) -> bool {
        self.mantissa == 0
    }

    /// True for values below zero.
    #[inline]
    pub const fn is_negative(self) -> bool {
        self.mantissa < 0
    }

    /// True for values above zero.
    #[inline]
    pub const fn is_positive(self) -> bool {
        self.mantissa > 0
    }

    /// Parses a plain decimal string: optional sign, digits, at most one `.` (`"117066.1"`,
    /// `"-0.00819462"`, `"5"`, `".5"`, `"5."`). No exponent notation, no whitespace.
    ///
    /// The scale of the input is kept (`"0.10"` has exponent −2) unless the mantissa would not fit
    /// an `i64`, in which case trailing zeros are dropped. Errors: see [`DecimalError`].
    pub fn parse(s: &[u8]) -> Result<Decimal, DecimalError> {
        if s.is_empty() {
            return Err(DecimalError::Empty);
        }
        let (negative, digits) = match s[0] {
            b'-' => (true, &s[1..]),
            b'+' => (false, &s[1..]),
            _ => (false, s),
        };
        let offset = s.len() - digits.len();
        let mut mantissa: i128 = 0;
        let mut frac_digits: i32 = 0;
        let mut seen_dot = false;
        let mut seen_digit = false;
        // Zeros after the last non-zero digit that did not fit are counted, not accumulated.
        let mut dropped_int_zeros: i32 = 0;
        for (i, &b) in digits.iter().enumerate() {
            match b {
                b'0'..=b'9' => {
                    seen_digit = true;
                    let d = i128::from(b - b'0');
                    if seen_dot {
                        frac_digits += 1;
                    }
                    match mantissa.checked_mul(10).and_then(|m| m.checked_add(d)) {
                        Some(m) => mantissa = m,
                        None => {
                            // Too many significant digits: only trailing zeros may be dropped.
                            if d != 0 {
                                return Err(DecimalError::Overflow);
                            }
                            if seen_dot {
                                frac_digits -= 1;
                            } else {
                                dropped_int_zeros += 1;
                            }
                        }
                    }
                }
                b'.' if !seen_dot => seen_dot = true,
                _ => return Err(DecimalError::InvalidChar(offset + i)),
            }
        }
        if !seen_digit {
            return Err(DecimalError::NoDigits);
        }
        if negative {
            mantissa = -mantissa;
        }
        Decimal::fit(mantissa, dropped_int_zeros - frac_digits)
    }

    /// Builds a decimal from an `i128` mantissa and any exponent, dropping trailing zeros (and,
    /// for exponents below −18, only zeros) until it fits. Errors when digits would be lost.
    fn fit(mut mantissa: i128, mut exponent: i32) -> Result<Decimal, DecimalError> {
        if mantissa == 0 {
            return Ok(Decimal {
                mantissa: 0,
                exponent: exponent.clamp(i32::from(MIN_EXPONENT), 0) as i8,
            });
        }
        while exponent < i32::from(MIN_EXPONENT)
            || mantissa > i128::from(i64::MAX)
            || mantissa < i128::from(i64::MIN)
        {
            if mantissa % 10 != 0 {
                return Err(if exponent < i32::from(MIN_EXPONENT) {
                    DecimalError::ExponentOutOfRange
                } else {
                    DecimalError::Overflow
                });
            }
            mantissa /= 10;
            exponent += 1;
        }
        // A large positive exponent may be brought back into range by scaling the mantissa up.
        while exponent > i32::from(MAX_EXPONENT) {
            mantissa = mantissa.checked_mul(10).ok_or(DecimalError::Overflow)?;
            if mantissa > i128::from(i64::MAX) || mantissa < i128::from(i64::MIN) {
                return Err(DecimalError::Overflow);
            }
            exponent -= 1;
        }
        Ok(Decimal {
            mantissa: mantissa as i64,
            exponent: exponent as i8,
        })
    }

    /// The same value with trailing zeros removed from the mantissa (`0.10` → `0.1`, `100` →
    /// `1 × 10^2`, any zero → `0`).
    pub fn normalized(self) -> Decimal {
        if self.mantissa == 0 {
            return Decimal::ZERO;
        }
        let (mut m, mut e) = (self.mantissa, self.exponent);
        while m % 10 == 0 && e < MAX_EXPONENT {
            m /= 10;
            e += 1;
        }
        Decimal {
            mantissa: m,
            exponent: e,
        }
    }

    /// Both values as `i128` mantissas at the smaller of the two exponents; `None` if a scaled
    /// mantissa overflows `i128` (only possible for exponent gaps above 19).
    fn aligned(self, other: Decimal) -> Option<(i128, i128, i32)> {
        let e = self.exponent.min(other.exponent);
        let a = i128::from(self.mantissa).checked_mul(pow10((self.exponent - e) as u32)?)?;
        let b = i128::from(other.mantissa).checked_mul(pow10((other.exponent - e) as u32)?)?;
        Some((a, b, i32::from(e)))
    }

    /// `self + other`, exact; `None` on overflow.
    pub fn checked_add(self, other: Decimal) -> Option<Decimal> {
        let (a, b, e) = self.aligned(other)?;
        Decimal::fit(a.checked_add(b)?, e).ok()
    }

    /// `self − other`, exact; `None` on overflow.
    pub fn checked_sub(self, other: Decimal) -> Option<Decimal> {
        let (a, b, e) = self.aligned(other)?;
        Decimal::fit(a.checked_sub(b)?, e).ok()
    }

    /// `self × other`, exact; `None` when the product needs more than 18 fractional digits or
    /// an `i64` mantissa cannot hold it.
    pub fn checked_mul(self, other: Decimal) -> Option<Decimal> {
        let m = i128::from(self.mantissa) * i128::from(other.mantissa);
        Decimal::fit(m, i32::from(self.exponent) + i32::from(other.exponent)).ok()
    }

    /// `self ÷ other` rounded to `scale` fractional digits (0..=18) with `rounding`; `None` on
    /// division by zero, an out-of-range scale, or overflow. Used for average prices
    /// (`cumExecValue ÷ cumExecQty`). The result carries exponent `−scale` unless its mantissa
    /// would not fit an `i64`, in which case trailing zeros are dropped (as in parsing).
    pub fn checked_div(self, other: Decimal, scale: u8, rounding: Rounding) -> Option<Decimal> {
        if other.mantissa == 0 || scale > 18 {
            return None;
        }
        // q = a.m × 10^(a.e − b.e + scale) ÷ b.m, carried out in i128.
        let shift = i32::from(self.exponent) - i32::from(other.exponent) + i32::from(scale);
        let num = i128::from(self.mantissa);
        let den = i128::from(other.mantissa);
        if shift >= 0 {
            match pow10(shift as u32).and_then(|p| num.checked_mul(p)) {
                Some(num) => Decimal::fit(div_round(num, den, rounding)?, -i32::from(scale)).ok(),
                None => Decimal::long_div(num, den, shift as u32, scale, rounding),
            }
        } else {
            match pow10((-shift) as u32).and_then(|p| den.checked_mul(p)) {
                Some(den) => Decimal::fit(div_round(num, den, rounding)?, -i32::from(scale)).ok(),
                // |den| > i128::MAX while |num| < 2^63: the quotient rounds to zero in every mode.
                None => Decimal::fit(0, -i32::from(scale)).ok(),
            }
        }
    }

    /// `num × 10^shift ÷ den` at exponent `−scale`, one decimal digit at a time, for when
    /// `num × 10^shift` overflows `i128` but the quotient may still fit (large mantissas
    /// divided at a fine scale). An exact quotient stops early at a coarser exponent.
    fn long_div(
        num: i128,
        den: i128,
        shift: u32,
        scale: u8,
        rounding: Rounding,
    ) -> Option<Decimal> {
        let mut q = num / den;
        let mut r = num % den;
        for done in 0..shift {
            if r == 0 {
                return Decimal::fit(q, -i32::from(scale) + (shift - done) as i32).ok();
            }
            // |r| < |den| < 2^63, so r × 10 cannot overflow.
            q = q.checked_mul(10)?.checked_add(r * 10 / den)?;
            r = r * 10 % den;
        }
        Decimal::fit(round_qr(q, r, den, rounding)?, -i32::from(scale)).ok()
    }

    /// The value rounded to `exponent` (for example −2 for cents) with `rounding`; the result
    /// carries exactly that exponent unless its mantissa would overflow (`None`).
    pub fn round_to(self, exponent: i8, rounding: Rounding) -> Option<Decimal> {
        if !(MIN_EXPONENT..=MAX_EXPONENT).contains(&exponent) {
            return None;
        }
        let m = i128::from(self.mantissa);
        let q = if self.exponent >= exponent {
            m.checked_mul(pow10((self.exponent - exponent) as u32)?)?
        } else {
            div_round(m, pow10((exponent - self.exponent) as u32)?, rounding)?
        };
        Some(Decimal {
            mantissa: i64::try_from(q).ok()?,
            exponent,
        })
    }

    /// The mantissa this value has at `exponent`, only if exact (`1.25` at −2 → `125`; at −1 →
    /// `None`). Used to turn prices and quantities into integer ticks and lots.
    pub fn to_scaled(self, exponent: i8) -> Option<i64> {
        let m = i128::from(self.mantissa);
        let v = if self.exponent >= exponent {
            m.checked_mul(pow10((self.exponent - exponent) as u32)?)?
        } else {
            let p = pow10((exponent - self.exponent) as u32)?;
            if m % p != 0 {
                return None;
            }
            m / p
        };
        i64::try_from(v).ok()
    }

    /// True when `self` is an exact integer multiple of `step` (tick and lot checks). A zero step
    /// accepts everything.
    pub fn is_multiple_of(self, step: Decimal) -> bool {
        if step.mantissa == 0 {
            return true;
        }
        if self.mantissa == 0 {
            return true;
        }
        match self.aligned(step) {
            Some((a, b, _)) => a % b == 0,
            // Exponent gap above 19. If `self` has the larger exponent, reduce modulo the step
            // mantissa: (m × 10^gap) mod s = ((m mod s) × (10^gap mod s)) mod s, all below 2^126.
            None if self.exponent > step.exponent => {
                let s = i128::from(step.mantissa);
                match pow10((self.exponent - step.exponent) as u32) {
                    Some(p) => (i128::from(self.mantissa) % s) * (p % s) % s == 0,
                    None => false,
                }
            }
            // The step scaled to `self`'s exponent exceeds i128, so |step| > |self| > 0.
            None => false,
        }
    }

    /// Absolute value; `None` for `i64::MIN` mantissas.
    pub fn checked_abs(self) -> Option<Decimal> {
        Some(Decimal {
            mantissa: self.mantissa.checked_abs()?,
            exponent: self.exponent,
        })
    }

    /// Negation; `None` for `i64::MIN` mantissas.
    pub fn checked_neg(self) -> Option<Decimal> {
        Some(Decimal {
            mantissa: self.mantissa.checked_neg()?,
            exponent: self.exponent,
        })
    }

    /// Appends the plain decimal string (no exponent notation, scale kept: `0.20` stays
    /// `"0.20"`) to `out`. No allocation beyond `out`'s growth. This is what the JSON writer sends.
    pub fn write_to(self, out: &mut Vec<u8>) {
        let mut buf = [0u8; 48];
        let n = self.format_into(&mut buf);
        out.extend_from_slice(&buf[..n]);
    }

    /// Formats into `buf` (48 bytes always suffice) and returns the length written.
    fn format_into(self, buf: &mut [u8; 48]) -> usize {
        let mut len = 0;
        if self.mantissa < 0 {
            buf[0] = b'-';
            len = 1;
        }
        let abs = self.mantissa.unsigned_abs();
        let mut digits = itoa::Buffer::new();
        let d = digits.format(abs).as_bytes();
        if self.exponent >= 0 {
            buf[len..len + d.len()].copy_from_slice(d);
            len += d.len();
            if abs != 0 {
                for _ in 0..self.exponent {
                    buf[len] = b'0';
                    len += 1;
                }
            }
        } else {
            let frac = (-i32::from(self.exponent)) as usize;
            if d.len() > frac {
                let int_len = d.len() - frac;
                buf[len..len + int_len].copy_from_slice(&d[..int_len]);
                len += int_len;
                buf[len] = b'.';
                len += 1;
                buf[len..len + frac].copy_from_slice(&d[int_len..]);
                len += frac;
            } else {
                buf[len] = b'0';
                buf[len + 1] = b'.';
                len += 2;
                for _ in 0..frac - d.len() {
                    buf[len] = b'0';
                    len += 1;
                }
                buf[len..len + d.len()].copy_from_slice(d);
                len += d.len();
            }
        }
        len
    }
}

/// `num ÷ den` rounded as asked (den ≠ 0); `None` only if the rounded quotient overflows.
fn div_round(num: i128, den: i128, rounding: Rounding) -> Option<i128> {
    round_qr(num / den, num % den, den, rounding)
}

/// Rounds the truncated quotient `q` with remainder `r` (sign of the dividend) of a division by
/// `den`.
fn round_qr(q: i128, r: i128, den: i128, rounding: Rounding) -> Option<i128> {
    if r == 0 {
        return Some(q);
    }
    let away = if (r < 0) != (den < 0) { -1 } else { 1 };
    let twice = (r.unsigned_abs()).saturating_mul(2);
    let den_abs = den.unsigned_abs();
    let up = match rounding {
        Rounding::Down => false,
        Rounding::HalfUp => twice >= den_abs,
        Rounding::HalfEven => twice > den_abs || (twice == den_abs && q % 2 != 0),
    };
    if up {
        q.checked_add(away)
    } else {
        Some(q)
    }
}

impl PartialEq for Decimal {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Decimal {}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Self) -> Ordering {
        match self.aligned(*other) {
            Some((a, b, _)) => a.cmp(&b),
            // Only exponent gaps above 19 overflow; the side that was scaled up (the one with
            // the larger exponent and a non-zero mantissa) has the larger magnitude.
            None => {
                let (big, sign) = if self.exponent > other.exponent {
                    (Ordering::Greater, self.mantissa.signum())
                } else {
                    (Ordering::Less, other.mantissa.signum())
                };
                if sign >= 0 {
                    big
                } else {
                    big.reverse()
                }
            }
        }
    }
}

impl Hash for Decimal {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let n = self.normalized();
        n.mantissa.hash(state);
        n.exponent.hash(state);
    }
}

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; 48];
        let n = self.format_into(&mut buf);
        // Only ASCII digits, '-' and '.' were written.
        f.write_str(std::str::from_utf8(&buf[..n]).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Decimal({self})")
    }
}

impl FromStr for Decimal {
    type Err = DecimalError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Decimal::parse(s.as_bytes())
    }
}

impl From<i64> for Decimal {
    fn from(v: i64) -> Self {
        Decimal {
            mantissa: v,
            exponent: 0,
        }
    }
}

/// Compact formats (postcard, the replay recordings): the tuple `(mantissa i64, exponent i8)`.
/// Human-readable formats (JSON, TOML): the decimal string (`"117066.1"`), scale kept.
impl serde::Serialize for Decimal {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            s.collect_str(self)
        } else {
            (self.mantissa, self.exponent).serialize(s)
        }
    }
}

/// The inverse of the `Serialize` impl; an exponent outside −18..=18 or a malformed string is
/// an error.
impl<'de> serde::Deserialize<'de> for Decimal {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        if d.is_human_readable() {
            let s = std::borrow::Cow::<'de, str>::deserialize(d)?;
            s.parse().map_err(D::Error::custom)
        } else {
            let (mantissa, exponent) = <(i64, i8)>::deserialize(d)?;
            Decimal::new(mantissa, exponent).map_err(D::Error::custom)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    #[test]
    fn parses_and_keeps_scale() {
        let x = d("117066.1");
        assert_eq!((x.mantissa(), x.exponent()), (1170661, -1));
        let x = d("0.00819462");
        assert_eq!((x.mantissa(), x.exponent()), (819462, -8));
        let x = d("-0.10");
        assert_eq!((x.mantissa(), x.exponent()), (-10, -2));
        assert_eq!(d(".5"), d("0.5"));
        assert_eq!(d("5."), d("5"));
        assert_eq!(d("+7"), d("7"));
        assert_eq!(d("-0"), Decimal::ZERO);
    }

    #[test]
    fn refuses_bad_input() {
        assert_eq!(Decimal::parse(b""), Err(DecimalError::Empty));
        assert_eq!(Decimal::parse(b"-"), Err(DecimalError::NoDigits));
        assert_eq!(Decimal::parse(b"."), Err(DecimalError::NoDigits));
        assert_eq!(Decimal::parse(b"1.2.3"), Err(DecimalError::InvalidChar(3)));
        assert_eq!(Decimal::parse(b"1e5"), Err(DecimalError::InvalidChar(1)));
        assert_eq!(Decimal::parse(b" 1"), Err(DecimalError::InvalidChar(0)));
        assert_eq!(Decimal::parse(b"NaN"), Err(DecimalError::InvalidChar(0)));
        assert_eq!(
            Decimal::parse(b"99999999999999999999"),
            Err(DecimalError::Overflow)
        );
        assert_eq!(
            Decimal::parse(b"0.0000000000000000001"),
            Err(DecimalError::ExponentOutOfRange)
        );
    }

    #[test]
    fn trailing_zeros_beyond_i64_are_folded_into_the_exponent() {
        let x = d("100000000000000000000");
        assert_eq!(
            x,
            Decimal::new(1, 20 - 2)
                .unwrap()
                .checked_mul(d("100"))
                .unwrap()
        );
        assert_eq!(x.to_string(), "100000000000000000000");
        assert_eq!(d("1.000000000000000000000"), Decimal::ONE);
    }

    #[test]
    fn formats_plainly() {
        for s in [
            "0",
            "0.0002",
            "117066.1",
            "-0.00819462",
            "0.20",
            "5",
            "-12.5",
            "1000",
        ] {
            assert_eq!(d(s).to_string(), s);
        }
        assert_eq!(Decimal::new(5, 3).unwrap().to_string(), "5000");
        let mut v = Vec::new();
        d("-0.05").write_to(&mut v);
        assert_eq!(v, b"-0.05");
    }

    #[test]
    fn compares_by_value() {
        assert_eq!(d("1.0"), d("1"));
        assert!(d("0.1") < d("0.11"));
        assert!(d("-1") < d("-0.5"));
        assert!(Decimal::new(1, 18).unwrap() > Decimal::new(i64::MAX, -18).unwrap());
        assert!(Decimal::new(-1, 18).unwrap() < Decimal::new(i64::MIN, -18).unwrap());
        use std::collections::hash_map::DefaultHasher;
        let h = |x: Decimal| {
            let mut s = DefaultHasher::new();
            x.hash(&mut s);
            s.finish()
        };
        assert_eq!(h(d("2.50")), h(d("2.5")));
    }

    #[test]
    fn arithmetic() {
        assert_eq!(d("0.1").checked_add(d("0.2")).unwrap(), d("0.3"));
        assert_eq!(d("1").checked_sub(d("0.0001")).unwrap(), d("0.9999"));
        assert_eq!(
            d("117066.1").checked_mul(d("0.0002")).unwrap(),
            d("23.41322")
        );
        assert_eq!(
            d("83.1315")
                .checked_div(d("0.001"), 8, Rounding::HalfEven)
                .unwrap(),
            d("83131.5")
        );
        assert_eq!(
            d("1").checked_div(d("3"), 4, Rounding::HalfUp).unwrap(),
            d("0.3333")
        );
        assert_eq!(
            d("2").checked_div(d("3"), 4, Rounding::HalfUp).unwrap(),
            d("0.6667")
        );
        assert_eq!(
            d("-2").checked_div(d("3"), 4, Rounding::HalfUp).unwrap(),
            d("-0.6667")
        );
        assert_eq!(
            d("0.125").round_to(-2, Rounding::HalfEven).unwrap(),
            d("0.12")
        );
        assert_eq!(
            d("0.135").round_to(-2, Rounding::HalfEven).unwrap(),
            d("0.14")
        );
        assert_eq!(d("1").checked_div(Decimal::ZERO, 2, Rounding::Down), None);
        assert_eq!(Decimal::from(i64::MAX).checked_add(Decimal::ONE), None);
    }

    #[test]
    fn ticks_and_lots() {
        assert!(d("117066.1").is_multiple_of(d("0.1")));
        assert!(!d("117066.15").is_multiple_of(d("0.1")));
        assert!(d("0.0002").is_multiple_of(d("0.0001")));
        assert!(d("5").is_multiple_of(d("0.5")));
        assert_eq!(d("1.25").to_scaled(-2), Some(125));
        assert_eq!(d("1.25").to_scaled(-1), None);
        assert_eq!(d("12").to_scaled(1), None);
        assert_eq!(d("120").to_scaled(1), Some(12));
    }
}
