// SPDX-License-Identifier: MIT
//
// The project's scripted OpenAI-compatible server (scripted-server/, built by cargo next to
// the Rust library) as a child process of a QtTest, and the JSON of the steps it plays: the
// tests that run dialogs (tst_run, tst_control) share it.
#ifndef VI_TESTS_SCRIPTED_SERVER_H
#define VI_TESTS_SCRIPTED_SERVER_H

#include <QtCore/QElapsedTimer>
#include <QtCore/QEventLoop>
#include <QtCore/QFileInfo>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtCore/QTimer>
#include <QtCore/QUrl>
#include <QtNetwork/QNetworkAccessManager>
#include <QtNetwork/QNetworkReply>
#include <QtNetwork/QNetworkRequest>

#ifndef VI_SCRIPTED_SERVER
#error "cpp-tests/CMakeLists.txt defines VI_SCRIPTED_SERVER"
#endif

namespace ScriptedSteps {

inline QJsonObject deltaChunk(const QJsonObject& delta)
{
    return QJsonObject{{"choices", QJsonArray{QJsonObject{{"index", 0}, {"delta", delta}}}}};
}

inline QJsonObject contentChunk(const QString& text)
{
    return deltaChunk(QJsonObject{{"content", text}});
}

// A piece of tool call `index`; id and name only when not empty (the first piece).
inline QJsonObject toolCallChunk(const QString& id, const QString& name, const QString& arguments, int index = 0)
{
    QJsonObject function{{"arguments", arguments}};
    if (!name.isEmpty())
        function.insert("name", name);
    QJsonObject call{{"index", index}, {"function", function}};
    if (!id.isEmpty()) {
        call.insert("id", id);
        call.insert("type", "function");
    }
    return deltaChunk(QJsonObject{{"tool_calls", QJsonArray{call}}});
}

inline QJsonObject done()
{
    return QJsonObject{{"$done", true}};
}

// Keeps the connection open, sending nothing, until the client leaves.
inline QJsonObject stall()
{
    return QJsonObject{{"$stall", true}};
}

inline QJsonObject sse(const QJsonArray& events)
{
    return QJsonObject{{"events", events}};
}

// A streamed answer of these pieces, then [DONE].
inline QJsonObject answer(const QStringList& pieces)
{
    QJsonArray events;
    for (const QString& p : pieces)
        events.append(contentChunk(p));
    events.append(done());
    return sse(events);
}

inline QJsonObject errorStep(int status, const QString& message)
{
    return QJsonObject{{"status", status},
                       {"body", QJsonObject{{"error", QJsonObject{{"message", message}, {"type", "test_error"}}}}}};
}

} // namespace ScriptedSteps

class ScriptedServer
{
public:
    // Starts the server and reads the port it prints; false (with a QtTest-friendly reason in
    // `error`) when it cannot.
    bool start(QString* error)
    {
        const QString program = QStringLiteral(VI_SCRIPTED_SERVER);
        if (!QFileInfo::exists(program)) {
            *error = program + QStringLiteral(" not built");
            return false;
        }
        process.setProgram(program);
        process.setArguments({QStringLiteral("--script"), QStringLiteral("-")});
        process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        process.start();
        if (!process.waitForStarted(10000)) {
            *error = QStringLiteral("the scripted server did not start");
            return false;
        }
        QByteArray line;
        QElapsedTimer timer;
        timer.start();
        while (!line.contains('\n') && timer.elapsed() < 10000) {
            process.waitForReadyRead(500);
            line += process.readAll();
        }
        portNumber = line.startsWith("PORT ") ? line.mid(5).trimmed().toInt() : 0;
        if (portNumber <= 0)
            *error = QStringLiteral("the scripted server said: ") + QString::fromUtf8(line);
        return portNumber > 0;
    }

    // Closing its standard input ends it.
    void stop()
    {
        process.closeWriteChannel();
        if (!process.waitForFinished(5000)) {
            process.kill();
            process.waitForFinished(5000);
        }
    }

    int port() const { return portNumber; }

    // http://127.0.0.1:<port><path>
    QUrl url(const QString& path) const
    {
        return QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(portNumber).arg(path));
    }

    // Replaces the script (and clears the request log).
    bool setScript(const QJsonArray& steps, bool repeatLast = false)
    {
        const QJsonObject script{{"responses", steps}, {"repeat_last", repeatLast}};
        const QByteArray reply = http(QStringLiteral("POST"), QStringLiteral("/__script"),
                                      QJsonDocument(script).toJson(QJsonDocument::Compact));
        return QJsonDocument::fromJson(reply).object().value("ok").toBool();
    }

    // The chat requests so far: {"method","path","headers","body_text","body_json","step","ended"}.
    QJsonArray requests()
    {
        return QJsonDocument::fromJson(http(QStringLiteral("GET"), QStringLiteral("/__requests"))).array();
    }

    // One request to the server through Qt, waited for in a local event loop (10 s at most).
    QByteArray http(const QString& method, const QString& path, const QByteArray& body = {})
    {
        QNetworkRequest request(url(path));
        request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
        QNetworkReply* reply = method == QLatin1String("POST") ? network.post(request, body) : network.get(request);
        QEventLoop loop;
        QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        QTimer::singleShot(10000, &loop, &QEventLoop::quit);
        loop.exec();
        const QByteArray data = reply->readAll();
        reply->deleteLater();
        return data;
    }

private:
    QProcess process;
    QNetworkAccessManager network;
    int portNumber = 0;
};

#endif // VI_TESTS_SCRIPTED_SERVER_H
