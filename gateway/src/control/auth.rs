//! The control surface's bearer token: read once at start (`BGW_CONTROL_TOKEN`), kept as its
//! SHA-256 digest, compared in constant time against `Authorization: Bearer <token>`.

use sha2::{Digest, Sha256};

/// The environment variable holding the control surface's token.
pub const TOKEN_ENV: &str = "BGW_CONTROL_TOKEN";

/// Why a control request is refused before anything is looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthRefusal {
    /// No token configured: the surface is off (HTTP 403).
    Disabled,
    /// No `Authorization: Bearer` header, or a wrong token (HTTP 401).
    Unauthorized,
}

impl AuthRefusal {
    /// The one-line error of the answer.
    pub fn text(self) -> &'static str {
        match self {
            AuthRefusal::Disabled => {
                "control surface disabled: set BGW_CONTROL_TOKEN in the gateway's environment"
            }
            AuthRefusal::Unauthorized => {
                "missing or wrong bearer token (Authorization: Bearer <token>)"
            }
        }
    }
}

/// The configured token (its digest), or none (the surface refuses everything with 403).
#[derive(Clone, Default)]
pub struct ControlAuth {
    digest: Option<[u8; 32]>,
}

impl std::fmt::Debug for ControlAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the token, nor its digest.
        f.debug_struct("ControlAuth")
            .field("enabled", &self.enabled())
            .finish()
    }
}

fn digest(s: &[u8]) -> [u8; 32] {
    Sha256::digest(s).into()
}

impl ControlAuth {
    /// From the token as configured: `None` or empty (after trimming whitespace) disables the
    /// surface.
    pub fn new(token: Option<&str>) -> ControlAuth {
        ControlAuth {
            digest: token
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(|t| digest(t.as_bytes())),
        }
    }

    /// True when a token is configured.
    pub fn enabled(&self) -> bool {
        self.digest.is_some()
    }

    /// Checks the value of a request's `Authorization` header (`None`: absent): it must be
    /// `Bearer <token>` (scheme case-insensitive). The tokens' SHA-256 digests are compared in
    /// constant time, so the time taken tells nothing of the token.
    ///
    /// Errors: [`AuthRefusal::Disabled`] when no token is configured (whatever the header),
    /// else [`AuthRefusal::Unauthorized`] for a missing, malformed or wrong one.
    pub fn check(&self, authorization: Option<&[u8]>) -> Result<(), AuthRefusal> {
        let Some(want) = &self.digest else {
            return Err(AuthRefusal::Disabled);
        };
        let given = authorization
            .and_then(|h| {
                let (scheme, rest) = h.split_at_checked(7)?;
                scheme.eq_ignore_ascii_case(b"bearer ").then_some(rest)
            })
            .ok_or(AuthRefusal::Unauthorized)?;
        let got = digest(given.trim_ascii());
        let diff = want
            .iter()
            .zip(got.iter())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b));
        if diff == 0 {
            Ok(())
        } else {
            Err(AuthRefusal::Unauthorized)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_token_disables_everything() {
        for t in [None, Some(""), Some("  ")] {
            let a = ControlAuth::new(t);
            assert!(!a.enabled());
            assert_eq!(a.check(None), Err(AuthRefusal::Disabled));
            assert_eq!(a.check(Some(b"Bearer ")), Err(AuthRefusal::Disabled));
            assert_eq!(a.check(Some(b"Bearer x")), Err(AuthRefusal::Disabled));
        }
    }

    #[test]
    fn bearer_token_must_match() {
        let a = ControlAuth::new(Some("s3cret"));
        assert!(a.enabled());
        assert_eq!(a.check(Some(b"Bearer s3cret")), Ok(()));
        assert_eq!(a.check(Some(b"bearer s3cret")), Ok(()));
        assert_eq!(a.check(Some(b"Bearer s3cret ")), Ok(()));
        for bad in [
            &b""[..],
            b"s3cret",
            b"Bearer",
            b"Bearer ",
            b"Bearer s3cre",
            b"Bearer s3cret2",
            b"Basic czNjcmV0",
            b"Bearer \xff\xfe",
        ] {
            assert_eq!(
                a.check(Some(bad)),
                Err(AuthRefusal::Unauthorized),
                "{bad:?}"
            );
        }
        assert_eq!(a.check(None), Err(AuthRefusal::Unauthorized));
        assert!(!format!("{a:?}").contains("s3cret"));
    }
}
