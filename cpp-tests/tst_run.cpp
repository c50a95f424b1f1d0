// SPDX-License-Identifier: MIT
//
// Dialog::run() against the project's scripted OpenAI-compatible server
// (scripted-server/, built by cargo next to the Rust library): signal order, reasoning,
// tool rounds with C++ Functions (sync, async, throwing), failures, abort, model fallback,
// destroying a dialog mid-run and concurrent runs. Every test registers its own models and
// provider in the global Center under fresh ids and removes them in cleanup().
#include <Agent/Center.h>
#include <Agent/Dialog.h>
#include <Agent/Function.h>

#include "Registrations.h"
#include "ScriptedServer.h"
#include "SignalRecorder.h"

#include <QtCore/QPointer>
#include <QtCore/QThread>
#include <QtTest/QtTest>

#include <stdexcept>

using namespace Visindigo::Agent;
using Visindigo::Utility::JsonConfig;

namespace {

using namespace ScriptedSteps;

using Recorder = SignalRecorder;

class SyncFunction : public Function
{
public:
    QString getId() const override { return QStringLiteral("get_time"); }
    QString getName() const override { return QStringLiteral("Get time"); }
    QString getDescription() const override { return QStringLiteral("The time in a zone"); }
    JsonConfig getParameterSchema() const override
    {
        return JsonConfig::fromJson(
            QStringLiteral(R"({"type":"object","properties":{"tz":{"type":"string"}},"required":["tz"]})"));
    }
    JsonConfig invoke(const JsonConfig& arguments) override
    {
        calledOn = QThread::currentThread();
        lastArguments = arguments;
        JsonConfig result;
        result.setString(QStringLiteral("time"), QStringLiteral("noon"));
        result.setString(QStringLiteral("tz"), arguments.getString(QStringLiteral("tz")));
        return result;
    }
    static inline QThread* calledOn = nullptr;
    static inline JsonConfig lastArguments;
};

class AsyncFunction : public Function
{
public:
    QString getId() const override { return QStringLiteral("slow"); }
    QString getName() const override { return QStringLiteral("Slow"); }
    QString getDescription() const override { return QStringLiteral("Answers after 200 ms"); }
    JsonConfig getParameterSchema() const override { return JsonConfig::fromJson(QStringLiteral(R"({"type":"object"})")); }
    JsonConfig invoke(const JsonConfig&) override { return JsonConfig(); }
    void invokeAsync(const JsonConfig&, std::function<void(const JsonConfig&)> callback) override
    {
        startedOn = QThread::currentThread();
        QTimer::singleShot(200, [callback] {
            JsonConfig result;
            result.setBool(QStringLiteral("late"), true);
            callback(result);
            callback(result); // a second answer is ignored
        });
    }
    static inline QThread* startedOn = nullptr;
};

class ThrowingFunction : public Function
{
public:
    QString getId() const override { return QStringLiteral("explode"); }
    QString getName() const override { return QStringLiteral("Explode"); }
    QString getDescription() const override { return QStringLiteral("Throws"); }
    JsonConfig getParameterSchema() const override { return JsonConfig::fromJson(QStringLiteral(R"({"type":"object"})")); }
    JsonConfig invoke(const JsonConfig&) override { throw std::runtime_error("boom"); }
};

} // namespace

class TestRun : public QObject
{
    Q_OBJECT

    ScriptedServer server;
    Registrations registered;

    bool setScript(const QJsonArray& steps, bool repeatLast = false) { return server.setScript(steps, repeatLast); }
    QJsonArray requests() { return server.requests(); }

    // A valid model pointing at the server, registered in the Center.
    QString addModel(const QString& name = QStringLiteral("test-model"),
                     Model::Capabilities capabilities = Model::Capability::Text)
    {
        Model model;
        model.setName(name)
            .setUrl(server.url(QStringLiteral("/v1")))
            .setToken(QStringLiteral("secret-token"))
            .setTimeoutMs(20000)
            .setCapabilities(capabilities);
        return registered.addModel(model);
    }

    QString addProvider(const QStringList& models) { return registered.addProvider(models); }

    // A dialog with its own provider and one model, and a user question.
    Dialog* newDialog(QObject* owner)
    {
        Dialog* dialog = registered.newDialog(owner, {addModel()});
        dialog->appendMessage(Message::Role::User, QStringLiteral("Hello?"));
        return dialog;
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
    }

