// SPDX-License-Identifier: MIT
//
// MCP (SPEC §B.5), through the public C++ API; and the client features of SPEC §H.4 against
// tests/mcp_servers/features_server.py (the official MCP Python SDK) on real Qt event loops.
// (No "//" inside raw string literals here: moc reads it as a comment and skips the class.)
#include <Agent/Center.h>
#include <Agent/Dialog.h>
#include <Agent/MCP.h>
#include <Utility/JsonConfig.h>

#include "Registrations.h"
#include "ScriptedServer.h"

#include <QtCore/QMetaEnum>
#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtCore/QThread>
#include <QtCore/QUrlQuery>
#include <QtNetwork/QNetworkAccessManager>
#include <QtNetwork/QNetworkReply>
#include <QtNetwork/QTcpServer>
#include <QtNetwork/QTcpSocket>
#include <QtTest/QtTest>

using Visindigo::Agent::Center;
using Visindigo::Agent::Dialog;
using Visindigo::Agent::MCP;
using Visindigo::Agent::Message;
using Visindigo::Agent::Model;
using Visindigo::Utility::JsonConfig;
using Transport = Visindigo::Agent::MCP::Transport;
using namespace ScriptedSteps;

// The features server over stdio, speaking 2025-11-25 only (--legacy: it refuses
// server/discover), whose tools ask through that revision's server requests.
static MCP featuresServer(const QString& name)
{
    MCP m(name);
    m.setCommand(QStringLiteral(VI_PYTHON))
        .setArguments({QStringLiteral(VISINDIGO_AGENT_SOURCE_DIR "/tests/mcp_servers/features_server.py"), QStringLiteral("stdio"),
                       QStringLiteral("--legacy")});
    return m;
}

// The revision server over stdio: 2026-07-28, or 2025-11-25 with `legacy`.
static MCP revisionServer(const QString& name, bool legacy)
{
    MCP m(name);
    QStringList arguments{QStringLiteral(VISINDIGO_AGENT_SOURCE_DIR "/tests/mcp_servers/revision_server.py"), QStringLiteral("stdio")};
    if (legacy)
        arguments << QStringLiteral("--legacy");
    m.setCommand(QStringLiteral(VI_PYTHON)).setArguments(arguments);
    return m;
}

class TestMcp : public QObject
{
    Q_OBJECT

    ScriptedServer server;
    Registrations registered;

private slots:
    void initTestCase()
    {
        QString error;
        QVERIFY2(server.start(&error), qPrintable(error));
    }

    void cleanupTestCase()
    {
        server.stop();
        Center::getInstance()->removeMCP(QStringLiteral("notes"));
    }

    void cleanup() { registered.clear(); }

    void rootsAndCallTimeoutAreWrittenOnlyWhenSet()
    {
        MCP m(QStringLiteral("n"));
        QCOMPARE(m.getCallTimeout(), 60000);
        QVERIFY(m.getRoots().isEmpty());
        QVERIFY(!m.toJson().contains(QStringLiteral("roots")) && !m.toJson().contains(QStringLiteral("callTimeout")));
        m.setRoots({QStringLiteral("file:///work")}).setCallTimeout(1500).setCallTimeout(0).setSamplingProviderId(QStringLiteral("p"));
        QCOMPARE(m.getRoots(), QStringList{QStringLiteral("file:///work")});
        QCOMPARE(m.getCallTimeout(), 1500);
        MCP back;
        back.fromJson(m.toJson());
        QCOMPARE(back.getRoots(), m.getRoots());
        QCOMPARE(back.getCallTimeout(), 1500);
        QCOMPARE(back.getSamplingProviderId(), QStringLiteral("p"));
    }

