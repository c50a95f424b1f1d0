//! The HTTP clients, one per distinct (purpose, plain or TLS, settings, library thread): a
//! request looks its client up by the settings that apply to it now, so a changed
//! configuration takes effect at the next request (SPEC §H.1.2) while an unchanged one reuses
//! the client's connections and its loaded trust store.
//!
//! Every client: no `Referer` (SPEC §H.1.9); at most 10 redirects, 307/308 repeating the POST
//! with its body, `Authorization` dropped across origins by reqwest itself, https → http
//! refused (SPEC §H.1.3); gzip, deflate, br and zstd decoded as the body streams (SPEC §H.1.5).

use super::{NetworkSettings, ProxyUrl, settings_for};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// What the client is for: model requests are bounded by the model's own timeouts; MCP
/// connections also give up connecting after 10 s. MCP connections and models whose key
/// travels in a header of its own (Anthropic's `x-api-key`, which reqwest does not drop across
/// origins as it drops `Authorization`) never follow a redirect to another origin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Purpose {
    Model,
    KeyedModel,
    Mcp,
}

impl Purpose {
    fn stays_on_origin(self) -> bool {
        matches!(self, Purpose::KeyedModel | Purpose::Mcp)
    }
}

/// A client for one url, and the proxy it goes through (for failure messages).
pub(crate) struct Client {
    pub http: reqwest::Client,
    /// "host:port" of the proxy; never its credentials.
    pub proxy: Option<String>,
}

/// Why no client could be made for a url.
#[derive(Debug)]
pub(crate) enum SetupError {
    /// An environment proxy variable is not a proxy url.
    Proxy(String),
    /// The TLS settings were refused by the TLS library (a key that does not fit its
    /// certificate, …).
    Tls(String),
}

#[derive(PartialEq, Eq, Hash)]
struct Key {
    purpose: Purpose,
    tls: bool,
    settings: NetworkSettings,
    /// `SSL_CERT_FILE` and `SSL_CERT_DIR` (https only): the platform store is read from them
    /// (`platform_roots`), so a change must build a new client.
    trust_files: [Option<std::ffi::OsString>; 2],
    /// The library thread asking (`runtime::shard`): a connection is reused only on the thread
    /// that made it, where its task runs.
    shard: usize,
}

/// More distinct configurations than this in one process (each on up to 4 library threads)
/// means they keep changing: start over rather than grow.
const MAX_CLIENTS: usize = 64;

/// A kept-alive connection nobody reuses is closed after this long (the pool checks at about
/// this interval too, so one closes within twice this, 40 s) — a burst of dialogs must not
/// hold its sockets for minutes (issue 14: 100 dialogs left ~100 sockets for ~3 minutes).
const IDLE_CONNECTION_TIMEOUT: Duration = Duration::from_secs(20);

/// At most this many idle connections are kept per host; more are closed when they fall idle.
const MAX_IDLE_PER_HOST: usize = 16;

pub(crate) fn client(url: &reqwest::Url, purpose: Purpose) -> Result<Client, SetupError> {
    let mut settings = settings_for(url).map_err(SetupError::Proxy)?;
    let tls = url.scheme() == "https";
    if !tls {
        // Plain http never uses the TLS settings: one client whatever they are.
        settings = NetworkSettings { proxy: settings.proxy, ..NetworkSettings::default() };
    }
    let proxy = settings.proxy.as_ref().map(ProxyUrl::shown);
    let trust_files = match tls {
        true => trust_files(),
        false => [None, None],
    };
    let key = Key { purpose, tls, settings, trust_files, shard: crate::runtime::shard() };
    static CLIENTS: OnceLock<Mutex<HashMap<Key, reqwest::Client>>> = OnceLock::new();
    let clients = CLIENTS.get_or_init(Default::default);
    if let Some(http) = clients.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(Client { http: http.clone(), proxy });
    }
    // Built without the lock: an https client reads files and may log, and other threads'
    // lookups must not wait for that. Two threads building the same client keep the first.
    let built = build(&key)?;
    let mut clients = clients.lock().unwrap_or_else(|e| e.into_inner());
    if clients.len() >= MAX_CLIENTS {
        clients.clear();
    }
    let http = clients.entry(key).or_insert(built).clone();
    Ok(Client { http, proxy })
}

/// `SSL_CERT_FILE` and `SSL_CERT_DIR` as they are now.
fn trust_files() -> [Option<std::ffi::OsString>; 2] {
    ["SSL_CERT_FILE", "SSL_CERT_DIR"].map(std::env::var_os)
}

