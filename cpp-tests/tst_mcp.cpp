// SPDX-License-Identifier: MIT
//
// MCP (SPEC §B.5), through the public C++ API.
#include <Agent/MCP.h>
#include <Utility/JsonConfig.h>

#include <QtCore/QMetaEnum>
#include <QtTest/QtTest>

using Visindigo::Agent::MCP;
using Visindigo::Utility::JsonConfig;
using Transport = Visindigo::Agent::MCP::Transport;

class TestMcp : public QObject
{
    Q_OBJECT

private slots:
    void transportValuesAreStdio0Sse1StreamableHttp2()
    {
        QCOMPARE(int(Transport::Stdio), 0);
        QCOMPARE(int(Transport::Sse), 1);
        QCOMPARE(int(Transport::StreamableHttp), 2);
        QCOMPARE(QMetaEnum::fromType<Transport>().keyCount(), 3);
    }

    void defaultsAreStdioEnabledAutoStart()
    {
        const MCP m;
        QCOMPARE(m.getTransport(), Transport::Stdio);
        QVERIFY(m.isEnabled());
        QVERIFY(m.isAutoStart());
        QVERIFY(m.getName().isEmpty());
        QVERIFY(m.getUrl().isEmpty());
        QVERIFY(m.getCommand().isEmpty());
        QVERIFY(m.getArguments().isEmpty());
        QVERIFY(m.getEnvironment().isEmpty());
        QVERIFY(m.getHeaders().isEmpty());
        QVERIFY(!m.isValid());
        QCOMPARE(MCP(QStringLiteral("fs")).getName(), QStringLiteral("fs"));
    }

    void settersChainAndGettersReadBack()
    {
        MCP m;
        const QMap<QString, QString> env{{QStringLiteral("A"), QStringLiteral("1")}, {QStringLiteral("B"), QString()}};
        const QMap<QString, QString> headers{{QStringLiteral("Authorization"), QStringLiteral("Bearer x")}};
        MCP& r = m.setName(QStringLiteral("n")).setTransport(Transport::Sse).setUrl(QUrl(QStringLiteral("http://h/sse")))
                     .setCommand(QStringLiteral("node")).setArguments({QStringLiteral("a b"), QStringLiteral("c")})
                     .setEnvironment(env).setHeaders(headers).setEnabled(false).setAutoStart(false);
        QCOMPARE(&r, &m);
        QCOMPARE(m.getName(), QStringLiteral("n"));
        QCOMPARE(m.getTransport(), Transport::Sse);
        QCOMPARE(m.getUrl(), QUrl(QStringLiteral("http://h/sse")));
        QCOMPARE(m.getCommand(), QStringLiteral("node"));
        QCOMPARE(m.getArguments(), (QStringList{QStringLiteral("a b"), QStringLiteral("c")}));
        QCOMPARE(m.getEnvironment(), env);
        QCOMPARE(m.getHeaders(), headers);
        QVERIFY(!m.isEnabled());
        QVERIFY(!m.isAutoStart());
    }

    void isValidStdioNeedsACommandOthersAUrlWithAScheme()
    {
        MCP m(QStringLiteral("n"));
        QVERIFY(!m.isValid());
        m.setCommand(QStringLiteral("server"));
        QVERIFY(m.isValid());
        m.setTransport(Transport::StreamableHttp);
        QVERIFY(!m.isValid());
        m.setUrl(QUrl(QStringLiteral("localhost/mcp")));
        QVERIFY(!m.isValid());
        m.setUrl(QUrl(QStringLiteral("https://localhost/mcp")));
        QVERIFY(m.isValid());
        m.setTransport(Transport::Sse);
        QVERIFY(m.isValid());
        m.setName(QString());
        QVERIFY(!m.isValid());
    }

    void toJsonHasEveryFieldWithTransportAsText()
    {
        MCP m(QStringLiteral("n"));
        m.setTransport(Transport::StreamableHttp).setEnvironment({{QStringLiteral("K"), QStringLiteral("V")}});
        const JsonConfig j = m.toJson();
        QStringList keys = j.keys();
        keys.sort();
        QCOMPARE(keys, (QStringList{QStringLiteral("arguments"), QStringLiteral("autoStart"), QStringLiteral("command"),
                                    QStringLiteral("enabled"), QStringLiteral("environment"), QStringLiteral("headers"),
                                    QStringLiteral("name"), QStringLiteral("transport"), QStringLiteral("url")}));
        QCOMPARE(j.getString(QStringLiteral("transport")), QStringLiteral("streamableHttp"));
        QCOMPARE(MCP().toJson().getString(QStringLiteral("transport")), QStringLiteral("stdio"));
        QCOMPARE(MCP().setTransport(Transport::Sse).toJson().getString(QStringLiteral("transport")), QStringLiteral("sse"));
        QCOMPARE(j.getString(QStringLiteral("environment.K")), QStringLiteral("V"));
        QVERIFY(j.isObject(QStringLiteral("headers")));
        QVERIFY(j.isArray(QStringLiteral("arguments")));
    }

