//! Proxy and TLS settings for C hosts (SPEC §H.1.1, §H.1.2): the library-wide defaults
//! (`vi_network_*`), and a host hook asked before every request whose answer is filled in
//! through `vi_network_settings_*`. Every setting applies from the next request on.

use super::boundary;
use super::handle::{Handle, impl_handle};
use super::status::ViStatus;
use super::string;
use super::user_data::{UserData, ViUserDataDestroy};
use crate::network::{HostNetwork, NetworkSettings, set_host_network, update_network_defaults};
use std::ffi::{c_char, c_void};
use std::sync::Arc;

/// The settings a host hook fills in for one request (opaque; borrowed, valid only during the
/// hook's call).
pub struct ViNetworkSettings {
    _private: [u8; 0],
}
impl_handle!(ViNetworkSettings => NetworkSettings, "the network settings");

/// Asked before every request (model and MCP HTTP) with the request's url (`len` bytes of
/// UTF-8, not NUL-terminated): fill `settings` with what the host's own configuration says for
/// it, or leave it as it is. Fires on a library thread, any of them; must be quick and must
/// not throw or unwind. What it sets adds to the `vi_network_*` defaults: its proxy wins over
/// theirs, its CA certificates add to theirs, its client identity wins, and verification is
/// off when either turns it off.
pub type ViNetworkConfigure =
    Option<unsafe extern "C" fn(user_data: *mut c_void, url: *const c_char, len: usize, settings: *mut ViNetworkSettings)>;

// The hook's contract (header) requires it to be callable from any thread.
struct CHostNetwork {
    configure: unsafe extern "C" fn(*mut c_void, *const c_char, usize, *mut ViNetworkSettings),
    user_data: UserData,
}

impl HostNetwork for CHostNetwork {
    fn settings_for(&self, url: &str, answer: &mut NetworkSettings) {
        let settings = (answer as *mut NetworkSettings).cast::<ViNetworkSettings>();
        // SAFETY: per the hook's contract; `url` and `settings` outlive the call.
        unsafe { (self.configure)(self.user_data.pointer(), url.as_ptr().cast(), url.len(), settings) };
    }
}

/// Installs the host hook (`configure` NULL removes it). The previous hook's `destroy` fires
/// once no request can call it any more.
#[unsafe(no_mangle)]
pub extern "C" fn vi_network_set_host_configuration(
    configure: ViNetworkConfigure,
    user_data: *mut c_void,
    destroy: ViUserDataDestroy,
) -> ViStatus {
    boundary::status("vi_network_set_host_configuration", || {
        let host = configure.map(|configure| Arc::new(CHostNetwork { configure, user_data: UserData::new(user_data, destroy) }) as Arc<dyn HostNetwork>);
        set_host_network(host);
        Ok(())
    })
}

/// The default proxy, used when the host hook names none: `http://[user:password@]host:port`
/// (CONNECT for https urls), `socks5://…` or `socks5h://…` (names resolved by the proxy), user
/// and password percent-encoded; "" removes it. Without one the environment's `https_proxy`,
/// `http_proxy`, `all_proxy` and `no_proxy` apply, as curl reads them. `VI_STATUS_INVALID_ARGUMENT`
/// for anything else.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_network_set_proxy(url: *const c_char, len: usize) -> ViStatus {
    boundary::status("vi_network_set_proxy", || {
        let url = unsafe { string::arg("url", url, len)? };
        Ok(update_network_defaults(|s| s.set_proxy(Some(url)))?)
    })
}

/// Trusts the CA certificates in `pem` (one or more PEM blocks) in addition to the platform's
/// store and `SSL_CERT_FILE` / `SSL_CERT_DIR`. `VI_STATUS_INVALID_ARGUMENT` when it holds no
/// readable certificate.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_network_add_ca_pem(pem: *const c_char, len: usize) -> ViStatus {
    boundary::status("vi_network_add_ca_pem", || {
        let pem = unsafe { string::arg("pem", pem, len)? };
        Ok(update_network_defaults(|s| s.add_ca_pem(pem))?)
    })
}

/// The client identity for servers that ask for one (mutual TLS): a certificate chain and its
/// private key, both PEM; two empty strings remove it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_network_set_client_identity_pem(
    certificates: *const c_char,
    certificates_len: usize,
    key: *const c_char,
    key_len: usize,
) -> ViStatus {
    boundary::status("vi_network_set_client_identity_pem", || {
        let certificates = unsafe { string::arg("certificates", certificates, certificates_len)? };
        let key = unsafe { string::arg("key", key, key_len)? };
        Ok(update_network_defaults(|s| s.set_client_identity_pem(certificates, key))?)
    })
}

/// `false` accepts any server certificate (as `QSslSocket::VerifyNone`); default `true`.
#[unsafe(no_mangle)]
pub extern "C" fn vi_network_set_verify_peer(verify: bool) -> ViStatus {
    boundary::status("vi_network_set_verify_peer", || {
        update_network_defaults(|s| {
            s.set_verify_peer(verify);
            Ok(())
        })?;
        Ok(())
    })
}

/// The hook's proxy for this request (forms as `vi_network_set_proxy`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_network_settings_set_proxy(settings: *mut ViNetworkSettings, url: *const c_char, len: usize) -> ViStatus {
    boundary::status("vi_network_settings_set_proxy", || {
        let settings = unsafe { ViNetworkSettings::get_mut(settings)? };
        let url = unsafe { string::arg("url", url, len)? };
        Ok(settings.set_proxy(Some(url))?)
    })
}

/// CA certificates to trust for this request (forms as `vi_network_add_ca_pem`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_network_settings_add_ca_pem(settings: *mut ViNetworkSettings, pem: *const c_char, len: usize) -> ViStatus {
    boundary::status("vi_network_settings_add_ca_pem", || {
        let settings = unsafe { ViNetworkSettings::get_mut(settings)? };
        let pem = unsafe { string::arg("pem", pem, len)? };
        Ok(settings.add_ca_pem(pem)?)
    })
}

/// The client identity for this request (forms as `vi_network_set_client_identity_pem`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_network_settings_set_client_identity_pem(
    settings: *mut ViNetworkSettings,
    certificates: *const c_char,
    certificates_len: usize,
    key: *const c_char,
    key_len: usize,
) -> ViStatus {
    boundary::status("vi_network_settings_set_client_identity_pem", || {
        let settings = unsafe { ViNetworkSettings::get_mut(settings)? };
        let certificates = unsafe { string::arg("certificates", certificates, certificates_len)? };
        let key = unsafe { string::arg("key", key, key_len)? };
        Ok(settings.set_client_identity_pem(certificates, key)?)
    })
}

/// `false`: accept any server certificate for this request.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn vi_network_settings_set_verify_peer(settings: *mut ViNetworkSettings, verify: bool) -> ViStatus {
    boundary::status("vi_network_settings_set_verify_peer", || {
        unsafe { ViNetworkSettings::get_mut(settings)? }.set_verify_peer(verify);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_settings_and_bad_arguments_are_statuses() {
        assert_eq!(unsafe { vi_network_settings_set_verify_peer(std::ptr::null_mut(), false) }, ViStatus::NullArgument);
        let url = "ftp://x";
        assert_eq!(unsafe { vi_network_set_proxy(url.as_ptr().cast(), url.len()) }, ViStatus::InvalidArgument);
        assert_eq!(unsafe { vi_network_add_ca_pem(std::ptr::null(), 3) }, ViStatus::NullArgument);
    }
}