    // SPEC §I.4.2: a request that would not fit leaves out the oldest turns; contextTrimmed
    // reports it on the dialog's thread before the round's other signals, and the history
    // is unchanged.
    void contextTrimmedIsSignalledInOrderOnTheDialogsThread()
    {
        QVERIFY(setScript({answer({QStringLiteral("ok")})}));
        QObject owner;
        Model model;
        model.setName(QStringLiteral("windowed"))
            .setUrl(server.url(QStringLiteral("/v1")))
            .setToken(QStringLiteral("secret-token"))
            .setTimeoutMs(20000)
            .setContextWindow(300);
        QCOMPARE(model.getContextWindow(), 300);
        Dialog* dialog = registered.newDialog(&owner, {registered.addModel(model)});
        dialog->setContextPolicy(Dialog::ContextPolicy::DropOldest);
        const QString filler = QStringLiteral("lorem ipsum dolor sit amet ").repeated(40);
        for (int i = 0; i < 4; ++i) {
            dialog->appendMessage(Message::Role::User, filler);
            dialog->appendMessage(Message::Role::Assistant, filler);
        }
        dialog->appendMessage(Message::Role::User, QStringLiteral("the last question"));
        QStringList order;
        QList<QPair<qint32, qint32>> trims;
        bool wrongThread = false;
        connect(dialog, &Dialog::contextTrimmed, &owner, [&](qint32 leftOut, qint32 estimated) {
            trims.append({leftOut, estimated});
            wrongThread |= QThread::currentThread() != dialog->thread();
            order << QStringLiteral("trimmed");
        });
        connect(dialog, &Dialog::streamBegan, &owner, [&] { order << QStringLiteral("began"); });
        connect(dialog, &Dialog::runFinished, &owner, [&] { order << QStringLiteral("finished"); });
        dialog->run();
        QTRY_VERIFY_WITH_TIMEOUT(order.contains(QStringLiteral("finished")), 10000);
        QVERIFY(!wrongThread);
        QCOMPARE(order, (QStringList{QStringLiteral("began"), QStringLiteral("trimmed"), QStringLiteral("finished")}));
        QCOMPARE(trims.size(), 1);
        QCOMPARE(trims[0].first, 8);
        QVERIFY(trims[0].second > 0 && trims[0].second <= 300);
        const QJsonArray sent = requests().last().toObject().value(QStringLiteral("body_json")).toObject().value(QStringLiteral("messages")).toArray();
        QCOMPARE(sent.size(), 1);
        QCOMPARE(sent[0].toObject().value(QStringLiteral("content")).toString(), QStringLiteral("the last question"));
        QCOMPARE(dialog->getMessageCount(), 10);
    }

    void plainAnswer()
    {
        QVERIFY(setScript({answer({QStringLiteral("Hel"), QStringLiteral("lo")})}));
        QObject owner;
        Dialog* dialog = newDialog(&owner);
        Recorder rec(dialog);
        dialog->run(); // (the run may be over in the core before its queued signals arrive)
        QTRY_COMPARE_WITH_TIMEOUT(rec.finished, 1, 10000);
        QCOMPARE(rec.log, (QStringList{QStringLiteral("began"), QStringLiteral("delta:Hel"), QStringLiteral("delta:lo"),
                                       QStringLiteral("appended:1"), QStringLiteral("ended:Hello"),
                                       QStringLiteral("runFinished")}));
        QVERIFY(!rec.wrongThread);
        QTRY_VERIFY(!dialog->isStreaming());
        QCOMPARE(dialog->getMessageCount(), 2);
        QCOMPARE(dialog->getLastMessage().getRole(), Message::Role::Assistant);
        QCOMPARE(dialog->getLastMessage().getContent(), QStringLiteral("Hello"));
        QCOMPARE(dialog->getMessages().at(1).getContent(), QStringLiteral("Hello"));

        const QJsonArray reqs = requests();
        QCOMPARE(reqs.size(), 1);
        const QJsonObject req = reqs.at(0).toObject();
        QCOMPARE(req.value("path").toString(), QStringLiteral("/v1/chat/completions"));
        QCOMPARE(req.value("headers").toObject().value("authorization").toString(), QStringLiteral("Bearer secret-token"));
        const QJsonObject body = req.value("body_json").toObject();
        QCOMPARE(body.value("model").toString(), QStringLiteral("test-model"));
        QCOMPARE(body.value("stream").toBool(), true);
        QCOMPARE(body.value("messages").toArray().size(), 1);
        QCOMPARE(body.value("messages").toArray().at(0).toObject().value("content").toString(), QStringLiteral("Hello?"));
    }

