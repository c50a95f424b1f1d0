// SPDX-License-Identifier: MIT
//
// The network as a Qt application configures it (SPEC §H.1): an application proxy with
// credentials (Debian's tinyproxy) and a company CA added to Qt's default TLS configuration
// reach a model that is only served over https; the configuration is read at each run;
// VerifyNone and a client certificate in that configuration apply; retry passes announce
// themselves with Dialog::retrying. Certificates are made with openssl at test time.

#include <Agent/Center.h>
#include <Agent/Dialog.h>
#include <Agent/Message.h>
#include <Agent/Model.h>
#include <Agent/Provider.h>

#include <QtCore/QElapsedTimer>
#include <QtCore/QFile>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtNetwork/QHostInfo>
#include <QtNetwork/QNetworkProxy>
#include <QtNetwork/QNetworkProxyFactory>
#include <QtNetwork/QSslCertificate>
#include <QtNetwork/QSslConfiguration>
#include <QtNetwork/QSslKey>
#include <QtNetwork/QTcpServer>
#include <QtNetwork/QTcpSocket>
#include <QtTest/QSignalSpy>
#include <QtTest/QTest>

#include <memory>

#ifndef VI_SCRIPTED_SERVER
#error "cpp-tests/CMakeLists.txt defines VI_SCRIPTED_SERVER"
#endif

using namespace Visindigo::Agent;

namespace {

QJsonObject hello()
{
    const QJsonObject delta{{"content", "Hello"}};
    const QJsonObject chunk{{"choices", QJsonArray{QJsonObject{{"index", 0}, {"delta", delta}}}}};
    return QJsonObject{{"events", QJsonArray{chunk, QJsonObject{{"$done", true}}}}};
}

quint16 freePort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort();
}

// A child process that is killed with the test.
struct Child
{
    std::unique_ptr<QProcess> process = std::make_unique<QProcess>();
    ~Child()
    {
        if (process->state() != QProcess::NotRunning) {
            process->closeWriteChannel();
            process->kill();
            process->waitForFinished(5000);
        }
    }
};

} // namespace

class TestNetwork : public QObject
{
    Q_OBJECT

    QTemporaryDir dir;
    QSslConfiguration original = QSslConfiguration::defaultConfiguration();

    QString path(const QString& file) const { return dir.filePath(file); }

    bool openssl(const QStringList& arguments)
    {
        QProcess p;
        p.setWorkingDirectory(dir.path());
        p.start(QStringLiteral("openssl"), arguments);
        if (!p.waitForFinished(30000) || p.exitCode() != 0) {
            qWarning() << "openssl" << arguments << p.readAllStandardError();
            return false;
        }
        return true;
    }

    bool makeCa(const QString& name)
    {
        return openssl({"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days",
                        "2", "-subj", "/CN=Test " + name, "-addext", "basicConstraints=critical,CA:TRUE", "-addext",
                        "keyUsage=critical,keyCertSign,cRLSign", "-keyout", name + ".key", "-out", name + ".pem"});
    }

    bool makeLeaf(const QString& name, const QString& ca, const QString& extensions)
    {
        QFile ext(path(name + ".ext"));
        if (!ext.open(QIODevice::WriteOnly))
            return false;
        ext.write(("basicConstraints=CA:FALSE\n" + extensions + "\n").toUtf8());
        ext.close();
        return openssl({"req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj",
                        "/CN=" + name, "-keyout", name + ".key", "-out", name + ".csr"})
            && openssl({"x509", "-req", "-in", name + ".csr", "-CA", ca + ".pem", "-CAkey", ca + ".key",
                        "-CAcreateserial", "-days", "2", "-extfile", name + ".ext", "-out", name + ".pem"});
    }

    // The SOCKS5 proxy's port of the last startServer(…, socks5) call.
    quint16 socksPort = 0;

