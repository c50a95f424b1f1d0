// SPDX-License-Identifier: MIT
//
// Internal (not installed): the application's Qt network configuration as the core's host
// network hook (in Network.cpp, SPEC §H.1.1–2). Before every request the core asks, on a
// library thread, what Qt would use for the url:
//   * the proxy QNetworkProxyFactory::proxyForQuery names (application proxy, an installed
//     factory, the system configuration when enabled) — HTTP (CONNECT for https), HTTP caching
//     (plain http only) or SOCKS5, with its user name and password; NoProxy leaves the choice to
//     the core (vi_network_set_proxy, then the environment);
//   * for https only, QSslConfiguration::defaultConfiguration(): its CA certificates, VerifyNone,
//     and its local certificate chain + private key as the client identity.
// Both Qt calls are thread-safe (Qt guards its global configuration with a mutex), so Qt's
// configuration is read where and when the request is made, never a stale copy.
#ifndef VISINDIGO_AGENT_NETWORK_P_H
#define VISINDIGO_AGENT_NETWORK_P_H

namespace Visindigo::Agent::Internal {

// Installs the hook once per process; every later call returns at once.
void useQtNetworkConfiguration();

} // namespace Visindigo::Agent::Internal

#endif // VISINDIGO_AGENT_NETWORK_P_H