    void reasoning()
    {
        QVERIFY(setScript({sse({deltaChunk(QJsonObject{{"reasoning_content", "Think"}}),
                                deltaChunk(QJsonObject{{"reasoning", "ing"}}), contentChunk(QStringLiteral("Yes")),
                                done()})}));
        QObject owner;
        Dialog* dialog = newDialog(&owner);
        Recorder rec(dialog);
        dialog->run();
        QTRY_COMPARE_WITH_TIMEOUT(rec.finished, 1, 10000);
        QCOMPARE(rec.log, (QStringList{QStringLiteral("began"), QStringLiteral("reasoning:Think"),
                                       QStringLiteral("reasoning:ing"), QStringLiteral("delta:Yes"),
                                       QStringLiteral("appended:1"), QStringLiteral("ended:Yes"),
                                       QStringLiteral("runFinished")}));
        QCOMPARE(dialog->getReasoningContent(), QStringLiteral("Thinking"));
        QVERIFY(dialog->getStreamingContent().isEmpty());
        QCOMPARE(dialog->getLastMessage().getReasoning(), QStringLiteral("Thinking"));
    }

    void toolCallRound()
    {
        QVERIFY(setScript({sse({toolCallChunk(QStringLiteral("call_1"), QStringLiteral("get_time"), QStringLiteral("{\"tz\":")),
                                toolCallChunk(QString(), QString(), QStringLiteral("\"utc\"}")), done()}),
                           answer({QStringLiteral("It is noon")})}));
        Center::getInstance()->addFunction(new SyncFunction);
        SyncFunction::calledOn = nullptr;
        QObject owner;
        Dialog* dialog = newDialog(&owner);
        Recorder rec(dialog);
        dialog->run();
        QTRY_COMPARE_WITH_TIMEOUT(rec.finished, 1, 10000);
        QCOMPARE(rec.log, (QStringList{QStringLiteral("began"), QStringLiteral("appended:1"), QStringLiteral("ended:"),
                                       QStringLiteral("toolStarted:call_1:get_time"),
                                       QStringLiteral(R"(toolFinished:call_1:{"time":"noon","tz":"utc"})"),
                                       QStringLiteral("appended:2"), QStringLiteral("began"),
                                       QStringLiteral("delta:It is noon"), QStringLiteral("appended:3"),
                                       QStringLiteral("ended:It is noon"), QStringLiteral("runFinished")}));
        QVERIFY(!rec.wrongThread);
        QCOMPARE(SyncFunction::calledOn, QThread::currentThread());
        QCOMPARE(SyncFunction::lastArguments.getString(QStringLiteral("tz")), QStringLiteral("utc"));

        const QList<Message> messages = dialog->getMessages();
        QCOMPARE(messages.size(), 4);
        QCOMPARE(messages.at(1).getRole(), Message::Role::Assistant);
        const QJsonArray calls = QJsonDocument::fromJson(messages.at(1).getToolCalls().toUtf8()).array();
        QCOMPARE(calls.size(), 1);
        QCOMPARE(calls.at(0).toObject().value("id").toString(), QStringLiteral("call_1"));
        QCOMPARE(calls.at(0).toObject().value("function").toObject().value("arguments").toString(),
                 QStringLiteral("{\"tz\":\"utc\"}"));
        QCOMPARE(messages.at(2).getRole(), Message::Role::Tool);
        QCOMPARE(messages.at(2).getToolCallID(), QStringLiteral("call_1"));
        QCOMPARE(messages.at(2).getName(), QStringLiteral("get_time"));
        QCOMPARE(messages.at(2).getContent(), QStringLiteral(R"({"time":"noon","tz":"utc"})"));
        QCOMPARE(messages.at(3).getContent(), QStringLiteral("It is noon"));

        const QJsonArray reqs = requests();
        QCOMPARE(reqs.size(), 2);
        const QJsonObject first = reqs.at(0).toObject().value("body_json").toObject();
        const QJsonArray tools = first.value("tools").toArray();
        QCOMPARE(tools.size(), 1);
        QCOMPARE(tools.at(0).toObject().value("function").toObject().value("name").toString(), QStringLiteral("get_time"));
        QCOMPARE(tools.at(0).toObject().value("function").toObject().value("parameters").toObject().value("type").toString(),
                 QStringLiteral("object"));
        const QJsonArray sent = reqs.at(1).toObject().value("body_json").toObject().value("messages").toArray();
        QCOMPARE(sent.size(), 3);
        const QJsonObject assistant = sent.at(1).toObject();
        QCOMPARE(assistant.value("role").toString(), QStringLiteral("assistant"));
        QCOMPARE(assistant.value("tool_calls").toArray().at(0).toObject().value("id").toString(), QStringLiteral("call_1"));
        const QJsonObject tool = sent.at(2).toObject();
        QCOMPARE(tool.value("role").toString(), QStringLiteral("tool"));
        QCOMPARE(tool.value("tool_call_id").toString(), QStringLiteral("call_1"));
        QCOMPARE(tool.value("content").toString(), QStringLiteral(R"({"time":"noon","tz":"utc"})"));
    }