    void requestMCPAnswersOnTheContextsThreadAndNotificationsArrive()
    {
        Center* center = Center::getInstance();
        center->addMCP(featuresServer(QStringLiteral("notes")));
        QSignalSpy notified(center, &Center::mcpNotification);

        JsonConfig result;
        QString error = QStringLiteral("not called");
        QThread* calledOn = nullptr;
        center->requestMCP(QStringLiteral("notes"), QStringLiteral("resources/read"),
                           JsonConfig(QStringLiteral("{\"uri\": \"note://greeting\"}")), this,
                           [&](const JsonConfig& r, const QString& e) {
                               result = r;
                               error = e;
                               calledOn = QThread::currentThread();
                           });
        QTRY_VERIFY_WITH_TIMEOUT(calledOn != nullptr, 30000);
        QCOMPARE(calledOn, thread());
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(result.getString(QStringLiteral("contents.0.text")), QStringLiteral("hello from the features server"));

        bool announced = false;
        center->requestMCP(QStringLiteral("notes"), QStringLiteral("tools/call"),
                           JsonConfig(QStringLiteral("{\"name\": \"announce\", \"arguments\": {\"uri\": \"note://x\"}}")), this,
                           [&](const JsonConfig&, const QString& e) { announced = e.isEmpty(); });
        QTRY_VERIFY_WITH_TIMEOUT(announced, 30000);
        QTRY_VERIFY(notified.size() >= 1);
        QCOMPARE(notified.at(0).at(0).toString(), QStringLiteral("notes"));
        QCOMPARE(notified.at(0).at(1).toString(), QStringLiteral("notifications/resources/updated"));
        QCOMPARE(notified.at(0).at(2).value<JsonConfig>().getString(QStringLiteral("uri")), QStringLiteral("note://x"));

        // No such server: the reason, still through the context.
        QString missing;
        center->requestMCP(QStringLiteral("nobody"), QStringLiteral("resources/list"), JsonConfig(), this,
                           [&](const JsonConfig&, const QString& e) { missing = e; });
        QTRY_VERIFY(!missing.isEmpty());
        QVERIFY2(missing.contains(QStringLiteral("nobody")), qPrintable(missing));
        // A context destroyed first is not called.
        bool late = false;
        auto* gone = new QObject;
        center->requestMCP(QStringLiteral("notes"), QStringLiteral("prompts/list"), JsonConfig(), gone,
                           [&](const JsonConfig&, const QString&) { late = true; });
        delete gone;
        QTest::qWait(500);
        QVERIFY(!late);
    }

    void getMCPServerInfoTellsTheRevisionOnceConnected()
    {
        Center* center = Center::getInstance();
        for (const bool legacy : {false, true}) {
            const QString name = QStringLiteral("rev");
            center->addMCP(revisionServer(name, legacy));
            QVERIFY(center->getMCPServerInfo(name).isEmpty());
            QVERIFY(center->getMCPServerInfo(QStringLiteral("nobody")).isEmpty());
            QString error = QStringLiteral("not called");
            center->requestMCP(name, QStringLiteral("tools/list"), JsonConfig(), this,
                               [&](const JsonConfig&, const QString& e) { error = e; });
            QTRY_VERIFY_WITH_TIMEOUT(error != QStringLiteral("not called"), 30000);
            QVERIFY2(error.isEmpty(), qPrintable(error));
            const JsonConfig info = center->getMCPServerInfo(name);
            QCOMPARE(info.getString(QStringLiteral("protocolVersion")), legacy ? QStringLiteral("2025-11-25") : QStringLiteral("2026-07-28"));
            QCOMPARE(info.getString(QStringLiteral("serverInfo.name")), QStringLiteral("vi-test-revision"));
            QVERIFY(info.contains(QStringLiteral("capabilities.tools")));
            center->removeMCP(name);
            QTRY_VERIFY(center->getMCPServerInfo(name).isEmpty());
        }
    }

