// SPDX-License-Identifier: MIT
//
// The core's log as Qt logging categories (SPEC §I.5.1): Qt's filter rules decide what the
// core logs, warnings show by default and debug only when a rule asks, each line in its
// category, and the model's token in none of them.
#include <Agent/Center.h>
#include <Agent/Dialog.h>
#include <Agent/Model.h>

#include "Registrations.h"
#include "ScriptedServer.h"

#include <QtCore/QLoggingCategory>
#include <QtCore/QMutex>
#include <QtTest/QtTest>

using Visindigo::Agent::Dialog;
using Visindigo::Agent::Model;
using ScriptedSteps::sse;

namespace {

struct Line {
    QtMsgType type;
    QString category;
    QString text;
};

QMutex linesMutex;
QList<Line> lines;
QtMessageHandler previousHandler = nullptr;

// Any thread: the core logs on its own.
void capture(QtMsgType type, const QMessageLogContext& context, const QString& text)
{
    const QString category = QString::fromLatin1(context.category);
    if (category.startsWith(QLatin1String("visindigo.agent."))) {
        const QMutexLocker locker(&linesMutex);
        lines << Line{type, category, text};
        return;
    }
    previousHandler(type, context, text);
}

QList<Line> takeLines()
{
    const QMutexLocker locker(&linesMutex);
    return std::exchange(lines, {});
}

QJsonObject typed(const QJsonObject& data)
{
    return QJsonObject{{"$event", QJsonObject{{"name", data.value("type")}, {"data", data}}}};
}

// An Anthropic answer "Hi." as the API streams it.
QJsonObject anthropicHi()
{
    return sse({typed({{"type", "message_start"}, {"message", QJsonObject{{"usage", QJsonObject{{"input_tokens", 3}}}}}}),
                typed({{"type", "content_block_start"}, {"index", 0}, {"content_block", QJsonObject{{"type", "text"}, {"text", ""}}}}),
                typed({{"type", "content_block_delta"}, {"index", 0}, {"delta", QJsonObject{{"type", "text_delta"}, {"text", "Hi."}}}}),
                typed({{"type", "message_delta"}, {"delta", QJsonObject{{"stop_reason", "end_turn"}}}, {"usage", QJsonObject{{"output_tokens", 2}}}}),
                typed({{"type", "message_stop"}})});
}

} // namespace

class TestLog : public QObject
{
    Q_OBJECT

    ScriptedServer server;
    Registrations registered;

    // Runs one question on an Anthropic model that sets temperature, to its end.
    void runOnce(const QString& modelId)
    {
        QVERIFY(server.setScript({anthropicHi()}));
        QObject owner;
        Dialog* dialog = registered.newDialog(&owner, {modelId});
        dialog->appendMessage(Visindigo::Agent::Message::Role::User, QStringLiteral("hello"));
        QSignalSpy finished(dialog, &Dialog::runFinished);
        dialog->run();
        QVERIFY(finished.wait(10000));
        QCOMPARE(dialog->getLastMessage().getContent(), QStringLiteral("Hi."));
    }

    QString anthropicModel()
    {
        Model model;
        model.setName(QStringLiteral("claude")).setUrl(server.url(QStringLiteral("/v1"))).setToken(QStringLiteral("sk-ant-secret-token"));
        model.setApi(Model::Api::AnthropicMessages).setTemperature(0.3);
        return registered.addModel(model);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(server.start(&error), qPrintable(error));
        previousHandler = qInstallMessageHandler(capture);
        Visindigo::Agent::Center::getInstance(); // installs the bridge
    }

    void cleanupTestCase()
    {
        qInstallMessageHandler(previousHandler);
        QLoggingCategory::setFilterRules(QString());
        server.stop();
    }

    void cleanup() { registered.clear(); }

    void warningsShowByDefaultAndDebugDoesNot()
    {
        const QString model = anthropicModel();
        takeLines();
        runOnce(model);
        runOnce(model);
        const QList<Line> got = takeLines();
        QCOMPARE(got.size(), 1);
        QCOMPARE(got.at(0).type, QtWarningMsg);
        QCOMPARE(got.at(0).category, QStringLiteral("visindigo.agent.run"));
        QVERIFY2(got.at(0).text.contains(QLatin1String("refuses temperature")) && got.at(0).text.contains(model), qPrintable(got.at(0).text));
    }

    void aRuleTurnsDebugOnAndOffAgain()
    {
        const QString model = anthropicModel();
        QLoggingCategory::setFilterRules(QStringLiteral("visindigo.agent.*.debug=true"));
        takeLines();
        runOnce(model);
        const QList<Line> on = takeLines();
        QSet<QString> categories;
        bool response = false;
        for (const Line& line : on) {
            categories << line.category;
            QVERIFY2(!line.text.contains(QLatin1String("sk-ant-secret-token")), qPrintable(line.text));
            response = response || (line.category == QLatin1String("visindigo.agent.http") && line.type == QtDebugMsg
                                    && line.text.contains(QLatin1String("status=200")));
        }
        QVERIFY2(response, "the http category logged the response");
        QVERIFY(categories.contains(QStringLiteral("visindigo.agent.run")));
        QVERIFY(categories.contains(QStringLiteral("visindigo.agent.stream")));

        QLoggingCategory::setFilterRules(QStringLiteral("visindigo.agent.*.debug=false"));
        runOnce(model);
        const QList<Line> off = takeLines();
        for (const Line& line : off)
            QVERIFY2(line.type != QtDebugMsg && line.type != QtInfoMsg, qPrintable(line.text));
    }

    // A category's level is a threshold, as the README's "everything" example promises: a rule
    // that turns its debug on shows its info lines too (Qt's rules are per message type, and
    // "*.debug=true" alone leaves the category's info off), "*.info=true" shows info but no
    // debug, and the default rules neither.
    void debugOnShowsInfoLinesToo()
    {
        const QString model = anthropicModel();
        const auto started = [](const QList<Line>& got, QtMsgType type) {
            return std::count_if(got.begin(), got.end(), [type](const Line& line) {
                return line.type == type && line.category == QLatin1String("visindigo.agent.run") && line.text.startsWith(QLatin1String("run started"));
            });
        };
        const auto debugLines = [](const QList<Line>& got) {
            return std::count_if(got.begin(), got.end(), [](const Line& line) { return line.type == QtDebugMsg; });
        };

        QLoggingCategory::setFilterRules(QStringLiteral("visindigo.agent.run.debug=true"));
        takeLines();
        runOnce(model);
        QList<Line> got = takeLines();
        QCOMPARE(started(got, QtInfoMsg), 1);
        QVERIFY(debugLines(got) > 0);
        for (const Line& line : std::as_const(got))
            QVERIFY2(line.category == QLatin1String("visindigo.agent.run") || line.type == QtWarningMsg, qPrintable(line.category + u' ' + line.text));

        QLoggingCategory::setFilterRules(QStringLiteral("visindigo.agent.run.info=true"));
        runOnce(model);
        got = takeLines();
        QCOMPARE(started(got, QtInfoMsg), 1);
        QCOMPARE(debugLines(got), 0);

        QLoggingCategory::setFilterRules(QString());
        runOnce(model);
        got = takeLines();
        QCOMPARE(started(got, QtInfoMsg), 0);
        for (const Line& line : std::as_const(got))
            QVERIFY2(line.type != QtDebugMsg && line.type != QtInfoMsg, qPrintable(line.text));
    }
};

QTEST_GUILESS_MAIN(TestLog)
#include "tst_log.moc"