    void asyncFunction()
    {
        QVERIFY(setScript({sse({toolCallChunk(QStringLiteral("call_a"), QStringLiteral("slow"), QStringLiteral("{}")), done()}),
                           answer({QStringLiteral("done")})}));
        QObject owner;
        Dialog* dialog = newDialog(&owner);
        dialog->addFunction(new AsyncFunction); // a dialog-local function this time
        AsyncFunction::startedOn = nullptr;
        Recorder rec(dialog);
        int ticks = 0;
        QTimer ticker;
        connect(&ticker, &QTimer::timeout, this, [&] { ++ticks; });
        ticker.start(20);
        QElapsedTimer elapsed;
        elapsed.start();
        dialog->run();
        QTRY_COMPARE_WITH_TIMEOUT(rec.ended + rec.failed, 2, 10000);
        QVERIFY(elapsed.elapsed() >= 200);
        QVERIFY2(ticks >= 5, "the event loop kept running while the function worked");
        QCOMPARE(AsyncFunction::startedOn, QThread::currentThread());
        QCOMPARE(rec.failed, 0);
        const QList<Message> messages = dialog->getMessages();
        QCOMPARE(messages.size(), 4);
        QCOMPARE(messages.at(2).getContent(), QStringLiteral(R"({"late":true})"));
        QCOMPARE(messages.at(2).getToolCallID(), QStringLiteral("call_a"));
    }

    void throwingFunction()
    {
        QVERIFY(setScript({sse({toolCallChunk(QStringLiteral("call_x"), QStringLiteral("explode"), QStringLiteral("{}")), done()}),
                           answer({QStringLiteral("sorry")})}));
        Center::getInstance()->addFunction(new ThrowingFunction);
        QObject owner;
        Dialog* dialog = newDialog(&owner);
        Recorder rec(dialog);
        dialog->run();
        QTRY_COMPARE_WITH_TIMEOUT(rec.ended + rec.failed, 2, 10000);
        QCOMPARE(rec.failed, 0);
        const QList<Message> messages = dialog->getMessages();
        QCOMPARE(messages.size(), 4);
        QCOMPARE(messages.at(2).getContent(), QStringLiteral(R"({"error":"boom"})"));
        QCOMPARE(messages.at(3).getContent(), QStringLiteral("sorry"));
    }

    void http401()
    {
        QVERIFY(setScript({errorStep(401, QStringLiteral("bad key"))}));
        QObject owner;
        Dialog* dialog = newDialog(&owner);
        Recorder rec(dialog);
        dialog->run();
        QTRY_COMPARE_WITH_TIMEOUT(rec.finished, 1, 10000);
        QCOMPARE(rec.log, (QStringList{QStringLiteral("began"),
                                       QStringLiteral("failed:[HttpStatusError] Server returned HTTP 401 Unauthorized: "
                                                      "bad key (HTTP 401)"),
                                       QStringLiteral("runFinished")}));
        QVERIFY(!dialog->isStreaming());
        QCOMPARE(dialog->getMessageCount(), 1);
    }

