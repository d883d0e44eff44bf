//! TLS client configuration shared by the WebSocket and REST clients.
//!
//! rustls with the `ring` crypto provider; trust anchors are the Mozilla roots from
//! `webpki-roots` plus optional extra CA certificates given as PEM (this is how the simulator's
//! self-signed certificate is trusted in tests and in the demo).

use std::sync::Arc;

use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::CertificateDer;
use rustls::{ClientConfig, RootCertStore};

use super::ExchangeError;

/// Builds a rustls [`ClientConfig`] (ring provider, TLS 1.2 and 1.3, no client certificate).
///
/// `extra_ca_pem`: zero or more PEM `CERTIFICATE` blocks added to the webpki roots. No ALPN is
/// set (WebSocket upgrades need HTTP/1.1); the REST client sets its own.
///
/// Errors: [`ExchangeError::Tls`] if the PEM holds no certificate or a certificate is refused.
pub fn client_config(extra_ca_pem: Option<&str>) -> Result<Arc<ClientConfig>, ExchangeError> {
    let mut roots = RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    if let Some(pem) = extra_ca_pem {
        let mut added = 0usize;
        for cert in CertificateDer::pem_slice_iter(pem.as_bytes()) {
            let cert = cert.map_err(|e| ExchangeError::Tls(format!("bad CA PEM: {e}")))?;
            roots
                .add(cert)
                .map_err(|e| ExchangeError::Tls(format!("CA certificate refused: {e}")))?;
            added += 1;
        }
        if added == 0 {
            return Err(ExchangeError::Tls("CA PEM holds no certificate".into()));
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| ExchangeError::Tls(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// Reads a PEM file and builds the config with it as an extra CA (see [`client_config`]).
///
/// Errors: [`ExchangeError::Tls`] if the file cannot be read or holds no usable certificate.
pub fn client_config_with_ca_file(
    path: Option<&std::path::Path>,
) -> Result<Arc<ClientConfig>, ExchangeError> {
    match path {
        None => client_config(None),
        Some(p) => {
            let pem = std::fs::read_to_string(p)
                .map_err(|e| ExchangeError::Tls(format!("cannot read {}: {e}", p.display())))?;
            client_config(Some(&pem))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_roots_build() {
        let cfg = client_config(None).expect("config");
        assert!(cfg.alpn_protocols.is_empty());
    }

    #[test]
    fn extra_ca_is_accepted() {
        let cert = rcgen::generate_simple_self_signed(vec!["localhost".into()]).expect("cert");
        client_config(Some(&cert.cert.pem())).expect("config with CA");
    }

    #[test]
    fn garbage_pem_is_an_error() {
        assert!(matches!(
            client_config(Some("not a pem")),
            Err(ExchangeError::Tls(_))
        ));
    }
}
