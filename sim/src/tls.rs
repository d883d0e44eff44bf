//! Self-signed server certificate (rcgen) and the rustls server configuration (`ring` provider,
//! ALPN `http/1.1` only so WebSocket upgrades stay on HTTP/1.1).

use std::net::SocketAddr;
use std::sync::Arc;

use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

use crate::error::SimError;

/// Generates a certificate for `localhost`, `127.0.0.1` (and the listen IP when it is a
/// specific address) and returns its PEM and a server config using it.
pub fn server_config(listen: SocketAddr) -> Result<(String, Arc<rustls::ServerConfig>), SimError> {
    let mut names = vec!["localhost".to_string(), "127.0.0.1".to_string()];
    let ip = listen.ip();
    if !ip.is_unspecified() && !ip.is_loopback() {
        names.push(ip.to_string());
    }
    let ck = rcgen::generate_simple_self_signed(names).map_err(|e| SimError::Tls(e.to_string()))?;
    let pem = ck.cert.pem();
    let cert: CertificateDer<'static> = ck.cert.der().clone();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(ck.signing_key.serialize_der()));
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut cfg = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| SimError::Tls(e.to_string()))?
        .with_no_client_auth()
        .with_single_cert(vec![cert], key)
        .map_err(|e| SimError::Tls(e.to_string()))?;
    cfg.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok((pem, Arc::new(cfg)))
}
