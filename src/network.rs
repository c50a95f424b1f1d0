//! Which proxy and TLS settings a request uses (SPEC §H.1.1, §H.1.2).
//!
//! They are worked out again before every request, because an application may change its
//! configuration at any time, from three sources:
//! 1. the host application, through [`set_host_network`] (the Qt layer answers with
//!    `QNetworkProxyFactory::proxyForQuery` and `QSslConfiguration::defaultConfiguration()`);
//! 2. the library-wide defaults, [`update_network_defaults`] (the C ABI's `vi_network_*`);
//! 3. the environment: curl's proxy variables (`env_proxy`), and the platform's CA store,
//!    which honours `SSL_CERT_FILE` / `SSL_CERT_DIR`.
//!
//! A proxy the host names wins over the default one, which wins over the environment. CA
//! certificates add up; verification is off when either the host or the defaults turn it off;
//! the host's client identity wins over the default one. `clients` keeps one HTTP client per
//! distinct outcome, so an unchanged configuration costs a lookup, not a TLS setup.

mod clients;
mod env_proxy;

use crate::error::Error;
use std::sync::{Arc, RwLock};

pub(crate) use clients::{Client, Purpose, SetupError, client, describe};

/// Proxy and TLS settings: the library's defaults, or a host's answer for one url.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NetworkSettings {
    proxy: Option<ProxyUrl>,
    cas: Vec<String>,
    identity: Option<ClientIdentity>,
    verify_peer: bool,
}

impl Default for NetworkSettings {
    fn default() -> Self {
        NetworkSettings { proxy: None, cas: Vec::new(), identity: None, verify_peer: true }
    }
}

/// A client certificate chain and its private key, both PEM.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct ClientIdentity {
    certificates: String,
    key: String,
}

impl NetworkSettings {
    /// The proxy for requests: `http://[user:password@]host:port` (CONNECT for https urls),
    /// `socks5://…` (names resolved here) or `socks5h://…` (names resolved by the proxy);
    /// user and password percent-encoded. `None` or "" leaves the choice to the next source.
    pub fn set_proxy(&mut self, url: Option<&str>) -> Result<(), Error> {
        self.proxy = match url.map(str::trim).filter(|u| !u.is_empty()) {
            Some(url) => Some(ProxyUrl::parse(url).map_err(Error::InvalidArgument)?),
            None => None,
        };
        Ok(())
    }

    /// Adds CA certificates (one or more PEM blocks) to the platform's trust store.
    pub fn add_ca_pem(&mut self, pem: &str) -> Result<(), Error> {
        let found = reqwest::Certificate::from_pem_bundle(pem.as_bytes())
            .map_err(|e| Error::InvalidArgument(format!("the CA certificates are not valid PEM: {e}")))?;
        if found.is_empty() {
            return Err(Error::InvalidArgument("no CERTIFICATE block in the CA PEM".into()));
        }
        if !self.cas.iter().any(|known| known == pem) {
            self.cas.push(pem.to_owned());
        }
        Ok(())
    }

    /// The client identity for mutual TLS: a certificate chain and its private key (PKCS#8,
    /// PKCS#1 or SEC1), both PEM. Two empty strings remove it.
    pub fn set_client_identity_pem(&mut self, certificates: &str, key: &str) -> Result<(), Error> {
        if certificates.trim().is_empty() && key.trim().is_empty() {
            self.identity = None;
            return Ok(());
        }
        let mut both = certificates.as_bytes().to_vec();
        both.push(b'\n');
        both.extend_from_slice(key.as_bytes());
        reqwest::Identity::from_pem(&both)
            .map_err(|e| Error::InvalidArgument(format!("the client certificate or key is not valid PEM: {e}")))?;
        self.identity = Some(ClientIdentity { certificates: certificates.to_owned(), key: key.to_owned() });
        Ok(())
    }

    /// `false` accepts any server certificate (Qt's `QSslSocket::VerifyNone`).
    pub fn set_verify_peer(&mut self, verify: bool) {
        self.verify_peer = verify;
    }

    /// The host's answer on top of the defaults (module doc).
    fn with_host_answer(mut self, answer: NetworkSettings) -> NetworkSettings {
        if answer.proxy.is_some() {
            self.proxy = answer.proxy;
        }
        for ca in answer.cas {
            if !self.cas.contains(&ca) {
                self.cas.push(ca);
            }
        }
        if answer.identity.is_some() {
            self.identity = answer.identity;
        }
        self.verify_peer &= answer.verify_peer;
        self
    }
}

/// The host application's own network configuration, asked before each request.
pub trait HostNetwork: Send + Sync {
    /// Fills `answer` (which starts at the defaults of [`NetworkSettings`]) with what the
    /// host's configuration says for `url`. Called on a library worker thread; must be quick.
    fn settings_for(&self, url: &str, answer: &mut NetworkSettings);
}

static HOST: RwLock<Option<Arc<dyn HostNetwork>>> = RwLock::new(None);
static DEFAULTS: RwLock<NetworkSettings> =
    RwLock::new(NetworkSettings { proxy: None, cas: Vec::new(), identity: None, verify_peer: true });

/// Installs (or, with `None`, removes) the host's network configuration.
pub fn set_host_network(host: Option<Arc<dyn HostNetwork>>) {
    *HOST.write().unwrap_or_else(|e| e.into_inner()) = host;
}