fn build(key: &Key) -> Result<reqwest::Client, SetupError> {
    // reqwest is built without a bundled crypto provider; `Err` means the host already
    // installed one, which serves as well.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut builder = reqwest::Client::builder()
        .pool_idle_timeout(IDLE_CONNECTION_TIMEOUT)
        .pool_max_idle_per_host(MAX_IDLE_PER_HOST)
        .referer(false)
        .redirect(redirects(key.tls, key.purpose));
    if key.purpose == Purpose::Mcp {
        builder = builder.connect_timeout(Duration::from_secs(10));
    }
    builder = match &key.settings.proxy {
        Some(proxy) => builder.proxy(reqwest::Proxy::all(proxy.0.clone()).map_err(|e| SetupError::Proxy(e.to_string()))?),
        None => builder.no_proxy(),
    };
    if !key.tls && key.settings.proxy.as_ref().is_some_and(|p| p.0.scheme() == "http") {
        // A forwarding proxy may close a connection it answered as keep-alive (tinyproxy
        // does, at once): a POST sent on it is lost ("connection closed before message
        // completed"). Plain http through an HTTP proxy therefore never reuses a connection.
        builder = builder.pool_max_idle_per_host(0);
    }
    if key.tls {
        builder = tls(builder, &key.settings)?;
    } else {
        // Plain http (local servers: Ollama, LM Studio, llama.cpp, the tests) never loads the
        // platform's store: that took ~4 ms, paid by a first run before its first byte. This
        // client trusts no certificate, so it never speaks TLS (redirects to https are refused).
        let no_roots = rustls::ClientConfig::builder()
            .with_root_certificates(rustls::RootCertStore::empty())
            .with_no_client_auth();
        builder = builder.tls_backend_preconfigured(no_roots);
    }
    builder.build().map_err(|e| SetupError::Tls(describe(&e)))
}

fn tls(mut builder: reqwest::ClientBuilder, settings: &NetworkSettings) -> Result<reqwest::ClientBuilder, SetupError> {
    let refused = |what: &str, e: reqwest::Error| SetupError::Tls(format!("{what}: {}", describe(&e)));
    #[cfg(all(unix, not(target_vendor = "apple"), not(target_os = "android")))]
    if settings.verify_peer {
        let roots = platform_roots();
        if roots.is_empty() && settings.cas.is_empty() {
            return Err(SetupError::Tls("no CA certificates were loaded from the system".into()));
        }
        builder = builder.tls_certs_only(roots.iter().cloned());
    }
    for pem in &settings.cas {
        let certificates = reqwest::Certificate::from_pem_bundle(pem.as_bytes()).map_err(|e| refused("CA certificate", e))?;
        builder = builder.tls_certs_merge(certificates);
    }
    if let Some(identity) = &settings.identity {
        let pem = format!("{}\n{}", identity.certificates, identity.key);
        builder = builder.identity(reqwest::Identity::from_pem(pem.as_bytes()).map_err(|e| refused("client identity", e))?);
    }
    Ok(builder.tls_danger_accept_invalid_certs(!settings.verify_peer))
}

/// The platform's CA store where it is files (Linux, the BSDs): what rustls-platform-verifier
/// trusts there, read once per process and per `SSL_CERT_FILE` / `SSL_CERT_DIR`. The verifier
/// reads it again for every client it is given: 6 ms (17-28 ms from a cold disk) before the
/// first https request of each library thread, purpose and configuration (issue 34). As it
/// does, a certificate that does not parse is left out. A read that found nothing or failed
/// somewhere is not kept: the next client reads the store again, as it did before.
#[cfg(all(unix, not(target_vendor = "apple"), not(target_os = "android")))]
fn platform_roots() -> std::sync::Arc<Vec<reqwest::Certificate>> {
    static ROOTS: Mutex<Option<Roots>> = Mutex::new(None);
    kept_roots(&ROOTS, trust_files, rustls_native_certs::load_native_certs)
}

/// The files a store was read from, and what it held.
#[cfg(all(unix, not(target_vendor = "apple"), not(target_os = "android")))]
type Roots = ([Option<std::ffi::OsString>; 2], std::sync::Arc<Vec<reqwest::Certificate>>);