    // The scripted server (over https when `tls`) with `steps` (the last repeated), and with
    // `socks5` ("user:password") its SOCKS5 proxy too; the server's port, or 0.
    quint16 startServer(Child& child, const QJsonArray& steps, bool tls, const QString& clientCa = {},
                        const QString& socks5 = {})
    {
        const QString script = path(QStringLiteral("script-%1.json").arg(quintptr(&child)));
        QFile file(script);
        if (!file.open(QIODevice::WriteOnly))
            return 0;
        file.write(QJsonDocument(QJsonObject{{"responses", steps}, {"repeat_last", true}}).toJson());
        file.close();
        QStringList arguments{"--script", script};
        if (tls)
            arguments << "--tls-cert" << path("server.pem") << "--tls-key" << path("server.key");
        if (!clientCa.isEmpty())
            arguments << "--tls-client-ca" << path(clientCa + ".pem");
        if (!socks5.isEmpty())
            arguments << "--socks5" << socks5;
        const int lines = socks5.isEmpty() ? 1 : 2;
        child.process->setProcessChannelMode(QProcess::ForwardedErrorChannel);
        child.process->start(QStringLiteral(VI_SCRIPTED_SERVER), arguments);
        QByteArray line;
        QElapsedTimer timer;
        timer.start();
        while (line.count('\n') < lines && timer.elapsed() < 10000) {
            child.process->waitForReadyRead(200);
            line += child.process->readAllStandardOutput();
        }
        const QList<QByteArray> said = line.trimmed().split('\n');
        socksPort = said.size() == 2 && said[1].startsWith("SOCKS5 ") ? quint16(said[1].mid(7).trimmed().toUInt()) : 0;
        return said[0].startsWith("PORT ") ? quint16(said[0].mid(5).trimmed().toUInt()) : 0;
    }

    // tinyproxy on a free port demanding alice/proxy-pass-7391; its port, or 0.
    quint16 startProxy(Child& child)
    {
        const quint16 port = freePort();
        QFile config(path("tinyproxy.conf"));
        if (!config.open(QIODevice::WriteOnly))
            return 0;
        config.write(QStringLiteral("Port %1\nListen 127.0.0.1\nLogLevel Connect\nBasicAuth alice proxy-pass-7391\n").arg(port).toUtf8());
        config.close();
        child.process->start(QStringLiteral("tinyproxy"), {"-d", "-c", path("tinyproxy.conf")});
        if (!child.process->waitForStarted(5000))
            return 0;
        QElapsedTimer timer;
        timer.start();
        while (timer.elapsed() < 10000) {
            QTcpSocket probe;
            probe.connectToHost(QHostAddress::LocalHost, port);
            if (probe.waitForConnected(200))
                return port;
            QTest::qWait(50);
        }
        return 0;
    }

    // One run over a fresh provider with one model at `url`: "ok:<answer>" or "failed:<message>".
    QString runOnce(const QString& url, QList<QVariantList>* retrying = nullptr, qint32 retries = 2)
    {
        Model model;
        model.setName(QStringLiteral("m")).setUrl(QUrl(url)).setToken(QStringLiteral("sk-test")).setTimeoutMs(20000);
        Center::getInstance()->addModel(model);
        Provider provider;
        provider.addModel(model.getId(), 1).setRetries(retries);
        Center::getInstance()->addProvider(provider);
        Dialog dialog;
        dialog.setProviderId(provider.getId());
        dialog.appendMessage(Message::Role::User, QStringLiteral("hi"));
        QSignalSpy ended(&dialog, &Dialog::streamEnded);
        QSignalSpy failed(&dialog, &Dialog::runFailed);
        QSignalSpy retried(&dialog, &Dialog::retrying);
        dialog.run();
        QElapsedTimer timer;
        timer.start();
        while (ended.isEmpty() && failed.isEmpty() && timer.elapsed() < 30000)
            QTest::qWait(10);
        if (retrying)
            *retrying = retried;
        Center::getInstance()->removeProvider(provider.getId());
        Center::getInstance()->removeModel(model.getId());
        if (!failed.isEmpty())
            return "failed:" + failed.first().first().toString();
        return ended.isEmpty() ? QStringLiteral("no answer") : "ok:" + ended.first().first().toString();
    }

    void trustCa(bool trust)
    {
        QSslConfiguration tls = original;
        if (trust)
            tls.addCaCertificates(path("ca.pem"));
        QSslConfiguration::setDefaultConfiguration(tls);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(dir.isValid());
        QVERIFY(makeCa("ca"));
        QVERIFY(makeCa("client-ca"));
        QVERIFY(makeLeaf("server", "ca",
            "subjectAltName=DNS:localhost,DNS:" + QHostInfo::localHostName() + "\nextendedKeyUsage=serverAuth"));
        QVERIFY(makeLeaf("client", "client-ca", "extendedKeyUsage=clientAuth"));
    }

