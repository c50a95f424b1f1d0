// SPDX-License-Identifier: MIT
//
// Control over a run through the C++ API (SPEC §H.3) against the scripted server:
// runFinished on every path, stop() while streaming and while tools run, tool approval
// answered from another thread, abort during an approval, parallel async Functions, and a
// conversation that goes on after an abort during tools (its request bodies are validated
// with the official SDK types and the pairing rules, test sdk_request_bodies).
#include <Agent/Center.h>
#include <Agent/Dialog.h>
#include <Agent/Function.h>

#include "Registrations.h"
#include "ScriptedServer.h"
#include "SignalRecorder.h"

#include <QtCore/QThread>
#include <QtTest/QtTest>

#include <functional>

using namespace Visindigo::Agent;
using namespace ScriptedSteps;
using Visindigo::Utility::JsonConfig;

namespace {

// What the Functions of a test did, in order ("start first", "answer second", ...).
QStringList happenings;

// A Function whose calls wait until the test answers them (or, with a delay, answer on
// their own after it): the test decides when and in which order calls end.
class HeldFunction : public Function
{
public:
    explicit HeldFunction(const QString& id, int answerAfterMs = -1)
        : id(id)
        , answerAfterMs(answerAfterMs)
    {
    }
    QString getId() const override { return id; }
    QString getName() const override { return id; }
    QString getDescription() const override { return QStringLiteral("A tool the test holds"); }
    JsonConfig getParameterSchema() const override { return JsonConfig::fromJson(QStringLiteral(R"({"type":"object"})")); }
    JsonConfig invoke(const JsonConfig&) override { return JsonConfig(); }
    void invokeAsync(const JsonConfig&, std::function<void(const JsonConfig&)> callback) override
    {
        happenings << QStringLiteral("start ") + id;
        const QString name = id;
        auto answer = [name, callback] {
            happenings << QStringLiteral("answer ") + name;
            JsonConfig result;
            result.setString(QStringLiteral("from"), name);
            callback(result);
        };
        if (answerAfterMs >= 0)
            QTimer::singleShot(answerAfterMs, answer);
        else
            held << answer;
    }
    static inline QList<std::function<void()>> held;

private:
    QString id;
    int answerAfterMs;
};

// An answer that calls `tools` (call_<i> for the i-th) after a sentence.
QJsonObject calling(const QStringList& tools)
{
    QJsonArray events{contentChunk(QStringLiteral("Checking. "))};
    for (int i = 0; i < tools.size(); ++i)
        events.append(toolCallChunk(QStringLiteral("call_%1").arg(i), tools.at(i), QStringLiteral("{}"), i));
    events.append(done());
    return sse(events);
}

const QString stopped = QStringLiteral(R"({"error":"stopped by the user"})");

} // namespace

class TestControl : public QObject
{
    Q_OBJECT

    ScriptedServer server;
    Registrations registered;

    // A dialog with its own provider and model, and a user question.
    Dialog* newDialog(QObject* owner)
    {
        Model model;
        model.setName(QStringLiteral("control-model")).setUrl(server.url(QStringLiteral("/v1"))).setToken(QStringLiteral("t"));
        Dialog* dialog = registered.newDialog(owner, {registered.addModel(model)});
        dialog->appendMessage(Message::Role::User, QStringLiteral("Hello?"));
        return dialog;
    }

    QList<QPair<QString, QString>> toolMessages(Dialog* dialog)
    {
        QList<QPair<QString, QString>> out;
        for (const Message& m : dialog->getMessages())
            if (m.getRole() == Message::Role::Tool)
                out << qMakePair(m.getToolCallID(), m.getContent());
        return out;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(server.start(&error), qPrintable(error));
    }

    void cleanupTestCase() { server.stop(); }

    void cleanup()
    {
        registered.clear();
        HeldFunction::held.clear();
        happenings.clear();
    }

    void settingsAndJson()
    {
        Dialog dialog;
        QCOMPARE(dialog.getToolApproval(), false);
        QCOMPARE(dialog.getParallelToolCalls(), true);
        QCOMPARE(dialog.getMaxToolRounds(), 8);
        const JsonConfig plain = dialog.toJson();
        QVERIFY(!plain.contains(QStringLiteral("toolApproval")) && !plain.contains(QStringLiteral("parallelToolCalls"))
                && !plain.contains(QStringLiteral("maxToolRounds")));
        dialog.setToolApproval(true).setParallelToolCalls(false).setMaxToolRounds(2);
        const JsonConfig json = dialog.toJson();
        QCOMPARE(json.getBool(QStringLiteral("toolApproval")), true);
        QVERIFY(json.contains(QStringLiteral("parallelToolCalls")));
        QCOMPARE(json.getBool(QStringLiteral("parallelToolCalls")), false);
        QCOMPARE(json.getInt(QStringLiteral("maxToolRounds")), 2);
        Dialog restored;
        restored.fromJson(json);
        QCOMPARE(restored.getToolApproval(), true);
        QCOMPARE(restored.getParallelToolCalls(), false);
        QCOMPARE(restored.getMaxToolRounds(), 2);
        QVERIFY(!restored.approveToolCall(QStringLiteral("nothing waits")));
        restored.stop(); // without a run: nothing
        QVERIFY(!restored.isStreaming());
    }

