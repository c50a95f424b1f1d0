// SPDX-License-Identifier: MIT
//
// The examples' offline demo: the project's scripted server (a local process replaying a
// script, not a model) playing a tool round, an answer, then — on every later turn — a
// reminder streamed word by word, slowly enough to watch (and to press Stop).
#ifndef VI_EXAMPLES_OFFLINE_DEMO_H
#define VI_EXAMPLES_OFFLINE_DEMO_H

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtCore/QStringList>
#include <QtCore/QTemporaryFile>

#ifndef VI_SCRIPTED_SERVER
#error "examples/CMakeLists.txt defines VI_SCRIPTED_SERVER"
#endif

class OfflineDemo
{
public:
    OfflineDemo() = default;
    OfflineDemo(const OfflineDemo&) = delete;
    OfflineDemo& operator=(const OfflineDemo&) = delete;
    // The scripted server exits when its standard input closes.
    ~OfflineDemo()
    {
        if (server.state() != QProcess::NotRunning) {
            server.closeWriteChannel();
            if (!server.waitForFinished(2000))
                server.kill();
        }
    }

    // Starts the server; its OpenAI-compatible base url, "" on failure.
    QString start()
    {
        if (!scriptFile.open() || scriptFile.write(QJsonDocument(script()).toJson(QJsonDocument::Compact)) < 0
            || !scriptFile.flush())
            return {};
        server.setProgram(QStringLiteral(VI_SCRIPTED_SERVER));
        server.setArguments({QStringLiteral("--script"), scriptFile.fileName()});
        server.start();
        if (!server.waitForStarted(5000) || !server.waitForReadyRead(5000))
            return {};
        const QByteArray line = server.readLine().trimmed();
        if (!line.startsWith("PORT "))
            return {};
        return QStringLiteral("http://127.0.0.1:%1/v1").arg(QString::fromLatin1(line.mid(5)));
    }

private:
    static QJsonObject delta(const QJsonObject& d)
    {
        return QJsonObject{{"choices", QJsonArray{QJsonObject{{"index", 0}, {"delta", d}}}}};
    }
    static QJsonObject text(const QString& t) { return delta(QJsonObject{{"content", t}}); }
    static QJsonObject pause(int ms) { return QJsonObject{{"$sleep_ms", ms}}; }

    // Every word of `sentence` as its own delta, `ms` apart.
    static void stream(QJsonArray& events, const QString& sentence, int ms)
    {
        const QStringList words = sentence.split(QLatin1Char(' '));
        for (qsizetype i = 0; i < words.size(); ++i) {
            events << text(words[i] + (i + 1 < words.size() ? QStringLiteral(" ") : QString())) << pause(ms);
        }
    }

    static QJsonObject script()
    {
        QJsonArray toolRound{
            delta(QJsonObject{{"reasoning_content", "The user wants to chat; let me look at the clock first."}}),
            pause(300),
            text(QStringLiteral("Let me check the time. ")),
            delta(QJsonObject{{"tool_calls", QJsonArray{QJsonObject{
                                                 {"index", 0},
                                                 {"id", "call_demo_1"},
                                                 {"type", "function"},
                                                 {"function", QJsonObject{{"name", "get_current_time"}, {"arguments", "{}"}}}}}}}),
            QJsonObject{{"$done", true}}};
        QJsonArray answer{text(QStringLiteral("The clock tool answered (see above). ")), pause(200),
                          text(QStringLiteral("This is the **offline demo**: a scripted local server, not a model."))};
        answer << QJsonObject{{"$done", true}};
        QJsonArray reminder{delta(QJsonObject{{"reasoning_content", "Nothing new to look up; remind them how to connect."}})};
        stream(reminder,
               QStringLiteral("Offline demo: I only replay a script. Set OPENAI_BASE_URL, OPENAI_API_KEY and "
                              "OPENAI_MODEL (or give the application a model in its settings) to talk to a real model."),
               80);
        reminder << QJsonObject{{"$done", true}};
        return QJsonObject{{"repeat_last", true},
                           {"responses", QJsonArray{QJsonObject{{"events", toolRound}}, QJsonObject{{"events", answer}},
                                                    QJsonObject{{"events", reminder}}}}};
    }

    QProcess server;
    QTemporaryFile scriptFile;
};

#endif // VI_EXAMPLES_OFFLINE_DEMO_H