    void cleanup()
    {
        QNetworkProxyFactory::setApplicationProxyFactory(nullptr);
        QNetworkProxy::setApplicationProxy(QNetworkProxy::NoProxy);
        QSslConfiguration::setDefaultConfiguration(original);
    }

    // The check: a model reached through the company proxy, over https with the
    // company CA, both configured through Qt's own API. Qt never proxies localhost or a
    // loopback address (QNetworkProxyFactory::proxyForQuery answers NoProxy), so the model is
    // addressed by this machine's host name, which resolves to 127.0.0.1 here.
    void applicationProxyAndCompanyCa()
    {
        const QString host = QHostInfo::localHostName();
        if (!QHostInfo::fromName(host).addresses().contains(QHostAddress(QHostAddress::LocalHost)))
            QSKIP(qPrintable("the host name " + host + " does not resolve to 127.0.0.1 on this machine"));
        Child server, proxy;
        const quint16 port = startServer(server, {hello()}, true);
        QVERIFY(port);
        const quint16 proxyPort = startProxy(proxy);
        QVERIFY(proxyPort);
        const QString url = QStringLiteral("https://%1:%2/v1").arg(host).arg(port);
        const QByteArray connect = QStringLiteral("CONNECT %1:%2 HTTP/1.1").arg(host).arg(port).toUtf8();

        trustCa(true);
        QNetworkProxy::setApplicationProxy(
            QNetworkProxy(QNetworkProxy::HttpProxy, QStringLiteral("127.0.0.1"), proxyPort, "alice", "proxy-pass-7391"));
        QCOMPARE(runOnce(url), QStringLiteral("ok:Hello"));
        QByteArray log;
        QTRY_VERIFY((log += proxy.process->readAllStandardOutput()).contains(connect));

        // Read at each run: the wrong password now, then no proxy at all.
        QNetworkProxy::setApplicationProxy(
            QNetworkProxy(QNetworkProxy::HttpProxy, QStringLiteral("127.0.0.1"), proxyPort, "alice", "wrong-pw"));
        const QString refused = runOnce(url, nullptr, 0);
        QVERIFY2(refused.startsWith(QStringLiteral("failed:[ProxyError] proxy 127.0.0.1:%1: ").arg(proxyPort)), qPrintable(refused));
        QVERIFY(!refused.contains(QStringLiteral("wrong-pw")));
        QTest::qWait(200);
        proxy.process->readAllStandardOutput(); // the refused CONNECT was logged too
        QNetworkProxy::setApplicationProxy(QNetworkProxy::NoProxy);
        QCOMPARE(runOnce(url), QStringLiteral("ok:Hello"));
        QTest::qWait(200);
        QVERIFY(!proxy.process->readAllStandardOutput().contains("CONNECT"));

        // Without the CA the same server is a TLS error; VerifyNone accepts it again.
        trustCa(false);
        const QString untrusted = runOnce(url, nullptr, 0);
        QVERIFY2(untrusted.startsWith(QStringLiteral("failed:[TlsError] %1:%2: ").arg(host).arg(port)), qPrintable(untrusted));
        QSslConfiguration none = original;
        none.setPeerVerifyMode(QSslSocket::VerifyNone);
        QSslConfiguration::setDefaultConfiguration(none);
        QCOMPARE(runOnce(url), QStringLiteral("ok:Hello"));
    }

