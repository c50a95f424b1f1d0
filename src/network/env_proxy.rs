//! The environment's proxy variables, read as curl reads them (SPEC §H.1.1): `https_proxy` for
//! https urls, `http_proxy` for http urls, else `all_proxy`; each in lower case first, then
//! upper case. `no_proxy` lists the hosts reached directly: `*` (all), a domain (matching itself
//! and its subdomains, with or without a leading dot), an IP address or an IP network in CIDR
//! form; ports in entries are ignored, as curl does.

use super::ProxyUrl;
use std::net::IpAddr;

/// The proxy the environment names for `url`, if any; `Err` when the variable that applies is
/// not a proxy url (the message names it).
pub(super) fn for_url(url: &reqwest::Url, var: impl Fn(&str) -> Option<String>) -> Result<Option<ProxyUrl>, String> {
    let get = |name: &str| {
        [name.to_ascii_lowercase(), name.to_ascii_uppercase()]
            .into_iter()
            .find_map(|n| var(&n).filter(|v| !v.trim().is_empty()).map(|v| (n, v)))
    };
    let scheme_variable = if url.scheme() == "https" { "https_proxy" } else { "http_proxy" };
    let Some((name, value)) = get(scheme_variable).or_else(|| get("all_proxy")) else {
        return Ok(None);
    };
    if let Some((_, no_proxy)) = get("no_proxy")
        && bypasses(&no_proxy, url)
    {
        return Ok(None);
    }
    ProxyUrl::parse(value.trim()).map(Some).map_err(|e| format!("{name}: {e}"))
}

fn bypasses(no_proxy: &str, url: &reqwest::Url) -> bool {
    let Some(host) = url.host_str() else { return false };
    let host = host.trim_start_matches('[').trim_end_matches(']').trim_end_matches('.').to_ascii_lowercase();
    let ip: Option<IpAddr> = host.parse().ok();
    no_proxy.split([',', ' ', '\t']).map(str::trim).filter(|e| !e.is_empty()).any(|entry| {
        if entry == "*" {
            return true;
        }
        let entry = strip_port(entry);
        match (ip, entry.split_once('/')) {
            (Some(ip), Some((network, bits))) => in_network(ip, network, bits),
            (Some(ip), None) => entry.parse::<IpAddr>() == Ok(ip),
            (None, _) => {
                let domain = entry.trim_start_matches('*').trim_start_matches('.').trim_end_matches('.').to_ascii_lowercase();
                !domain.is_empty()
                    && (host == domain || host.strip_suffix(&domain).is_some_and(|rest| rest.ends_with('.')))
            }
        }
    })
}

/// `host:port` → `host`, `[v6]:port` → `v6`; a bare IPv6 address stays whole.
fn strip_port(entry: &str) -> &str {
    if let Some(rest) = entry.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match entry.rsplit_once(':') {
        Some((host, port)) if !host.contains(':') && port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => entry,
    }
}

fn in_network(ip: IpAddr, network: &str, bits: &str) -> bool {
    let (Ok(network), Ok(bits)) = (network.parse::<IpAddr>(), bits.parse::<u32>()) else {
        return false;
    };
    match (ip, network) {
        (IpAddr::V4(ip), IpAddr::V4(net)) if bits <= 32 => {
            let mask = u32::MAX.checked_shl(32 - bits).unwrap_or(0);
            u32::from(ip) & mask == u32::from(net) & mask
        }
        (IpAddr::V6(ip), IpAddr::V6(net)) if bits <= 128 => {
            let mask = u128::MAX.checked_shl(128 - bits).unwrap_or(0);
            u128::from(ip) & mask == u128::from(net) & mask
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn proxy_for(url: &str, vars: &[(&str, &str)]) -> Option<String> {
        let vars: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        for_url(&reqwest::Url::parse(url).unwrap(), |n| vars.get(n).cloned()).unwrap().map(|p| p.shown())
    }

    #[test]
    fn the_scheme_picks_the_variable_and_lower_case_wins() {
        let vars = [("https_proxy", "http://s:1"), ("HTTPS_PROXY", "http://S:2"), ("http_proxy", "h:3"), ("ALL_PROXY", "socks5h://a:4")];
        assert_eq!(proxy_for("https://api.example/v1", &vars).as_deref(), Some("s:1"));
        assert_eq!(proxy_for("http://api.example/v1", &vars).as_deref(), Some("h:3"));
        assert_eq!(proxy_for("http://x/", &[("ALL_PROXY", "socks5h://a:4")]).as_deref(), Some("a:4"));
        assert_eq!(proxy_for("http://x/", &[("HTTP_PROXY", "h:5")]).as_deref(), Some("h:5"));
        assert_eq!(proxy_for("http://x/", &[("http_proxy", " ")]), None);
        assert_eq!(proxy_for("http://x/", &[]), None);
    }

    #[test]
    fn no_proxy_matches_domains_addresses_and_networks() {
        let with = |no_proxy: &str, url: &str| proxy_for(url, &[("all_proxy", "p:1"), ("no_proxy", no_proxy)]).is_none();
        assert!(with("*", "https://anything/"));
        assert!(with("example.com", "https://api.example.com/"));
        assert!(with(".example.com", "https://example.com/"));
        assert!(with("EXAMPLE.com:443", "https://Api.Example.COM./"));
        assert!(!with("example.com", "https://notexample.com/"));
        assert!(with("localhost, 127.0.0.1", "http://127.0.0.1:8080/"));
        assert!(with("10.0.0.0/8", "http://10.2.3.4/"));
        assert!(!with("10.0.0.0/8", "http://11.2.3.4/"));
        assert!(with("::1", "http://[::1]:80/"));
        assert!(with("[fd00::]/8", "http://[fd12::1]/") || with("fd00::/8", "http://[fd12::1]/"));
        assert!(with("0.0.0.0/0", "http://8.8.8.8/"));
        assert!(!with("10.0.0.0/99", "http://10.0.0.1/"));
    }

    #[test]
    fn a_bad_variable_is_named() {
        let url = reqwest::Url::parse("https://x/").unwrap();
        let e = for_url(&url, |n| (n == "HTTPS_PROXY").then(|| "ftp://u:pw@h".to_owned())).unwrap_err();
        assert!(e.starts_with("HTTPS_PROXY:") && !e.contains("pw"), "{e}");
    }
}
