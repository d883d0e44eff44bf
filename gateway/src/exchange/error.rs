//! Errors of the exchange link, by cause.

/// Why an exchange operation (WebSocket connect/login/subscribe, REST call) failed.
///
/// Variants are chosen by cause, never by matching message text: connectivity
/// ([`Connect`](Self::Connect), [`Tls`](Self::Tls), [`Closed`](Self::Closed),
/// [`Timeout`](Self::Timeout)), protocol violations by the peer ([`Protocol`](Self::Protocol)),
/// and refusals by the exchange ([`LoginRejected`](Self::LoginRejected),
/// [`SubscribeRejected`](Self::SubscribeRejected), [`Rejected`](Self::Rejected)).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExchangeError {
    /// The TCP connection or HTTP exchange could not be set up or failed mid-way (I/O error,
    /// refused connection, bad URL, HTTP upgrade failure).
    #[error("connect failed: {0}")]
    Connect(String),
    /// TLS setup or handshake failed (untrusted certificate, bad CA PEM, protocol mismatch).
    #[error("TLS error: {0}")]
    Tls(String),
    /// The peer sent something that violates the expected protocol (malformed JSON, unexpected
    /// frame, unparsable field).
    #[error("protocol error: {0}")]
    Protocol(String),
    /// The exchange refused the WebSocket login (`{"event":"error","code":30005,...}`; reference
    /// §1.4 lists the codes).
    #[error("login rejected: code {code}: {msg}")]
    LoginRejected {
        /// Bitget error code (e.g. 30005 login failed, 30015 invalid signature).
        code: u32,
        /// The exchange's message text.
        msg: String,
    },
    /// The exchange refused a subscription (`event:"error"` while waiting for the ack).
    #[error("subscribe rejected: code {code}: {msg}")]
    SubscribeRejected {
        /// Bitget error code (e.g. 30001 channel does not exist).
        code: u32,
        /// The exchange's message text.
        msg: String,
    },
    /// A REST call returned a non-success envelope `code` (reference §6.1).
    #[error("request rejected: code {code}: {msg} (HTTP {http_status})")]
    Rejected {
        /// Bitget error code (`"25204"` → 25204).
        code: u32,
        /// The exchange's message text.
        msg: String,
        /// HTTP status of the response.
        http_status: u16,
    },
    /// No answer within the deadline; `what` names the step (e.g. `"login reply"`).
    #[error("timed out waiting for {0}")]
    Timeout(&'static str),
    /// The peer closed the connection (or it was already closed).
    #[error("connection closed")]
    Closed,
}

impl From<tungstenite::Error> for ExchangeError {
    fn from(e: tungstenite::Error) -> Self {
        use tungstenite::Error as E;
        match e {
            E::ConnectionClosed | E::AlreadyClosed => ExchangeError::Closed,
            E::Io(io) => {
                if chain_has_rustls_error(&io) {
                    ExchangeError::Tls(io.to_string())
                } else {
                    ExchangeError::Connect(io.to_string())
                }
            }
            E::Tls(t) => ExchangeError::Tls(t.to_string()),
            E::Url(u) => ExchangeError::Connect(format!("bad URL: {u}")),
            E::Http(resp) => {
                ExchangeError::Connect(format!("HTTP upgrade refused: {}", resp.status()))
            }
            E::HttpFormat(h) => ExchangeError::Connect(format!("HTTP error: {h}")),
            other => ExchangeError::Protocol(other.to_string()),
        }
    }
}

impl From<reqwest::Error> for ExchangeError {
    fn from(e: reqwest::Error) -> Self {
        if e.is_timeout() {
            ExchangeError::Timeout("REST response")
        } else if e.is_decode() || e.is_body() {
            ExchangeError::Protocol(e.to_string())
        } else {
            // reqwest reports TLS handshake failures as connect errors; keep the full chain.
            let tls = chain_has_rustls_error(&e);
            let mut text = e.to_string();
            let mut src = std::error::Error::source(&e);
            while let Some(s) = src {
                text.push_str(": ");
                text.push_str(&s.to_string());
                src = s.source();
            }
            if tls {
                ExchangeError::Tls(text)
            } else {
                ExchangeError::Connect(text)
            }
        }
    }
}

/// True if `e` or any error in its source chain is a `rustls::Error` (a TLS failure wrapped in
/// an I/O or HTTP error), looking inside `std::io::Error` payloads too.
fn chain_has_rustls_error(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if err.is::<rustls::Error>() {
            return true;
        }
        if let Some(io) = err.downcast_ref::<std::io::Error>() {
            if let Some(inner) = io.get_ref() {
                if inner.is::<rustls::Error>() {
                    return true;
                }
            }
        }
        cur = err.source();
    }
    false
}
