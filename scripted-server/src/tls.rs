//! The https front of a server started with [`ScriptedServer::start_tls`]: it terminates TLS
//! with the test's own certificate (optionally demanding a client certificate from a given CA)
//! and relays the plain bytes to the scripted server, so every step behaves over https exactly
//! as over http.
//!
//! [`ScriptedServer::start_tls`]: crate::ScriptedServer::start_tls

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls;

/// The server's certificate and key, and optionally the CA its clients must present a
/// certificate from; all PEM.
#[derive(Debug, Clone)]
pub struct TlsIdentity {
    pub certificate_chain_pem: String,
    pub private_key_pem: String,
    pub client_ca_pem: Option<String>,
}

pub(crate) fn acceptor(identity: &TlsIdentity) -> io::Result<TlsAcceptor> {
    let invalid = |what: &str, e: &dyn std::fmt::Display| io::Error::new(io::ErrorKind::InvalidInput, format!("{what}: {e}"));
    let chain = CertificateDer::pem_slice_iter(identity.certificate_chain_pem.as_bytes())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| invalid("certificate chain", &e))?;
    let key = PrivateKeyDer::from_pem_slice(identity.private_key_pem.as_bytes()).map_err(|e| invalid("private key", &e))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| invalid("protocol versions", &e))?;
    let builder = match &identity.client_ca_pem {
        Some(ca) => {
            let mut roots = rustls::RootCertStore::empty();
            for certificate in CertificateDer::pem_slice_iter(ca.as_bytes()) {
                roots.add(certificate.map_err(|e| invalid("client CA", &e))?).map_err(|e| invalid("client CA", &e))?;
            }
            let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                .build()
                .map_err(|e| invalid("client verifier", &e))?;
            builder.with_client_cert_verifier(verifier)
        }
        None => builder.with_no_client_auth(),
    };
    let mut config = builder.with_single_cert(chain, key).map_err(|e| invalid("certificate", &e))?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// Accepts https connections on `listener` and relays each to the plain server at `backend`.
/// A failed handshake (the client does not trust us, or brings no certificate) just closes
/// that connection: the client's own error is what a test checks.
pub(crate) async fn relay_loop(listener: TcpListener, acceptor: TlsAcceptor, backend: SocketAddr) {
    loop {
        let Ok((client, _)) = listener.accept().await else { continue };
        let _ = client.set_nodelay(true);
        let acceptor = acceptor.clone();
        tokio::spawn(async move {
            let Ok(mut tls) = acceptor.accept(client).await else { return };
            let Ok(mut plain) = TcpStream::connect(backend).await else { return };
            let _ = plain.set_nodelay(true);
            let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
        });
    }
}