    void stopWhileStreamingKeepsThePartialAnswer()
    {
        QVERIFY(server.setScript({sse({deltaChunk(QJsonObject{{"reasoning_content", "Thinking"}}),
                                       contentChunk(QStringLiteral("Half an")), stall()}),
                                  answer({QStringLiteral("More.")})}));
        QObject owner;
        Dialog* dialog = newDialog(&owner);
        SignalRecorder rec(dialog);
        dialog->run();
        QTRY_VERIFY_WITH_TIMEOUT(rec.log.contains(QStringLiteral("delta:Half an")), 10000);
        dialog->stop();
        QVERIFY(!dialog->isStreaming());
        QTRY_COMPARE(rec.finished, 1);
        QCOMPARE(rec.log, (QStringList{QStringLiteral("began"), QStringLiteral("reasoning:Thinking"),
                                       QStringLiteral("delta:Half an"), QStringLiteral("appended:1"),
                                       QStringLiteral("ended:Half an"), QStringLiteral("runFinished")}));
        QVERIFY(!rec.wrongThread);
        const Message kept = dialog->getLastMessage();
        QCOMPARE(kept.getRole(), Message::Role::Assistant);
        QCOMPARE(kept.getContent(), QStringLiteral("Half an"));
        QCOMPARE(kept.getReasoning(), QStringLiteral("Thinking"));
        // The server sees the request cancelled.
        QTRY_COMPARE_WITH_TIMEOUT(server.requests().at(0).toObject().value("ended").toString(),
                                  QStringLiteral("client_closed"), 10000);

        dialog->appendMessage(Message::Role::User, QStringLiteral("Go on."));
        dialog->run();
        QTRY_COMPARE_WITH_TIMEOUT(rec.finished, 2, 10000);
        QCOMPARE(dialog->getLastMessage().getContent(), QStringLiteral("More."));
    }

    void stopDuringToolsAnswersThePendingCalls()
    {
        QVERIFY(server.setScript({calling({QStringLiteral("held"), QStringLiteral("quick")})}));
        QObject owner;
        Dialog* dialog = newDialog(&owner);
        dialog->addFunction(new HeldFunction(QStringLiteral("held")));
        dialog->addFunction(new HeldFunction(QStringLiteral("quick"), 0));
        SignalRecorder rec(dialog);
        dialog->run();
        QTRY_VERIFY_WITH_TIMEOUT(rec.log.contains(QStringLiteral(R"(toolFinished:call_1:{"from":"quick"})")), 10000);
        dialog->stop();
        QVERIFY(!dialog->isStreaming());
        QTRY_COMPARE(rec.finished, 1);
        QCOMPARE(rec.log.mid(rec.log.size() - 4),
                 (QStringList{QStringLiteral("toolFinished:call_0:") + stopped, QStringLiteral("appended:2"),
                              QStringLiteral("appended:3"), QStringLiteral("runFinished")}));
        QCOMPARE(toolMessages(dialog), (QList<QPair<QString, QString>>{{QStringLiteral("call_0"), stopped},
                                                                       {QStringLiteral("call_1"), QStringLiteral(R"({"from":"quick"})")}}));
        const int count = rec.log.size();
        HeldFunction::held.takeFirst()(); // a late answer changes nothing
        QTest::qWait(100);
        QCOMPARE(rec.log.size(), count);
        QCOMPARE(server.requests().size(), 1);
    }

    void abortDuringApproval()
    {
        QVERIFY(server.setScript({calling({QStringLiteral("held")})}));
        QObject owner;
        Dialog* dialog = newDialog(&owner);
        dialog->addFunction(new HeldFunction(QStringLiteral("held")));
        dialog->setToolApproval(true);
        SignalRecorder rec(dialog);
        dialog->run();
        QTRY_VERIFY_WITH_TIMEOUT(rec.log.contains(QStringLiteral("approval:call_0:held:{}")), 10000);
        dialog->abort();
        QTRY_COMPARE(rec.finished, 1);
        QCOMPARE(rec.log,
                 (QStringList{QStringLiteral("began"), QStringLiteral("delta:Checking. "), QStringLiteral("appended:1"),
                              QStringLiteral("ended:Checking. "), QStringLiteral("approval:call_0:held:{}"),
                              QStringLiteral("failed:[Aborted] Run aborted."), QStringLiteral("runFinished")}));
        QVERIFY(!dialog->approveToolCall(QStringLiteral("call_0")));
        QVERIFY(happenings.isEmpty());
    }

