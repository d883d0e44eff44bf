//! The Bitget result code (`code` of control frames and trade replies), below both the raw
//! shapes ([`super::raw`]) and the parser ([`super::parse`]) that read it.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, Visitor};

/// A Bitget result code (reference §1.3, §5.2, §6.1): `0` is success. Sent as a number on
/// control frames and as a string on trade replies; `0`, `"0"`, `"00000"` and `""` all mean
/// success. A non-numeric string, a negative number or a value above `u32::MAX` is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Code(pub u32);

impl Code {
    /// Success.
    pub const OK: Code = Code(0);

    /// True for success (`0`).
    #[inline]
    pub const fn is_ok(self) -> bool {
        self.0 == 0
    }

    /// Parses the string form: `""` → 0, otherwise 1 to 10 ASCII digits that fit a `u32`.
    pub fn parse(s: &[u8]) -> Option<Code> {
        if s.is_empty() {
            return Some(Code(0));
        }
        if s.len() > 10 || !s.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let v = s
            .iter()
            .fold(0u64, |acc, &b| acc * 10 + u64::from(b - b'0'));
        u32::try_from(v).ok().map(Code)
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl<'de> Deserialize<'de> for Code {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Code;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a numeric code as number or string")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Code, E> {
                u32::try_from(v)
                    .map(Code)
                    .map_err(|_| E::custom("code out of range"))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Code, E> {
                u32::try_from(v)
                    .map(Code)
                    .map_err(|_| E::custom("code out of range"))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Code, E> {
                Code::parse(v.as_bytes()).ok_or_else(|| E::custom("code is not numeric"))
            }
        }
        d.deserialize_any(V)
    }
}