    void earlyFailures()
    {
        QObject owner;
        auto* dialog = new Dialog;
        dialog->setParent(&owner);
        dialog->appendMessage(Message::Role::User, QStringLiteral("q"));
        Recorder rec(dialog);

        // No provider (none set, no default): failed and finished synchronously, nothing else.
        dialog->run();
        QCOMPARE(rec.log, (QStringList{QStringLiteral("failed:No provider available."), QStringLiteral("runFinished")}));

        // A provider whose only model lacks the required capability.
        dialog->setProviderId(addProvider({addModel()}));
        dialog->setCapabilityRequirement(Model::Capability::Text | Model::Capability::Image);
        rec.log.clear();
        dialog->run();
        QCOMPARE(rec.log, (QStringList{QStringLiteral("failed:No model satisfies the capability requirement."),
                                       QStringLiteral("runFinished")}));
        QVERIFY(!dialog->isStreaming());

        // Already running.
        dialog->setCapabilityRequirement(Model::Capability::Text);
        QVERIFY(setScript({sse({contentChunk(QStringLiteral("par")), QJsonObject{{"$stall", true}}})}));
        rec.log.clear();
        dialog->run();
        QVERIFY(dialog->isStreaming());
        dialog->run();
        QTRY_VERIFY(rec.log.contains(QStringLiteral("failed:Dialog is already running.")));
        QCOMPARE(rec.finished, 3); // the two early failures, then the refused run(); the first goes on
        QVERIFY(dialog->isStreaming());
        dialog->abort();
        QTRY_VERIFY(rec.log.contains(QStringLiteral("failed:[Aborted] Run aborted.")));
        QTRY_COMPARE(rec.finished, 4);
    }

    void abortMidStream()
    {
        QVERIFY(setScript({sse({contentChunk(QStringLiteral("par")), QJsonObject{{"$stall", true}}})}));
        QObject owner;
        Dialog* dialog = newDialog(&owner);
        Recorder rec(dialog);
        dialog->run();
        QTRY_VERIFY_WITH_TIMEOUT(rec.log.contains(QStringLiteral("delta:par")), 10000);
        dialog->abort();
        QVERIFY(!dialog->isStreaming());
        QTRY_COMPARE(rec.finished, 1);
        QCOMPARE(rec.log.mid(rec.log.size() - 2),
                 (QStringList{QStringLiteral("failed:[Aborted] Run aborted."), QStringLiteral("runFinished")}));
        const int count = rec.log.size();
        QTest::qWait(300);
        QCOMPARE(rec.log.size(), count);
        QCOMPARE(dialog->getMessageCount(), 1); // the partial text was not appended
    }

    void modelFallback()
    {
        QVERIFY(setScript({errorStep(429, QStringLiteral("slow down")), errorStep(503, QStringLiteral("busy")),
                           answer({QStringLiteral("third time")})}));
        const QString a = addModel(QStringLiteral("model-a"));
        const QString b = addModel(QStringLiteral("model-b"));
        const QString c = addModel(QStringLiteral("model-c"));
        QObject owner;
        auto* dialog = new Dialog;
        dialog->setParent(&owner);
        dialog->setProviderId(addProvider({a, b, c}));
        dialog->appendMessage(Message::Role::User, QStringLiteral("q"));
        Recorder rec(dialog);
        QSignalSpy fallbackSpy(dialog, &Dialog::modelFallback);
        dialog->run();
        QTRY_COMPARE_WITH_TIMEOUT(rec.finished, 1, 10000);
        QCOMPARE(rec.log, (QStringList{QStringLiteral("began"), QStringLiteral("fallback:%1>%2").arg(a, b),
                                       QStringLiteral("fallback:%1>%2").arg(b, c), QStringLiteral("delta:third time"),
                                       QStringLiteral("appended:1"), QStringLiteral("ended:third time"),
                                       QStringLiteral("runFinished")}));
        QCOMPARE(fallbackSpy.count(), 2);
        QVERIFY(!fallbackSpy.at(0).at(2).toString().isEmpty());
        const QJsonArray reqs = requests();
        QCOMPARE(reqs.size(), 3);
        QCOMPARE(reqs.at(0).toObject().value("body_json").toObject().value("model").toString(), QStringLiteral("model-a"));
        QCOMPARE(reqs.at(2).toObject().value("body_json").toObject().value("model").toString(), QStringLiteral("model-c"));
    }

