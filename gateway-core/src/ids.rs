//! Identifiers the gateway puts on the wire: Bitget `clientOid` and trade-op request `id`.
//!
//! `clientOid = base36(SessionID) ":" base36(root ClOrdID)` in a session's first epoch (0), and
//! `base36(SessionID) ":" base36(epoch) ":" base36(root ClOrdID)` in a later one (after a session
//! rollover the strategy may use a ClOrdID again, so the epoch keeps the clientOid unique), all
//! lowercase, at most 32 characters (13 + 1 + 4 + 1 + 13: the epoch is below
//! [`EPOCH_LIMIT`] = 36⁴), so it satisfies both documented patterns
//! (`^[\.A-Z\:/a-z0-9_-]{1,32}$` on the REST place-order page and `^[0-9A-Za-z_:#\-+\s]{1,32}$` on
//! the best-practices page; reference §6.3). The root ClOrdID is the ClOrdID of the
//! NewOrderSingle that created the order; a replace keeps the order's clientOid (UTA modify has
//! no new clientOid). A push is routed to its session and order by parsing its clientOid,
//! without any lookup table. Epoch 0 keeps the two-part form, so the orders of journals written
//! before epochs existed are still recognised.
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

/// Session epochs a clientOid can name: 36⁴ (4 base-36 digits keep it within 32 characters); a
/// session's epoch numbers wrap below it (a daily rollover reaches it after 4 600 years).
pub const EPOCH_LIMIT: u32 = 36 * 36 * 36 * 36;

impl ClientOid {
    /// The clientOid of order `root_cl_ord_id` of session `session_id` in its first epoch (0).
    pub fn new(session_id: u64, root_cl_ord_id: u64) -> Self {
        ClientOid::in_epoch(session_id, 0, root_cl_ord_id)
    }

    /// The clientOid of order `root_cl_ord_id` of session `session_id` placed in epoch `epoch`
    /// (taken modulo [`EPOCH_LIMIT`]).
    pub fn in_epoch(session_id: u64, epoch: u32, root_cl_ord_id: u64) -> Self {
        let mut buf = [0u8; 32];
        let mut len = 0;
        push_base36(&mut buf, &mut len, session_id);
        buf[len] = b':';
        len += 1;
        let epoch = epoch % EPOCH_LIMIT;
        if epoch != 0 {
            push_base36(&mut buf, &mut len, u64::from(epoch));
            buf[len] = b':';
            len += 1;
        }
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

    /// Parses a clientOid produced by [`ClientOid::new`] or [`ClientOid::in_epoch`] back into
    /// `(SessionID, root ClOrdID)` (see [`ClientOid::parse_epoch`] for its epoch); `None` for
    /// any other string (orders placed outside this gateway).
    pub fn parse(s: &str) -> Option<(u64, u64)> {
        ClientOid::parse_epoch(s).map(|(session, _, root)| (session, root))
    }

    /// Parses a clientOid back into `(SessionID, epoch, root ClOrdID)`; `None` for any string
    /// [`ClientOid::in_epoch`] does not write (an explicit epoch 0 or one of 5 digits included).
    pub fn parse_epoch(s: &str) -> Option<(u64, u32, u64)> {
        let mut parts = s.as_bytes().split(|&c| c == b':');
        let session = parse_base36(parts.next()?)?;
        let second = parts.next()?;
        let (epoch, root) = match parts.next() {
            None => (0, parse_base36(second)?),
            Some(third) => {
                let epoch = u32::try_from(parse_base36(second)?)
                    .ok()
                    .filter(|e| *e != 0 && *e < EPOCH_LIMIT)?;
                (epoch, parse_base36(third)?)
            }
        };
        if parts.next().is_some() {
            return None;
        }
        Some((session, epoch, root))
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
    fn epochs_fold_into_the_client_oid_within_32_characters() {
        let all = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b':';
        for (s, e, c) in [
            (u64::MAX, EPOCH_LIMIT - 1, u64::MAX),
            (1, 1, 1),
            (16, 365, 1_000_000),
            (3, 0, 9),
        ] {
            let oid = ClientOid::in_epoch(s, e, c);
            let text = oid.as_str();
            assert!(text.len() <= 32 && text.bytes().all(all), "{text}");
            assert_eq!(ClientOid::parse_epoch(text), Some((s, e, c)));
            assert_eq!(ClientOid::parse(text), Some((s, c)));
        }
        assert_eq!(
            ClientOid::in_epoch(u64::MAX, EPOCH_LIMIT - 1, u64::MAX)
                .as_str()
                .len(),
            32
        );
        // Epoch 0 is the two-part form of journals written before epochs; epochs wrap.
        assert_eq!(ClientOid::in_epoch(36, 0, 35), ClientOid::new(36, 35));
        assert_eq!(ClientOid::in_epoch(1, EPOCH_LIMIT + 2, 3).as_str(), "1:2:3");
        for bad in ["1:0:3", "1:10000:3", "1:2:3:4", "1::3"] {
            assert_eq!(ClientOid::parse_epoch(bad), None, "{bad}");
        }
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
            "1:2:3:4",
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
