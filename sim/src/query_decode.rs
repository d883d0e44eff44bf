//! Percent-decoding of a raw URL query string (`application/x-www-form-urlencoded` rules:
//! `%XX` → byte, `+` → space), used to check a REST signature made over the decoded query
//! (ccxt's practice; see `auth::verify_rest`).

/// The decoded query, or `None` when a `%` is not followed by two hex digits or the result is
/// not UTF-8. `&` and `=` separators are kept as they are.
pub fn decode(query: &str) -> Option<String> {
    let bytes = query.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'%' => {
                let hi = hex(*bytes.get(i + 1)?)?;
                let lo = hex(*bytes.get(i + 2)?)?;
                out.push(hi << 4 | lo);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn decodes_escapes_and_plus_keeps_separators() {
        assert_eq!(
            decode("clientOid=a%3Ab%3ac&symbol=BTCUSDT").as_deref(),
            Some("clientOid=a:b:c&symbol=BTCUSDT")
        );
        assert_eq!(decode("x=a+b").as_deref(), Some("x=a b"));
        assert_eq!(decode("").as_deref(), Some(""));
    }

    #[test]
    fn rejects_truncated_or_bad_escapes_and_non_utf8() {
        assert_eq!(decode("x=%"), None);
        assert_eq!(decode("x=%4"), None);
        assert_eq!(decode("x=%zz"), None);
        assert_eq!(decode("x=%ff"), None);
    }
}