    void anElicitationIsAnsweredFromTheSignal()
    {
        Model model;
        model.setName(QStringLiteral("mcp-model")).setUrl(server.url(QStringLiteral("/v1"))).setToken(QStringLiteral("t"));
        Dialog* dialog = registered.newDialog(this, {registered.addModel(model)});
        dialog->addMCP(featuresServer(QStringLiteral("feat")));
        QVERIFY(server.setScript({sse({toolCallChunk(QStringLiteral("c1"), QStringLiteral("feat__book"), QStringLiteral("{}")), done()}),
                                  answer({QStringLiteral("Booked.")})}));
        QString asker;
        QString question;
        JsonConfig schema;
        // What an application does: show a form, then answer (here at once, with the values).
        connect(dialog, &Dialog::mcpElicitationRequested, this,
                [&](const QString& id, const QString& serverName, const QString& message, const JsonConfig& requested) {
                    asker = serverName;
                    question = message;
                    schema = requested;
                    QVERIFY(dialog->answerMCPElicitation(id, QStringLiteral("accept"),
                                                         JsonConfig(QStringLiteral(R"({"name": "Ada", "guests": 4})"))));
                    QVERIFY(!dialog->answerMCPElicitation(id, QStringLiteral("accept")));
                });
        QSignalSpy finished(dialog, &Dialog::runFinished);
        dialog->appendMessage(Message::Role::User, QStringLiteral("A table, please."));
        dialog->run();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30000);
        QCOMPARE(asker, QStringLiteral("feat"));
        QCOMPARE(question, QStringLiteral("Who is the table for?"));
        QCOMPARE(schema.getString(QStringLiteral("properties.guests.type")), QStringLiteral("integer"));
        QCOMPARE(dialog->getMessages().at(2).getContent(), QStringLiteral("booked for Ada, 4 guests"));
    }

    void aUrlElicitationOfTheReferenceServerIsAnsweredFromTheSignal()
    {
        // @modelcontextprotocol/server-everything (tests/npm, installed by tools/test.sh).
        const QString everything = QStringLiteral(VISINDIGO_AGENT_SOURCE_DIR "/tests/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
        QVERIFY2(QFileInfo::exists(everything), "npm ci --prefix tests/npm (tools/test.sh does it)");
        MCP entry(QStringLiteral("ev"));
        entry.setCommand(QStringLiteral("node")).setArguments({everything, QStringLiteral("stdio")});
        Model model;
        model.setName(QStringLiteral("mcp-model")).setUrl(server.url(QStringLiteral("/v1"))).setToken(QStringLiteral("t"));
        Dialog* dialog = registered.newDialog(this, {registered.addModel(model)});
        dialog->addMCP(entry);
        // (Not a raw string: moc reads the "//" in it as a comment.)
        const QString arguments = QString::fromUtf8(QJsonDocument(QJsonObject{{"url", "https://example.com/pay"}, {"message", "Pay to go on."}}).toJson(QJsonDocument::Compact));
        QVERIFY(server.setScript({sse({toolCallChunk(QStringLiteral("c1"), QStringLiteral("ev__trigger-url-elicitation"), arguments), done()}),
                                  answer({QStringLiteral("Paid.")})}));
        QUrl opened;
        QString said;
        // What an application does: QDesktopServices::openUrl(url), then accept.
        connect(dialog, &Dialog::mcpUrlElicitationRequested, this,
                [&](const QString& id, const QString&, const QString& message, const QUrl& url) {
                    opened = url;
                    said = message;
                    QVERIFY(dialog->answerMCPElicitation(id, QStringLiteral("accept")));
                });
        QSignalSpy finished(dialog, &Dialog::runFinished);
        dialog->appendMessage(Message::Role::User, QStringLiteral("Pay, please."));
        dialog->run();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30000);
        QCOMPARE(opened, QUrl(QStringLiteral("https://example.com/pay")));
        QCOMPARE(said, QStringLiteral("Pay to go on."));
        QVERIFY2(dialog->getMessages().at(2).getContent().contains(QLatin1String("User completed the URL elicitation flow")),
                 qPrintable(dialog->getMessages().at(2).getContent()));
    }

    // SPEC §I.3.4: server-everything's task-only tool is offered, called as a task, its
    // statuses signalled as mcpProgress and its result in the Tool message.
    void aTaskToolOfTheReferenceServerRunsThroughADialog()
    {
        const QString everything = QStringLiteral(VISINDIGO_AGENT_SOURCE_DIR "/tests/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
        QVERIFY2(QFileInfo::exists(everything), "npm ci --prefix tests/npm (tools/test.sh does it)");
        MCP entry(QStringLiteral("ev"));
        entry.setCommand(QStringLiteral("node")).setArguments({everything, QStringLiteral("stdio")});
        Model model;
        model.setName(QStringLiteral("mcp-model")).setUrl(server.url(QStringLiteral("/v1"))).setToken(QStringLiteral("t"));
        Dialog* dialog = registered.newDialog(this, {registered.addModel(model)});
        dialog->addMCP(entry);
        const QString arguments = QString::fromUtf8(QJsonDocument(QJsonObject{{"topic", "owls"}}).toJson(QJsonDocument::Compact));
        QVERIFY(server.setScript({sse({toolCallChunk(QStringLiteral("c1"), QStringLiteral("ev__simulate-research-query"), arguments), done()}),
                                  answer({QStringLiteral("Researched.")})}));
        QSignalSpy progress(dialog, &Dialog::mcpProgress);
        QSignalSpy finished(dialog, &Dialog::runFinished);
        dialog->appendMessage(Message::Role::User, QStringLiteral("Research owls."));
        dialog->run();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30000);
        QVERIFY2(dialog->getMessages().at(2).getContent().contains(QLatin1String("# Research Report: owls")),
                 qPrintable(dialog->getMessages().at(2).getContent()));
        QStringList statuses;
        for (const QList<QVariant>& signal : progress) {
            QCOMPARE(signal.at(0).toString(), QStringLiteral("ev"));
            QCOMPARE(signal.at(1).toString(), QStringLiteral("simulate-research-query"));
            statuses << signal.at(4).toString();
        }
        QVERIFY2(statuses.contains(QStringLiteral("Gathering sources...")) && statuses.contains(QStringLiteral("Generating report...")),
                 qPrintable(statuses.join(QStringLiteral(" | "))));
    }

    void progressIsSignalledAndKeepsALongCallAlive()
    {
        Model model;
        model.setName(QStringLiteral("mcp-model")).setUrl(server.url(QStringLiteral("/v1"))).setToken(QStringLiteral("t"));
        Dialog* dialog = registered.newDialog(this, {registered.addModel(model)});
        dialog->addMCP(featuresServer(QStringLiteral("feat")).setCallTimeout(2000));
        QVERIFY(server.setScript({sse({toolCallChunk(QStringLiteral("c1"), QStringLiteral("feat__progress"),
                                                     QStringLiteral(R"({"steps": 5, "interval": 0.5})")),
                                       done()}),
                                  answer({QStringLiteral("Done.")})}));
        QSignalSpy progress(dialog, &Dialog::mcpProgress);
        QSignalSpy finished(dialog, &Dialog::runFinished);
        dialog->appendMessage(Message::Role::User, QStringLiteral("Work."));
        dialog->run();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30000);
        QCOMPARE(dialog->getMessages().at(2).getContent(), QStringLiteral("done after 5 steps"));
        QCOMPARE(progress.size(), 5);
        for (int i = 0; i < 5; ++i) {
            QCOMPARE(progress.at(i).at(0).toString(), QStringLiteral("feat"));
            QCOMPARE(progress.at(i).at(1).toString(), QStringLiteral("progress"));
            QCOMPARE(progress.at(i).at(2).toDouble(), double(i + 1));
            QCOMPARE(progress.at(i).at(3).toDouble(), 5.0);
            QCOMPARE(progress.at(i).at(4).toString(), QStringLiteral("step %1 of 5").arg(i + 1));
        }
    }

    // SPEC §H.4.6 against tests/mcp_servers/oauth_server.py (the MCP SDK's own authorization
    // server): the test is the application that opens the authorize url in "the browser" (a
    // QNetworkAccessManager following the redirect to the library's loopback listener).
    void oauthAuthorizesThroughTheSignalAndRestoresStoredTokens()
    {
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost));
        const quint16 port = probe.serverPort();
        probe.close();
        QTemporaryDir dir;
        QProcess python;
        python.start(QStringLiteral(VI_PYTHON),
                     {QStringLiteral(VISINDIGO_AGENT_SOURCE_DIR "/tests/mcp_servers/oauth_server.py"), QStringLiteral("streamable-http"),
                      QString::number(port), dir.filePath(QStringLiteral("oauth.jsonl"))});
        QVERIFY(python.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(
            [port] {
                QTcpSocket socket;
                socket.connectToHost(QHostAddress::LocalHost, port);
                return socket.waitForConnected(200);
            }(),
            30000);

        Center* center = Center::getInstance();
        QNetworkAccessManager browser;
        QString page;
        QSignalSpy authorizationRequired(center, &Center::mcpAuthorizationRequired);
        QSignalSpy tokensChanged(center, &Center::mcpTokensChanged);
        const QMetaObject::Connection opening =
            connect(center, &Center::mcpAuthorizationRequired, this, [&](const QString&, const QUrl& url) {
                QNetworkRequest request(url);
                request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::NoLessSafeRedirectPolicy);
                QNetworkReply* reply = browser.get(request);
                connect(reply, &QNetworkReply::finished, this, [&page, reply] {
                    page = QString::fromUtf8(reply->readAll());
                    reply->deleteLater();
                });
            });
        const QUrl url(QStringLiteral("http://127.0.0.1:%1/mcp").arg(port));
        MCP entry(QStringLiteral("secured"));
        entry.setTransport(Transport::StreamableHttp).setUrl(url);
        center->addMCP(entry);
        const auto whoami = [&] {
            QString said = QStringLiteral("no answer");
            bool done = false;
            center->requestMCP(QStringLiteral("secured"), QStringLiteral("tools/call"),
                               JsonConfig(QStringLiteral("{\"name\": \"whoami\", \"arguments\": {}}")), this,
                               [&](const JsonConfig& r, const QString& e) {
                                   said = e.isEmpty() ? r.getString(QStringLiteral("content.0.text")) : e;
                                   done = true;
                               });
            [&] { QTRY_VERIFY_WITH_TIMEOUT(done, 60000); }();
            return said;
        };

        const QString first = whoami();
        QVERIFY2(first.endsWith(QStringLiteral("token generation 2")), qPrintable(first));
        QCOMPARE(authorizationRequired.size(), 1);
        QCOMPARE(authorizationRequired.at(0).at(0).toString(), QStringLiteral("secured"));
        const QUrl authorize = authorizationRequired.at(0).at(1).toUrl();
        const QUrlQuery query(authorize);
        QCOMPARE(authorize.path(), QStringLiteral("/authorize"));
        QCOMPARE(query.queryItemValue(QStringLiteral("code_challenge_method")), QStringLiteral("S256"));
        QCOMPARE(query.queryItemValue(QStringLiteral("resource"), QUrl::FullyDecoded), url.toString());
        QVERIFY(page.contains(QStringLiteral("Authorization complete")));
        QCOMPARE(tokensChanged.size(), 2); // exchanged, then refreshed: the first token lives 30 s
        const JsonConfig tokens = tokensChanged.at(1).at(1).value<JsonConfig>();
        const QString access = tokens.getString(QStringLiteral("accessToken"));
        QVERIFY2(access.startsWith(QStringLiteral("access-2-")), qPrintable(tokens.toString()));
        QVERIFY(!tokens.getString(QStringLiteral("refreshToken")).isEmpty());
        QVERIFY(!center->toJson().toString().contains(access));
        QVERIFY(!center->getMCP(QStringLiteral("secured")).toJson().toString().contains(access));

        // The next session: the stored tokens come back with the entry; nobody is asked.
        center->removeMCP(QStringLiteral("secured"));
        entry.setOAuthTokens(tokens);
        QCOMPARE(entry.getOAuthTokens().getString(QStringLiteral("accessToken")), access);
        QVERIFY(!entry.toJson().toString().contains(access));
        center->addMCP(entry);
        QCOMPARE(whoami(), first);
        QCOMPARE(authorizationRequired.size(), 1);

        disconnect(opening);
        center->removeMCP(QStringLiteral("secured"));
        python.kill();
        python.waitForFinished();
    }

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

QTEST_GUILESS_MAIN(TestMcp)
#include "tst_mcp.moc"