/// `platform_roots` with its slot, the variables and the store's reader passed in. Nothing is
/// logged with the slot locked (the log's sink is the host's, SPEC §I.5.1).
#[cfg(all(unix, not(target_vendor = "apple"), not(target_os = "android")))]
fn kept_roots(
    slot: &Mutex<Option<Roots>>,
    files: impl Fn() -> [Option<std::ffi::OsString>; 2],
    load: impl FnOnce() -> rustls_native_certs::CertificateResult,
) -> std::sync::Arc<Vec<reqwest::Certificate>> {
    let named = files();
    if let Some((read_from, certificates)) = slot.lock().unwrap_or_else(|e| e.into_inner()).as_ref()
        && *read_from == named
    {
        return certificates.clone();
    }
    let loaded = load();
    let parses = |der: &rustls::pki_types::CertificateDer<'_>| rustls::RootCertStore::empty().add(der.clone().into_owned()).is_ok();
    let certificates: Vec<_> = loaded
        .certs
        .iter()
        .filter(|der| parses(der))
        .filter_map(|der| reqwest::Certificate::from_der(der).ok())
        .collect();
    let certificates = std::sync::Arc::new(certificates);
    // Kept only when it was read whole from the files still named now.
    if loaded.errors.is_empty() && !certificates.is_empty() && files() == named {
        *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some((named, certificates.clone()));
    }
    for error in &loaded.errors {
        tracing::warn!(target: crate::log::HTTP, error = %error, "a CA certificate of the platform's store could not be read");
    }
    certificates
}

fn redirects(tls: bool, purpose: Purpose) -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(move |attempt| {
        let scheme = attempt.url().scheme();
        if attempt.previous().len() > 10 {
            attempt.error("too many redirects (more than 10)")
        } else if !tls && scheme != "http" {
            attempt.error("the server redirects to https; use the https url")
        } else if tls && scheme != "https" {
            attempt.error("the server redirects from https to http, which is refused")
        } else if purpose.stays_on_origin() && attempt.previous().first().is_some_and(|first| first.origin() != attempt.url().origin()) {
            attempt.error("the server redirects to another origin, where its headers must not go")
        } else {
            attempt.follow()
        }
    })
}

/// An error with its causes, in one line.
pub(crate) fn describe(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts = vec![e.to_string()];
    let mut source = e.source();
    while let Some(err) = source {
        let text = err.to_string();
        if !parts.last().is_some_and(|last| last.contains(&text)) {
            parts.push(text);
        }
        source = err.source();
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    #[cfg(all(unix, not(target_vendor = "apple"), not(target_os = "android")))]
    #[test]
    fn the_platform_store_is_kept_only_when_read_whole_from_the_files_named_now() {
        use rustls_native_certs::{CertificateResult, Error, ErrorKind};
        use std::cell::Cell;
        use std::ffi::OsString;
        use std::sync::{Arc, Mutex};
        let system = rustls_native_certs::load_native_certs().certs;
        if system.is_empty() {
            return; // no store on this machine to read
        }
        let store = |errors: usize| {
            let mut r = CertificateResult::default();
            r.certs = system.clone();
            r.errors = (0..errors)
                .map(|_| Error { context: "test", kind: ErrorKind::Io { inner: std::io::Error::other("gone"), path: "/x".into() } })
                .collect();
            r
        };
        let none = || [None, None];
        let named = || [Some(OsString::from("/etc/ca.pem")), None];
        let slot = Mutex::new(None);
        let reads = Cell::new(0);
        let read = |errors| {
            reads.set(reads.get() + 1);
            store(errors)
        };

        let first = super::kept_roots(&slot, none, || read(0));
        assert!(!first.is_empty());
        assert!(Arc::ptr_eq(&first, &super::kept_roots(&slot, none, || read(0))), "the same files are read once");
        assert_eq!(reads.get(), 1);
        assert!(!Arc::ptr_eq(&first, &super::kept_roots(&slot, named, || read(0))), "another SSL_CERT_FILE is read");
        super::kept_roots(&slot, none, || read(0));
        assert_eq!(reads.get(), 3, "and the system's again after it");

        // A read with errors, an empty one, or one whose files changed meanwhile is not kept.
        let slot = Mutex::new(None);
        super::kept_roots(&slot, none, || store(1));
        assert!(slot.lock().unwrap().is_none(), "a read with errors was kept");
        super::kept_roots(&slot, none, CertificateResult::default);
        assert!(slot.lock().unwrap().is_none(), "an empty read was kept");
        let changes = Cell::new(0);
        let changing = || {
            changes.set(changes.get() + 1);
            if changes.get() == 1 { none() } else { named() }
        };
        super::kept_roots(&slot, changing, || store(0));
        assert!(slot.lock().unwrap().is_none(), "a read from files no longer named was kept");
    }
}
