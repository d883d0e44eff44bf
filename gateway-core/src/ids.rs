//! Identifiers the gateway puts on the wire: Bitget `clientOid` and trade-op request `id`.
//!
//! `clientOid = base36(SessionID) ":" base36(root ClOrdID)`, lowercase, at most 27 characters
//! (13 + 1 + 13), so it satisfies both documented patterns (`^[\.A-Z\:/a-z0-9_-]{1,32}$` on the
//! REST place-order page and `^[0-9A-Za-z_:#\-+\s]{1,32}$` on the best-practices page; reference
//! §6.3). The root ClOrdID is the ClOrdID of the NewOrderSingle that created the order; a
//! replace keeps the order's clientOid (UTA modify has no new clientOid). A push is routed to its
//! session and order by parsing its clientOid, without any lookup table.
//!
//! The request `id` of a trade op is a gateway-wide counter in base 10: replies carry only the
//! `id` (reference §5.1), and the tracker maps it to the request.

/// A clientOid held on the stack (no allocation): at most 32 ASCII bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ClientOid {
    buf: [u8; 32],
    len: u8,
}

const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";

fn push_base36(buf: &mut [u8; 32], len: &mut usize, mut v: u64) {
    let mut tmp = [0u8; 13];
    let mut n = 0;
    loop {
        tmp[n] = DIGITS[(v % 36) as usize];
        n += 1;
        v /= 36;
        if v == 0 {
            break;
        }
    }
    for i in (0..n).rev() {
        buf[*len] = tmp[i];
        *len += 1;
    }
}

fn parse_base36(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 13 {
        return None;
    }
    let mut v: u64 = 0;
    for &b in s {
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'z' => b - b'a' + 10,
            _ => return None,
        };
        v = v.checked_mul(36)?.checked_add(u64::from(d))?;
    }
    Some(v)
}

impl ClientOid {
    /// The clientOid of order `root_cl_ord_id` of session `session_id`.
    pub fn new(session_id: u64, root_cl_ord_id: u64) -> Self {
        let mut buf = [0u8; 32];
        let mut len = 0;
        push_base36(&mut buf, &mut len, session_id);
        buf[len] = b':';
        len += 1;
        push_base36(&mut buf, &mut len, root_cl_ord_id);
        ClientOid {
            buf,
            len: len as u8,
        }
    }

    /// The text form (ASCII).
    pub fn as_str(&self) -> &str {
        // Only ASCII digits, lowercase letters and ':' are ever written.
        std::str::from_utf8(&self.buf[..usize::from(self.len)]).unwrap_or("")
    }

    /// Parses a clientOid produced by [`ClientOid::new`] back into `(SessionID, root ClOrdID)`;
    /// `None` for any other string (orders placed outside this gateway).
    pub fn parse(s: &str) -> Option<(u64, u64)> {
        let b = s.as_bytes();
        let colon = b.iter().position(|&c| c == b':')?;
        let session = parse_base36(&b[..colon])?;
        let root = parse_base36(&b[colon + 1..])?;
        Some((session, root))
    }
}

impl std::fmt::Debug for ClientOid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ClientOid({})", self.as_str())
    }
}

/// Formats a request id (base 10) into `buf` and returns it as text.
pub fn format_request_id(id: u64, buf: &mut itoa::Buffer) -> &str {
    buf.format(id)
}

/// Parses a request id written by [`format_request_id`]; `None` for anything else.
pub fn parse_request_id(s: &str) -> Option<u64> {
    if s.is_empty() || s.len() > 20 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_fits_the_documented_patterns() {
        for (s, c) in [
            (0, 0),
            (1, 1),
            (u64::MAX, u64::MAX),
            (42, 1_000_000_007),
            (7, 35),
            (36, 36),
        ] {
            let oid = ClientOid::new(s, c);
            let text = oid.as_str();
            assert!(text.len() <= 27 && !text.is_empty(), "{text}");
            assert!(text
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b':'));
            assert_eq!(ClientOid::parse(text), Some((s, c)));
        }
        assert_eq!(ClientOid::new(36, 35).as_str(), "10:z");
    }

    #[test]
    fn foreign_client_oids_are_not_ours() {
        for s in [
            "",
            ":",
            "abc",
            "1:",
            ":1",
            "A:1",
            "1:2:3",
            "TQACZE92YDQAAQAAAAAA",
            "zzzzzzzzzzzzzz:1",
        ] {
            assert_eq!(ClientOid::parse(s), None, "{s}");
        }
    }

    #[test]
    fn request_ids() {
        let mut b = itoa::Buffer::new();
        assert_eq!(format_request_id(1234, &mut b), "1234");
        assert_eq!(parse_request_id("1234"), Some(1234));
        assert_eq!(parse_request_id("P:3wAC"), None);
        assert_eq!(parse_request_id(""), None);
    }
}