    void destroyDialogMidRun()
    {
        QVERIFY(setScript({sse({contentChunk(QStringLiteral("a")), QJsonObject{{"$sleep_ms", 50}},
                                contentChunk(QStringLiteral("b")), QJsonObject{{"$stall", true}}})}));
        QObject owner;
        QPointer<Dialog> dialog = newDialog(&owner);
        int afterDeath = 0;
        bool dead = false;
        QObject watcher;
        auto count = [&] {
            if (dead)
                ++afterDeath;
        };
        connect(dialog, &Dialog::streamDelta, &watcher, count);
        connect(dialog, &Dialog::runFailed, &watcher, count);
        QSignalSpy deltas(dialog.data(), &Dialog::streamDelta);
        dialog->run();
        QTRY_VERIFY_WITH_TIMEOUT(deltas.count() >= 1, 10000); // mid-stream
        delete dialog.data();
        dead = true;
        QTest::qWait(300);
        QCOMPARE(afterDeath, 0);
        QVERIFY(dialog.isNull());
    }

    void destroyDialogWithPendingFunctionCall()
    {
        QVERIFY(setScript({sse({toolCallChunk(QStringLiteral("call_p"), QStringLiteral("slow"), QStringLiteral("{}")), done()}),
                           answer({QStringLiteral("never")})}));
        QObject owner;
        Dialog* dialog = newDialog(&owner);
        dialog->addFunction(new AsyncFunction);
        QSignalSpy appended(dialog, &Dialog::messageAppended);
        dialog->run();
        // The assistant message with the call is appended; the function answers 200 ms later.
        QTRY_VERIFY_WITH_TIMEOUT(appended.count() >= 1, 10000);
        delete dialog;
        QTest::qWait(400); // the late answer goes to a dialog that is gone: dropped
    }

    void concurrentDialogs()
    {
        QVERIFY(setScript({answer({QStringLiteral("con"), QStringLiteral("current")})}, true));
        QObject owner;
        const QString provider = addProvider({addModel()});
        QList<Dialog*> dialogs;
        QList<Recorder*> recorders;
        for (int i = 0; i < 20; ++i) {
            auto* dialog = new Dialog;
            dialog->setParent(&owner);
            dialog->setProviderId(provider);
            dialog->appendMessage(Message::Role::User, QStringLiteral("q%1").arg(i));
            auto* rec = new Recorder(dialog);
            rec->setParent(&owner);
            dialogs << dialog;
            recorders << rec;
        }
        for (Dialog* dialog : std::as_const(dialogs))
            dialog->run();
        auto finished = [&] {
            int n = 0;
            for (Recorder* rec : std::as_const(recorders))
                n += rec->finished;
            return n;
        };
        QTRY_COMPARE_WITH_TIMEOUT(finished(), 20, 30000);
        for (int i = 0; i < 20; ++i) {
            QCOMPARE(recorders.at(i)->failed, 0);
            const QStringList& log = recorders.at(i)->log;
            QCOMPARE(log.mid(log.size() - 2), (QStringList{QStringLiteral("ended:concurrent"), QStringLiteral("runFinished")}));
            QVERIFY(!recorders.at(i)->wrongThread);
            QCOMPARE(dialogs.at(i)->getLastMessage().getContent(), QStringLiteral("concurrent"));
        }
        QCOMPARE(requests().size(), 20);
    }

    void regenerateRuns()
    {
        QVERIFY(setScript({answer({QStringLiteral("again")})}));
        Center* center = Center::getInstance();
        const QString provider = addProvider({addModel()});
        Dialog* source = center->createDialog();
        source->setProviderId(provider);
        source->appendMessage(Message::Role::User, QStringLiteral("q"));
        source->appendMessage(Message::Role::Assistant, QStringLiteral("first"));
        Dialog* clone = center->regenerate(source->getId());
        QVERIFY(clone);
        // The run may already be over in the core (isStreaming() false); its signals are
        // queued to this thread, so a spy made now still sees them.
        QSignalSpy ended(clone, &Dialog::streamEnded);
        QVERIFY(ended.wait(10000));
        QCOMPARE(ended.at(0).at(0).toString(), QStringLiteral("again"));
        QCOMPARE(clone->getMessageCount(), 2);
        QCOMPARE(clone->getLastMessage().getContent(), QStringLiteral("again"));
        QCOMPARE(source->getLastMessage().getContent(), QStringLiteral("first"));
        center->removeDialog(clone->getId());
        center->removeDialog(source->getId());
    }
};

QTEST_GUILESS_MAIN(TestRun)
#include "tst_run.moc"