    void transportIsReadCaseInsensitivelyUnknownIsStdio()
    {
        const struct { const char* text; Transport t; } cases[] = {
            {"SSE", Transport::Sse}, {"sse", Transport::Sse}, {"StreamableHTTP", Transport::StreamableHttp},
            {"streamablehttp", Transport::StreamableHttp}, {"STDIO", Transport::Stdio}, {"websocket", Transport::Stdio},
            {"", Transport::Stdio}};
        for (const auto& c : cases) {
            MCP m;
            m.setTransport(Transport::Sse);
            m.fromJson(JsonConfig(QStringLiteral("{\"name\":\"n\",\"transport\":\"%1\"}").arg(QLatin1String(c.text))));
            QCOMPARE(m.getTransport(), c.t);
        }
    }

    void fromJsonRoundTripsAndReturnsIsValid()
    {
        MCP a(QStringLiteral("n"));
        a.setTransport(Transport::Sse).setUrl(QUrl(QStringLiteral("http://h/sse")))
            .setHeaders({{QStringLiteral("X"), QStringLiteral("y")}}).setArguments({QStringLiteral("1")}).setAutoStart(false);
        MCP b;
        QVERIFY(b.fromJson(a.toJson()));
        QCOMPARE(b.toJson().toString(), a.toJson().toString());
        MCP c;
        QVERIFY(!c.fromJson(JsonConfig(QStringLiteral("{\"name\":\"n\"}")))); // stdio without command
    }

    void copiesAreIndependent()
    {
        MCP a(QStringLiteral("a"));
        MCP b(a);
        b.setName(QStringLiteral("b")).setArguments({QStringLiteral("x")});
        QCOMPARE(a.getName(), QStringLiteral("a"));
        QVERIFY(a.getArguments().isEmpty());
        MCP c;
        c = b;
        QCOMPARE(c.getArguments(), QStringList{QStringLiteral("x")});
    }

    void moveKeepsTheValueAndMovedFromIsUsable()
    {
        MCP a(QStringLiteral("a"));
        MCP b(std::move(a));
        QCOMPARE(b.getName(), QStringLiteral("a"));
        QVERIFY(!a.isValid());
        (void)a.getEnvironment();
        (void)a.toJson();
        QCOMPARE(a.getTransport(), Transport::Stdio);
        a.setName(QStringLiteral("again"));
        QCOMPARE(a.getName(), QStringLiteral("again"));
        MCP c;
        c = std::move(b);
        QCOMPARE(c.getName(), QStringLiteral("a"));
        QVERIFY(std::is_nothrow_move_constructible_v<MCP>);
        QCOMPARE(QVariant::fromValue(c).value<MCP>().getName(), QStringLiteral("a"));
    }

    void fromJsonOfAnArrayRootChangesNothing()
    {
        MCP m(QStringLiteral("keep"));
        QVERIFY(!m.fromJson(JsonConfig(QStringLiteral("[]"))));
        QCOMPARE(m.getName(), QStringLiteral("keep"));
    }

    void fromJsonWithWronglyTypedFieldsDoesNotCrash()
    {
        MCP m;
        QVERIFY(!m.fromJson(JsonConfig(QStringLiteral(
            "{\"name\":1,\"transport\":2,\"url\":[],\"command\":{},\"arguments\":\"a\",\"environment\":[1],\"headers\":{\"k\":5},\"enabled\":\"no\",\"autoStart\":0}"))));
        (void)m.toJson();
        (void)m.getHeaders();
        (void)m.getArguments();
        (void)m.getTransport();
    }

    void loneSurrogatesAndEmptyStringsDoNotCrash()
    {
        MCP m(QString(QChar(0xD800)));
        m.setCommand(QString(QChar(0xDC00))).setArguments({QString(QChar(0xD800))})
            .setEnvironment({{QString(QChar(0xD800)), QString(QChar(0xDC00))}, {QString(), QString()}})
            .setHeaders({{QString(), QString(QChar(0xD800))}});
        QCOMPARE(m.getName().size(), 1);
        QVERIFY(m.isValid());
        MCP back;
        QVERIFY(back.fromJson(m.toJson()));
        QCOMPARE(m.getArguments(), QStringList{QString(QChar(0xFFFD))});
        QCOMPARE(m.getEnvironment().size(), 2);
        QCOMPARE(m.getHeaders().size(), 1);
        QCOMPARE(back.getArguments(), m.getArguments());
        QCOMPARE(back.getEnvironment(), m.getEnvironment());
        m.setUrl(QUrl()).setCommand(QString());
        QVERIFY(!m.isValid());
    }
};

QTEST_APPLESS_MAIN(TestMcp)
#include "tst_mcp.moc"
