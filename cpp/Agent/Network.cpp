// SPDX-License-Identifier: MIT
//
// The Qt network configuration hook (Network_p.h): only Qt types turned into the C ABI's
// vi_network_settings_* calls; which setting wins is the core's rule (src/network.rs).

#include "Network_p.h"

#include <visindigo_agent.h>

#include <QtCore/QMutex>
#include <QtCore/QMutexLocker>
#include <QtCore/QUrl>
#include <QtNetwork/QNetworkProxy>
#include <QtNetwork/QNetworkProxyFactory>
#include <QtNetwork/QSslCertificate>
#include <QtNetwork/QSslConfiguration>
#include <QtNetwork/QSslKey>
#include <QtNetwork/QSslSocket>

#include <mutex>

namespace Visindigo::Agent::Internal {
namespace {

// The proxy url for the core ("http://user:password@host:port"), or empty for none.
QByteArray proxyUrl(const QUrl& target)
{
    const QList<QNetworkProxy> proxies = QNetworkProxyFactory::proxyForQuery(QNetworkProxyQuery(target));
    for (const QNetworkProxy& proxy : proxies) {
        QString scheme;
        switch (proxy.type()) {
        case QNetworkProxy::NoProxy:
            return {};
        case QNetworkProxy::HttpProxy:
            scheme = QStringLiteral("http");
            break;
        case QNetworkProxy::HttpCachingProxy: // forwards plain http only, never tunnels
            if (target.scheme() == QLatin1String("http"))
                scheme = QStringLiteral("http");
            break;
        case QNetworkProxy::Socks5Proxy:
            scheme = proxy.capabilities().testFlag(QNetworkProxy::HostNameLookupCapability)
                ? QStringLiteral("socks5h")
                : QStringLiteral("socks5");
            break;
        default:
            break;
        }
        if (scheme.isEmpty())
            continue; // a proxy kind this request cannot use: Qt would try the next one too
        QUrl url;
        url.setScheme(scheme);
        url.setHost(proxy.hostName());
        url.setPort(proxy.port());
        if (!proxy.user().isEmpty()) {
            url.setUserName(proxy.user());
            url.setPassword(proxy.password());
        }
        return url.toString(QUrl::FullyEncoded).toUtf8();
    }
    return {};
}

// PEM of a certificate list, remembered while the list stays the same: an application that
// puts the whole system store into the default configuration pays the conversion once.
QByteArray pemOf(const QList<QSslCertificate>& certificates)
{
    static QMutex mutex;
    static QList<QSslCertificate> last;
    static QByteArray pem;
    QMutexLocker lock(&mutex);
    if (certificates != last) {
        pem.clear();
        for (const QSslCertificate& certificate : certificates)
            pem += certificate.toPem();
        last = certificates;
    }
    return pem;
}

void warnIfFailed(ViStatus status, const char* what)
{
    if (status != VI_STATUS_OK)
        qWarning("VisindigoAgent: Qt's %s could not be used: %s", what, vi_last_error());
}

void configure(void*, const char* url, size_t len, ViNetworkSettings* settings)
{
    const QUrl target(QString::fromUtf8(url, qsizetype(len)));
    const QByteArray proxy = proxyUrl(target);
    if (!proxy.isEmpty())
        warnIfFailed(vi_network_settings_set_proxy(settings, proxy.constData(), size_t(proxy.size())), "proxy");
    if (target.scheme() != QLatin1String("https"))
        return; // plain http: TLS settings do not apply (and loading Qt's TLS backend costs)
    const QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
    const QList<QSslCertificate> cas = tls.caCertificates();
    if (!cas.isEmpty()) {
        const QByteArray pem = pemOf(cas);
        warnIfFailed(vi_network_settings_add_ca_pem(settings, pem.constData(), size_t(pem.size())), "CA certificates");
    }
    if (tls.peerVerifyMode() == QSslSocket::VerifyNone)
        vi_network_settings_set_verify_peer(settings, false);
    if (!tls.localCertificate().isNull() && !tls.privateKey().isNull()) {
        QList<QSslCertificate> chain = tls.localCertificateChain();
        if (chain.isEmpty() || chain.first() != tls.localCertificate())
            chain.prepend(tls.localCertificate());
        QByteArray certificates;
        for (const QSslCertificate& certificate : chain)
            certificates += certificate.toPem();
        const QByteArray key = tls.privateKey().toPem();
        warnIfFailed(vi_network_settings_set_client_identity_pem(settings, certificates.constData(),
                         size_t(certificates.size()), key.constData(), size_t(key.size())),
            "client certificate");
    }
}

} // namespace

void useQtNetworkConfiguration()
{
    static std::once_flag once;
    std::call_once(once, [] { vi_network_set_host_configuration(configure, nullptr, nullptr); });
}

} // namespace Visindigo::Agent::Internal