/// Changes the library-wide defaults; they apply from the next request on.
pub fn update_network_defaults<T>(change: impl FnOnce(&mut NetworkSettings) -> Result<T, Error>) -> Result<T, Error> {
    let mut defaults = DEFAULTS.write().unwrap_or_else(|e| e.into_inner());
    let mut changed = defaults.clone();
    let value = change(&mut changed)?;
    *defaults = changed;
    Ok(value)
}

/// The settings that apply to a request to `url` now, proxy included (`Err`: an environment
/// proxy variable that is not a url).
fn settings_for(url: &reqwest::Url) -> Result<NetworkSettings, String> {
    let defaults = DEFAULTS.read().unwrap_or_else(|e| e.into_inner()).clone();
    let host = HOST.read().unwrap_or_else(|e| e.into_inner()).clone();
    let mut settings = match host {
        Some(host) => {
            let mut answer = NetworkSettings::default();
            host.settings_for(url.as_str(), &mut answer);
            defaults.with_host_answer(answer)
        }
        None => defaults,
    };
    if settings.proxy.is_none() {
        settings.proxy = env_proxy::for_url(url, |name| std::env::var(name).ok())?;
    }
    Ok(settings)
}

/// A proxy url that was checked: a scheme this library speaks and a host.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct ProxyUrl(reqwest::Url);

impl ProxyUrl {
    fn parse(text: &str) -> Result<ProxyUrl, String> {
        // curl reads "host:port" as an http proxy.
        let with_scheme = if text.contains("://") { text.to_owned() } else { format!("http://{text}") };
        let url = reqwest::Url::parse(&with_scheme).map_err(|e| format!("the proxy \"{}\" is not a url: {e}", Self::hide_password(text)))?;
        match url.scheme() {
            "http" | "socks5" | "socks5h" => {}
            other => return Err(format!("the proxy scheme \"{other}\" is not http, socks5 or socks5h")),
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(format!("the proxy \"{}\" names no host", Self::hide_password(text)));
        }
        // The password is a secret in use (SPEC §I.5.1): a text that quotes it, as given or
        // decoded, shows `***` (redact.rs).
        if let Some(password) = url.password() {
            crate::redact::register(password);
            crate::redact::register(&percent_encoding::percent_decode_str(password).decode_utf8_lossy());
        }
        Ok(ProxyUrl(url))
    }

    /// "host:port", for messages: never the credentials.
    fn shown(&self) -> String {
        let port = self.0.port_or_known_default().unwrap_or(1080);
        format!("{}:{port}", self.0.host_str().unwrap_or(""))
    }

    fn hide_password(text: &str) -> String {
        match (text.find("://").map_or(0, |i| i + 3), text.rfind('@')) {
            (start, Some(at)) if at > start => format!("{}***{}", &text[..start], &text[at..]),
            _ => text.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proxy_password_is_masked_as_given_and_decoded() {
        ProxyUrl::parse("http://alice:proxy%2Dpass%40word-1@127.0.0.1:3128").unwrap();
        assert_eq!(crate::redact::redact("proxy-pass@word-1 / proxy%2Dpass%40word-1"), "*** / ***");
    }

    #[test]
    fn a_proxy_url_is_checked_and_never_shows_its_password() {
        let proxy = ProxyUrl::parse("http://user:s3cret@127.0.0.1:3128").unwrap();
        assert_eq!(proxy.shown(), "127.0.0.1:3128");
        assert_eq!(ProxyUrl::parse("proxy.corp:8080").unwrap().0.as_str(), "http://proxy.corp:8080/");
        assert_eq!(ProxyUrl::parse("socks5h://h").unwrap().shown(), "h:1080");
        let bad = ProxyUrl::parse("ftp://u:pw@h:1").unwrap_err();
        assert!(bad.contains("ftp") && !bad.contains("pw"), "{bad}");
        let bad = ProxyUrl::parse("http://u:pw@[::1").unwrap_err();
        assert!(!bad.contains("pw"), "{bad}");
    }

    #[test]
    fn the_host_answer_adds_to_the_defaults() {
        let mut defaults = NetworkSettings::default();
        defaults.set_proxy(Some("http://c:1")).unwrap();
        defaults.set_verify_peer(true);
        let mut answer = NetworkSettings::default();
        answer.set_verify_peer(false);
        let merged = defaults.clone().with_host_answer(answer.clone());
        assert_eq!(merged.proxy, defaults.proxy, "the host named no proxy: the default stays");
        assert!(!merged.verify_peer);
        answer.set_proxy(Some("socks5://q:2")).unwrap();
        assert_eq!(defaults.with_host_answer(answer).proxy.unwrap().shown(), "q:2");
    }

    #[test]
    fn bad_pem_is_refused_with_a_reason() {
        let mut settings = NetworkSettings::default();
        assert!(matches!(settings.add_ca_pem("not pem"), Err(Error::InvalidArgument(_))));
        assert!(matches!(settings.set_client_identity_pem("x", "y"), Err(Error::InvalidArgument(_))));
        settings.set_client_identity_pem("", "").unwrap();
        assert_eq!(settings, NetworkSettings::default());
    }
}