    // A factory the application installed decides too (Qt asks it for everything but
    // localhost and loopback addresses).
    void applicationProxyFactory()
    {
        const QString host = QHostInfo::localHostName();
        if (!QHostInfo::fromName(host).addresses().contains(QHostAddress(QHostAddress::LocalHost)))
            QSKIP(qPrintable("the host name " + host + " does not resolve to 127.0.0.1 on this machine"));
        struct Everything : QNetworkProxyFactory
        {
            quint16 port;
            explicit Everything(quint16 p) : port(p) {}
            QList<QNetworkProxy> queryProxy(const QNetworkProxyQuery&) override
            {
                return {QNetworkProxy(QNetworkProxy::HttpProxy, QStringLiteral("127.0.0.1"), port, "alice", "proxy-pass-7391")};
            }
        };
        Child server, proxy;
        const quint16 port = startServer(server, {hello()}, true);
        const quint16 proxyPort = startProxy(proxy);
        QVERIFY(port && proxyPort);
        trustCa(true);
        QNetworkProxyFactory::setApplicationProxyFactory(new Everything(proxyPort));
        QCOMPARE(runOnce(QStringLiteral("https://%1:%2/v1").arg(host).arg(port)), QStringLiteral("ok:Hello"));
        QByteArray log;
        QTRY_VERIFY((log += proxy.process->readAllStandardOutput()).contains(
            QStringLiteral("CONNECT %1:%2 HTTP/1.1").arg(host).arg(port).toUtf8()));
    }

    // A SOCKS5 application proxy with credentials: the name goes to the proxy (socks5h).
    void socks5ApplicationProxy()
    {
        const QString host = QHostInfo::localHostName();
        if (!QHostInfo::fromName(host).addresses().contains(QHostAddress(QHostAddress::LocalHost)))
            QSKIP(qPrintable("the host name " + host + " does not resolve to 127.0.0.1 on this machine"));
        Child server;
        const quint16 port = startServer(server, {hello()}, true, {}, QStringLiteral("bob:pw"));
        QVERIFY(port && socksPort);
        trustCa(true);
        const QString url = QStringLiteral("https://%1:%2/v1").arg(host).arg(port);
        QNetworkProxy::setApplicationProxy(QNetworkProxy(QNetworkProxy::Socks5Proxy, QStringLiteral("127.0.0.1"), socksPort, "bob", "pw"));
        QCOMPARE(runOnce(url), QStringLiteral("ok:Hello"));
        QNetworkProxy::setApplicationProxy(QNetworkProxy(QNetworkProxy::Socks5Proxy, QStringLiteral("127.0.0.1"), socksPort, "bob", "nope"));
        const QString refused = runOnce(url, nullptr, 0);
        QVERIFY2(refused.startsWith(QStringLiteral("failed:[ProxyError] proxy 127.0.0.1:%1: ").arg(socksPort)), qPrintable(refused));
    }

    void clientCertificateFromQt()
    {
        Child server;
        const quint16 port = startServer(server, {hello()}, true, QStringLiteral("client-ca"));
        QVERIFY(port);
        const QString url = QStringLiteral("https://localhost:%1/v1").arg(port);
        trustCa(true);
        QVERIFY(runOnce(url, nullptr, 0).startsWith(QStringLiteral("failed:[TlsError]")));
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        const QList<QSslCertificate> certificate = QSslCertificate::fromPath(path("client.pem"));
        QCOMPARE(certificate.size(), 1);
        QFile keyFile(path("client.key"));
        QVERIFY(keyFile.open(QIODevice::ReadOnly));
        const QSslKey key(keyFile.readAll(), QSsl::Ec);
        QVERIFY(!key.isNull());
        tls.setLocalCertificate(certificate.first());
        tls.setPrivateKey(key);
        QSslConfiguration::setDefaultConfiguration(tls);
        QCOMPARE(runOnce(url), QStringLiteral("ok:Hello"));
    }

    void retryingSignal()
    {
        Child server;
        const QJsonObject busy{{"status", 429},
                               {"headers", QJsonObject{{"Retry-After", "0"}}},
                               {"body", QJsonObject{{"error", QJsonObject{{"message", "slow down"}}}}}};
        const quint16 port = startServer(server, {busy, hello()}, false);
        QVERIFY(port);
        QList<QVariantList> retrying;
        QCOMPARE(runOnce(QStringLiteral("http://127.0.0.1:%1/v1").arg(port), &retrying), QStringLiteral("ok:Hello"));
        QCOMPARE(retrying.size(), 1);
        QCOMPARE(retrying.first().at(0).toInt(), 1);
        QCOMPARE(retrying.first().at(1).toInt(), 0);
        QVERIFY(retrying.first().at(2).toString().contains(QStringLiteral("HTTP 429")));
    }
};

QTEST_GUILESS_MAIN(TestNetwork)
#include "tst_network.moc"