    void approveAndRejectFromAnotherThread()
    {
        QVERIFY(server.setScript({calling({QStringLiteral("get_time"), QStringLiteral("delete_all")}),
                                  answer({QStringLiteral("Done.")})}));
        QObject owner;
        Dialog* dialog = newDialog(&owner);
        dialog->addFunction(new HeldFunction(QStringLiteral("get_time"), 0));
        dialog->addFunction(new HeldFunction(QStringLiteral("delete_all"), 0));
        dialog->setToolApproval(true);
        SignalRecorder rec(dialog);
        QStringList asked;
        connect(dialog, &Dialog::toolApprovalRequested, this, [&](const QString& id) { asked << id; });
        dialog->run();
        QTRY_COMPARE_WITH_TIMEOUT(asked.size(), 2, 10000);
        bool rejected = false, approved = false;
        QThread* other = QThread::create([&] {
            rejected = dialog->rejectToolCall(QStringLiteral("call_1"), QStringLiteral("not today"));
            approved = dialog->approveToolCall(QStringLiteral("call_0"));
        });
        other->start();
        QVERIFY(other->wait(10000));
        delete other;
        QVERIFY(rejected && approved);
        QTRY_COMPARE_WITH_TIMEOUT(rec.finished, 1, 10000);
        QVERIFY(!rec.wrongThread);
        QCOMPARE(happenings, (QStringList{QStringLiteral("start get_time"), QStringLiteral("answer get_time")}));
        QCOMPARE(toolMessages(dialog),
                 (QList<QPair<QString, QString>>{
                     {QStringLiteral("call_0"), QStringLiteral(R"({"from":"get_time"})")},
                     {QStringLiteral("call_1"), QStringLiteral(R"({"error":"the user declined this call: not today"})")}}));
        QCOMPARE(rec.log.filter(QStringLiteral("toolStarted")), QStringList{QStringLiteral("toolStarted:call_0:get_time")});
        QCOMPARE(dialog->getLastMessage().getContent(), QStringLiteral("Done."));
    }

    void parallelAsyncFunctionsOverlap_data()
    {
        QTest::addColumn<bool>("parallel");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("together") << true
                                  << QStringList{QStringLiteral("start slow"), QStringLiteral("start fast"),
                                                 QStringLiteral("answer fast"), QStringLiteral("answer slow")};
        QTest::newRow("one after another") << false
                                           << QStringList{QStringLiteral("start slow"), QStringLiteral("answer slow"),
                                                          QStringLiteral("start fast"), QStringLiteral("answer fast")};
    }

    void parallelAsyncFunctionsOverlap()
    {
        QFETCH(bool, parallel);
        QFETCH(QStringList, expected);
        QVERIFY(server.setScript({calling({QStringLiteral("slow"), QStringLiteral("fast")}), answer({QStringLiteral("Both.")})}));
        QObject owner;
        Dialog* dialog = newDialog(&owner);
        dialog->addFunction(new HeldFunction(QStringLiteral("slow"), 300));
        dialog->addFunction(new HeldFunction(QStringLiteral("fast"), 20));
        dialog->setParallelToolCalls(parallel);
        SignalRecorder rec(dialog);
        dialog->run();
        QTRY_COMPARE_WITH_TIMEOUT(rec.finished, 1, 10000);
        QCOMPARE(happenings, expected);
        // Appended in call order either way.
        QCOMPARE(toolMessages(dialog), (QList<QPair<QString, QString>>{{QStringLiteral("call_0"), QStringLiteral(R"({"from":"slow"})")},
                                                                       {QStringLiteral("call_1"), QStringLiteral(R"({"from":"fast"})")}}));
        QCOMPARE(dialog->getLastMessage().getContent(), QStringLiteral("Both."));
    }

    void theConversationGoesOnAfterAnAbortDuringTools()
    {
        QVERIFY(server.setScript({calling({QStringLiteral("held")}), answer({QStringLiteral("Fine.")})}));
        QObject owner;
        Dialog* dialog = newDialog(&owner);
        dialog->addFunction(new HeldFunction(QStringLiteral("held")));
        SignalRecorder rec(dialog);
        dialog->run();
        QTRY_COMPARE_WITH_TIMEOUT(HeldFunction::held.size(), 1, 10000);
        dialog->abort();
        QTRY_COMPARE(rec.finished, 1);
        QCOMPARE(dialog->getMessageCount(), 2); // the question and the assistant's call, no answer
        dialog->appendMessage(Message::Role::User, QStringLiteral("Never mind, go on."));
        dialog->run();
        QTRY_COMPARE_WITH_TIMEOUT(rec.finished, 2, 10000);
        QCOMPARE(dialog->getLastMessage().getContent(), QStringLiteral("Fine."));
        const QJsonArray sent = server.requests().at(1).toObject().value("body_json").toObject().value("messages").toArray();
        QCOMPARE(sent.size(), 4);
        QCOMPARE(sent.at(2).toObject(), (QJsonObject{{"role", "tool"},
                                                     {"content", R"({"error":"no result was recorded for this call"})"},
                                                     {"tool_call_id", "call_0"}}));
        QCOMPARE(sent.at(3).toObject().value("content").toString(), QStringLiteral("Never mind, go on."));
    }
};

QTEST_GUILESS_MAIN(TestControl)
#include "tst_control.moc"
