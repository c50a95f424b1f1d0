// SPDX-License-Identifier: MIT
//
// Dialog without a network: SPEC §D (everything but run()), signal order, the getMessages()
// cache, and delivery of signals on the dialog's thread.
#include <Agent/Center.h>
#include <Agent/Dialog.h>

#include <QtCore/QPointer>
#include <QtCore/QRegularExpression>
#include <QtCore/QThread>
#include <QtTest/QtTest>

#include <atomic>
#include <thread>

using namespace Visindigo::Agent;
using Visindigo::Utility::JsonConfig;

namespace {

// Records the dialog's signals, in order, as short strings.
class Recorder : public QObject
{
public:
    explicit Recorder(Dialog* dialog, Qt::ConnectionType type = Qt::AutoConnection)
    {
        connect(dialog, &Dialog::messageAppended, this, [this](qint32 i) { log << QStringLiteral("appended:%1").arg(i); }, type);
        connect(dialog, &Dialog::streamBegan, this, [this] { log << QStringLiteral("began"); }, type);
        connect(dialog, &Dialog::streamDelta, this, [this](const QString& t) { log << QStringLiteral("delta:") + t; }, type);
        connect(dialog, &Dialog::streamReasoning, this, [this](const QString& t) { log << QStringLiteral("reasoning:") + t; }, type);
        connect(dialog, &Dialog::streamEnded, this, [this](const QString& t) { log << QStringLiteral("ended:") + t; }, type);
        connect(dialog, &Dialog::runFailed, this, [this](const QString& t) { log << QStringLiteral("failed:") + t; }, type);
    }
    QStringList log;
};

QStringList names(const QList<Skill>& skills)
{
    QStringList out;
    for (const Skill& s : skills)
        out << s.getName();
    return out;
}

QStringList names(const QList<MCP>& mcps)
{
    QStringList out;
    for (const MCP& m : mcps)
        out << m.getName();
    return out;
}

QStringList names(const QList<Prompt>& prompts)
{
    QStringList out;
    for (const Prompt& p : prompts)
        out << p.getName();
    return out;
}

const QRegularExpression uuidPattern(
    QStringLiteral("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"));

} // namespace

class TestDialog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // SPEC §I.4.2: the context settings, written to Dialog JSON only when not default.
    void contextPolicyAndSummaryModelRoundTrip()
    {
        Dialog dialog;
        QCOMPARE(dialog.getContextPolicy(), Dialog::ContextPolicy::Fail);
        QVERIFY(dialog.getContextSummary().isEmpty());
        JsonConfig json = dialog.toJson();
        QVERIFY(!json.contains(QStringLiteral("contextPolicy")) && !json.contains(QStringLiteral("summaryModel")));
        QVERIFY(!json.contains(QStringLiteral("contextSummary")));
        dialog.setContextPolicy(Dialog::ContextPolicy::Summarize).setSummaryModel(QStringLiteral("p"), QStringLiteral("small"));
        json = dialog.toJson();
        QCOMPARE(json.getString(QStringLiteral("contextPolicy")), QStringLiteral("summarize"));
        Dialog back;
        back.fromJson(json);
        QCOMPARE(back.getContextPolicy(), Dialog::ContextPolicy::Summarize);
        QCOMPARE(back.getSummaryProviderId(), QStringLiteral("p"));
        QCOMPARE(back.getSummaryModelId(), QStringLiteral("small"));
        QCOMPARE(QMetaEnum::fromType<Dialog::ContextPolicy>().valueToKey(int(Dialog::ContextPolicy::DropOldest)), "DropOldest");
    }

    void defaults()
    {
        Dialog dialog;
        QVERIFY2(uuidPattern.match(dialog.getId()).hasMatch(), qPrintable(dialog.getId()));
        QVERIFY(dialog.getBranchFromID().isEmpty());
        QVERIFY(dialog.getProviderId().isEmpty());
        QVERIFY(dialog.getModelId().isEmpty());
        QCOMPARE(dialog.getCapabilityRequirement(), Model::Capabilities(Model::Capability::Text));
        QCOMPARE(dialog.getMessageCount(), 0);
        QVERIFY(dialog.getMessages().isEmpty());
        QVERIFY(!dialog.isStreaming());
        QCOMPARE(dialog.findLastAssistantMessage(), -1);
        const Message last = dialog.getLastMessage();
        QCOMPARE(last.getRole(), Message::Role::User);
        QVERIFY(last.getContent().isEmpty());
        Dialog other;
        QVERIFY(other.getId() != dialog.getId());
    }

    void setters()
    {
        Dialog dialog;
        dialog.setBranchFromID(QStringLiteral("b")).setProviderId(QStringLiteral("p")).setModelId(QStringLiteral("m"));
        dialog.setCapabilityRequirement(Model::Capability::Text | Model::Capability::ToolUse);
        QCOMPARE(dialog.getBranchFromID(), QStringLiteral("b"));
        QCOMPARE(dialog.getProviderId(), QStringLiteral("p"));
        QCOMPARE(dialog.getModelId(), QStringLiteral("m"));
        QCOMPARE(dialog.getCapabilityRequirement(), Model::Capability::Text | Model::Capability::ToolUse);
    }

    void appendMessageEmitsIndex()
    {
        Dialog dialog;
        QSignalSpy spy(&dialog, &Dialog::messageAppended);
        dialog.appendMessage(Message(Message::Role::System, QStringLiteral("sys")))
            .appendMessage(Message::Role::User, QStringLiteral("hello"));
        // Emitted synchronously: the caller is on the dialog's thread.
        QCOMPARE(spy.count(), 2);
        QCOMPARE(spy.at(0).at(0).toInt(), 0);
        QCOMPARE(spy.at(1).at(0).toInt(), 1);
        QCOMPARE(dialog.getMessageCount(), 2);
        QCOMPARE(dialog.getLastMessage().getContent(), QStringLiteral("hello"));
        QCOMPARE(dialog.getLastMessage().getRole(), Message::Role::User);
        const QList<Message> messages = dialog.getMessages();
        QCOMPARE(messages.size(), 2);
        QCOMPARE(messages.at(0).getRole(), Message::Role::System);
        QCOMPARE(messages.at(0).getContent(), QStringLiteral("sys"));
        dialog.clearMessages();
        QCOMPARE(dialog.getMessageCount(), 0);
        QVERIFY(dialog.getMessages().isEmpty());
    }

    void streamingSignalOrder()
    {
        Dialog dialog;
        dialog.appendMessage(Message::Role::User, QStringLiteral("q"));
        Recorder recorder(&dialog);
        dialog.beginAssistantMessage();
        QVERIFY(dialog.isStreaming());
        dialog.appendDelta(QStringLiteral("Hel"));
        dialog.appendDelta(QStringLiteral("lo"));
        QCOMPARE(dialog.getStreamingContent(), QStringLiteral("Hello"));
        dialog.endAssistantMessage();
        QCOMPARE(recorder.log,
                 (QStringList{QStringLiteral("began"), QStringLiteral("delta:Hel"), QStringLiteral("delta:lo"),
                              QStringLiteral("appended:1"), QStringLiteral("ended:Hello")}));
        QVERIFY(!dialog.isStreaming());
        QVERIFY(dialog.getStreamingContent().isEmpty());
        QCOMPARE(dialog.getMessageCount(), 2);
        QCOMPARE(dialog.getLastMessage().getRole(), Message::Role::Assistant);
        QCOMPARE(dialog.getLastMessage().getContent(), QStringLiteral("Hello"));
        QCOMPARE(dialog.findLastAssistantMessage(), 1);
    }

    // A U+FEFF that starts a delta or a message is text: QString::fromUtf8 would drop it as a
    // byte order mark, on the direct route and on the queued (packed) one; so is one after an
    // ASCII start, where the packing leaves its ASCII fast path.
    void aLeadingU_FEFFIsKeptInDeltasAndMessages()
    {
        const QString bom(QChar(0xFEFF));
        Dialog dialog;
        QStringList deltas;
        connect(&dialog, &Dialog::streamDelta, this, [&](const QString& d) { deltas << d; });
        dialog.beginAssistantMessage();
        dialog.appendDelta(bom + QStringLiteral("a")); // on the dialog's thread: at once
        const QString mixed = QStringLiteral("x") + bom + QStringLiteral("é中y");
        std::thread worker([&] {
            dialog.appendDelta(bom + bom + QStringLiteral("b")); // queued
            dialog.appendDelta(mixed);
        });
        worker.join();
        QTRY_COMPARE(deltas.size(), 3);
        QCOMPARE(deltas, (QStringList{bom + QStringLiteral("a"), bom + bom + QStringLiteral("b"), mixed}));
        const QString all = bom + QStringLiteral("a") + bom + bom + QStringLiteral("b") + mixed;
        QCOMPARE(dialog.getStreamingContent(), all);
        dialog.endAssistantMessage();
        QCOMPARE(dialog.getLastMessage().getContent(), all);
        dialog.appendMessage(Message::Role::User, bom);
        QCOMPARE(dialog.getMessages().last().getContent(), bom);
    }

    // The deltas of a batch are emitted through one string filled in place (Dialog.cpp,
    // drain): a copy a slot keeps must keep its text while longer and shorter deltas follow.
    void aKeptDeltaKeepsItsTextWhileTheBatchGoesOn()
    {
        Dialog dialog;
        QStringList seen; // deep copies, taken at once
        QStringList kept; // every other delta, by reference count
        connect(&dialog, &Dialog::streamDelta, this, [&](const QString& d) {
            if (seen.size() % 2 == 0)
                kept << d;
            seen << QString(d.constData(), d.size());
        });
        const QStringList sent{QStringLiteral("a much longer first delta"), QStringLiteral("b"), QStringLiteral("ccc"),
                               QStringLiteral("中文 and more"), QStringLiteral("d"), QStringLiteral("e"),
                               QStringLiteral("a much longer last delta, longer than the first")};
        dialog.beginAssistantMessage();
        std::thread worker([&] {
            for (const QString& text : sent)
                dialog.appendDelta(text); // queued: one batch
        });
        worker.join();
        QTRY_COMPARE(seen.size(), sent.size());
        QCOMPARE(seen, sent);
        QStringList everyOther;
        for (qsizetype i = 0; i < sent.size(); i += 2)
            everyOther << sent.at(i);
        QCOMPARE(kept, everyOther);
    }

    void endWithoutContentAppendsNothing()
    {
        Dialog dialog;
        Recorder recorder(&dialog);
        dialog.beginAssistantMessage();
        dialog.endAssistantMessage();
        QCOMPARE(recorder.log, (QStringList{QStringLiteral("began"), QStringLiteral("ended:")}));
        QCOMPARE(dialog.getMessageCount(), 0);
    }

    void appendDeltaIgnoredWhenNotStreaming()
    {
        Dialog dialog;
        QSignalSpy spy(&dialog, &Dialog::streamDelta);
        dialog.appendDelta(QStringLiteral("nope"));
        QCOMPARE(spy.count(), 0);
        QVERIFY(dialog.getStreamingContent().isEmpty());
        QVERIFY(!dialog.isStreaming());
    }

    void beginClearsBuffers()
    {
        Dialog dialog;
        dialog.beginAssistantMessage();
        dialog.appendDelta(QStringLiteral("first"));
        dialog.beginAssistantMessage();
        QVERIFY(dialog.getStreamingContent().isEmpty());
        QVERIFY(dialog.getReasoningContent().isEmpty());
        dialog.endAssistantMessage();
    }

    void truncateTo()
    {
        Dialog dialog;
        for (int i = 0; i < 5; ++i)
            dialog.appendMessage(Message::Role::User, QString::number(i));
        dialog.truncateTo(-1);
        QCOMPARE(dialog.getMessageCount(), 5);
        dialog.truncateTo(5);
        QCOMPARE(dialog.getMessageCount(), 5);
        dialog.truncateTo(9);
        QCOMPARE(dialog.getMessageCount(), 5);
        dialog.truncateTo(3);
        QCOMPARE(dialog.getMessageCount(), 3);
        QCOMPARE(dialog.getLastMessage().getContent(), QStringLiteral("2"));
        dialog.truncateTo(0);
        QCOMPARE(dialog.getMessageCount(), 0);
    }

    void findLastAssistantMessage()
    {
        Dialog dialog;
        dialog.appendMessage(Message::Role::User, QStringLiteral("u"));
        QCOMPARE(dialog.findLastAssistantMessage(), -1);
        dialog.appendMessage(Message::Role::Assistant, QStringLiteral("a1"));
        dialog.appendMessage(Message::Role::User, QStringLiteral("u2"));
        dialog.appendMessage(Message::Role::Assistant, QStringLiteral("a2"));
        dialog.appendMessage(Message::Role::Tool, QStringLiteral("{}"));
        QCOMPARE(dialog.findLastAssistantMessage(), 3);
    }

    void copyTo()
    {
        Dialog source;
        QVERIFY(!source.copyTo(nullptr));
        QVERIFY(!source.copyTo(&source));

        source.appendMessage(Message::Role::User, QStringLiteral("hi"));
        source.addSkill(Skill(QStringLiteral("s")).setInstruction(QStringLiteral("be brief")));
        source.addMCP(MCP(QStringLiteral("m")).setCommand(QStringLiteral("true")));
        source.addPrompt(Prompt(QStringLiteral("p"), QStringLiteral("{{ x }}")));
        source.setProviderId(QStringLiteral("prov")).setModelId(QStringLiteral("mod"));
        source.setCapabilityRequirement(Model::Capability::Image);

        Dialog target;
        target.appendMessage(Message::Role::User, QStringLiteral("old"));
        QVERIFY(source.copyTo(&target));
        QCOMPARE(target.getMessageCount(), 1);
        QCOMPARE(target.getLastMessage().getContent(), QStringLiteral("hi"));
        QCOMPARE(names(target.getSkills()), QStringList{QStringLiteral("s")});
        QCOMPARE(names(target.getMCPs()), QStringList{QStringLiteral("m")});
        QCOMPARE(names(target.getPrompts()), QStringList{QStringLiteral("p")});
        QCOMPARE(target.getProviderId(), QStringLiteral("prov"));
        QCOMPARE(target.getModelId(), QStringLiteral("mod"));
        QCOMPARE(target.getCapabilityRequirement(), Model::Capabilities(Model::Capability::Image));
        QVERIFY(target.getId() != source.getId());
    }

    void localEntriesReplaceAndMoveToEnd()
    {
        Dialog dialog;
        dialog.addSkill(Skill(QStringLiteral("a")).setInstruction(QStringLiteral("1")));
        dialog.addSkill(Skill(QStringLiteral("b")).setInstruction(QStringLiteral("2")));
        dialog.addSkill(Skill(QStringLiteral("a")).setInstruction(QStringLiteral("3")));
        QCOMPARE(names(dialog.getSkills()), (QStringList{QStringLiteral("b"), QStringLiteral("a")}));
        QCOMPARE(dialog.getSkills().last().getInstruction(), QStringLiteral("3"));
        dialog.removeSkill(QStringLiteral("b"));
        QCOMPARE(names(dialog.getSkills()), QStringList{QStringLiteral("a")});

        dialog.addMCP(MCP(QStringLiteral("x")));
        dialog.addMCP(MCP(QStringLiteral("y")));
        dialog.addMCP(MCP(QStringLiteral("x")).setCommand(QStringLiteral("cmd")));
        QCOMPARE(names(dialog.getMCPs()), (QStringList{QStringLiteral("y"), QStringLiteral("x")}));
        QCOMPARE(dialog.getMCPs().last().getCommand(), QStringLiteral("cmd"));
        dialog.removeMCP(QStringLiteral("x"));
        QCOMPARE(names(dialog.getMCPs()), QStringList{QStringLiteral("y")});

        dialog.addPrompt(Prompt(QStringLiteral("p"), QStringLiteral("one")));
        dialog.addPrompt(Prompt(QStringLiteral("q"), QStringLiteral("two")));
        dialog.addPrompt(Prompt(QStringLiteral("p"), QStringLiteral("three")));
        QCOMPARE(names(dialog.getPrompts()), (QStringList{QStringLiteral("q"), QStringLiteral("p")}));
        QCOMPARE(dialog.getPrompts().last().getContent(), QStringLiteral("three"));
        dialog.removePrompt(QStringLiteral("q"));
        QCOMPARE(names(dialog.getPrompts()), QStringList{QStringLiteral("p")});
    }

    void appendPromptDialogThenCenter()
    {
        Center* center = Center::getInstance();
        center->addPrompt(Prompt(QStringLiteral("tdlg_greet"), QStringLiteral("Center says {{ who }}")));
        center->addPrompt(Prompt(QStringLiteral("tdlg_only_center"), QStringLiteral("Hi {{ who }} and {{ other }}")));

        Dialog dialog;
        dialog.addPrompt(Prompt(QStringLiteral("tdlg_greet"), QStringLiteral("Dialog says {{ who }}")));
        QSignalSpy spy(&dialog, &Dialog::messageAppended);

        dialog.appendPrompt(QStringLiteral("tdlg_greet"), {{QStringLiteral("who"), QStringLiteral("Ann")}});
        QCOMPARE(spy.count(), 1);
        Message m = dialog.getLastMessage();
        QCOMPARE(m.getRole(), Message::Role::Prompt);
        QCOMPARE(m.getContent(), QStringLiteral("Dialog says Ann"));
        QCOMPARE(m.getName(), QStringLiteral("tdlg_greet"));

        dialog.appendPrompt(QStringLiteral("tdlg_only_center"), {{QStringLiteral("who"), QStringLiteral("Bo")}});
        m = dialog.getLastMessage();
        QCOMPARE(m.getContent(), QStringLiteral("Hi Bo and {{ other }}"));

        dialog.appendPrompt(QStringLiteral("tdlg_missing"));
        QCOMPARE(dialog.getMessageCount(), 2);

        center->removePrompt(QStringLiteral("tdlg_greet"));
        center->removePrompt(QStringLiteral("tdlg_only_center"));
    }

    void toJsonAndFromJson()
    {
        Dialog dialog;
        dialog.appendMessage(Message::Role::User, QStringLiteral("hello"));
        dialog.addSkill(Skill(QStringLiteral("s")).setInstruction(QStringLiteral("i")));
        dialog.setProviderId(QStringLiteral("p")).setModelId(QStringLiteral("m")).setBranchFromID(QStringLiteral("b"));
        const JsonConfig json = dialog.toJson();
        QStringList keys = json.keys();
        keys.sort();
        QCOMPARE(keys, (QStringList{QStringLiteral("branchFromId"), QStringLiteral("capabilityRequirement"),
                                    QStringLiteral("id"), QStringLiteral("mcps"), QStringLiteral("messages"),
                                    QStringLiteral("modelId"), QStringLiteral("prompts"),
                                    QStringLiteral("providerId"), QStringLiteral("skills")}));
        QCOMPARE(json.getString(QStringLiteral("id")), dialog.getId());
        QCOMPARE(json.getInt(QStringLiteral("capabilityRequirement")), 1);
        QCOMPARE(json.getString(QStringLiteral("messages.0.content")), QStringLiteral("hello"));

        Dialog restored;
        QSignalSpy spy(&restored, &Dialog::messageAppended);
        QVERIFY(restored.fromJson(json));
        QCOMPARE(restored.getId(), dialog.getId());
        QCOMPARE(restored.getMessageCount(), 1);
        QCOMPARE(restored.getProviderId(), QStringLiteral("p"));
        QCOMPARE(restored.getBranchFromID(), QStringLiteral("b"));
        QCOMPARE(names(restored.getSkills()), QStringList{QStringLiteral("s")});

        Dialog noId;
        const QString before = noId.getId();
        JsonConfig withoutId = json;
        withoutId.remove(QStringLiteral("id"));
        QVERIFY(!noId.fromJson(withoutId));
        QCOMPARE(noId.getId(), before);
        QCOMPARE(noId.getMessageCount(), 1); // the other fields are applied anyway
    }

    void getMessagesIsCached()
    {
        Dialog dialog;
        dialog.appendMessage(Message::Role::User, QStringLiteral("a"));
        const QList<Message> first = dialog.getMessages();
        const QList<Message> second = dialog.getMessages();
        QCOMPARE(second.size(), 1);
        // Nothing changed: the same shared list, not a rebuilt one.
        QCOMPARE(second.constData(), first.constData());
        dialog.appendMessage(Message::Role::Assistant, QStringLiteral("b"));
        const QList<Message> third = dialog.getMessages();
        QCOMPARE(third.size(), 2);
        QCOMPARE(third.at(1).getContent(), QStringLiteral("b"));
        QVERIFY(third.constData() != first.constData());
        dialog.truncateTo(1);
        QCOMPARE(dialog.getMessages().size(), 1);
    }

    // After appends only, getMessages() extends the cached list (vi_dialog_messages_since);
    // after any other change it rebuilds it. Either way it reads as the core's messages.
    void getMessagesAfterAppendsAndOtherChanges()
    {
        Dialog dialog;
        const auto contents = [&dialog] {
            QStringList out;
            for (const Message& m : dialog.getMessages())
                out << m.getContent();
            return out;
        };
        dialog.appendMessage(Message::Role::User, QStringLiteral("a"));
        const QList<Message> held = dialog.getMessages(); // a copy the caller keeps
        dialog.appendMessage(Message::Role::Assistant, QStringLiteral("b"));
        dialog.beginAssistantMessage();
        dialog.appendDelta(QStringLiteral("c"));
        dialog.endAssistantMessage();
        QCOMPARE(contents(), (QStringList{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}));
        QCOMPARE(held.size(), 1); // the caller's copy is untouched
        QCOMPARE(held.at(0).getContent(), QStringLiteral("a"));
        QCOMPARE(dialog.getMessages().at(2).getRole(), Message::Role::Assistant);
        // truncate then append back to the same count: rebuilt, not extended
        dialog.truncateTo(2);
        dialog.appendMessage(Message::Role::User, QStringLiteral("d"));
        QCOMPARE(contents(), (QStringList{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("d")}));
        dialog.clearMessages();
        dialog.appendMessage(Message::Role::User, QStringLiteral("e"));
        QCOMPARE(contents(), QStringList{QStringLiteral("e")});
        Dialog source;
        source.appendMessage(Message::Role::System, QStringLiteral("s"));
        QVERIFY(source.copyTo(&dialog));
        QCOMPARE(contents(), QStringList{QStringLiteral("s")});
        JsonConfig json = dialog.toJson();
        dialog.appendMessage(Message::Role::User, QStringLiteral("f"));
        QCOMPARE(contents(), (QStringList{QStringLiteral("s"), QStringLiteral("f")}));
        dialog.fromJson(json);
        QCOMPARE(contents(), QStringList{QStringLiteral("s")});
        QCOMPARE(dialog.getLastMessage().getContent(), QStringLiteral("s"));
    }

    // Every field of a Message, images included, survives appendMessage → getMessages and
    // getLastMessage (Message → core handle → Message).
    void everyMessageFieldCrossesIntoTheDialogAndBack()
    {
        Dialog dialog;
        Message m(Message::Role::Tool, QStringLiteral("content é"));
        m.setName(QStringLiteral("name")).setToolCallID(QStringLiteral("call_1"))
            .setToolCalls(QStringLiteral("[{\"id\":\"call_1\"}]")).setReasoning(QStringLiteral("why"))
            .addImageURL(QStringLiteral("https://example.com/a.png"), QStringLiteral("low"))
            .addImageURL(QStringLiteral("data:image/png;base64,AAAA"));
        dialog.appendMessage(m);
        for (const Message& back : {dialog.getMessages().at(0), dialog.getLastMessage()}) {
            QCOMPARE(back.getRole(), Message::Role::Tool);
            QCOMPARE(back.getContent(), QStringLiteral("content é"));
            QCOMPARE(back.getName(), QStringLiteral("name"));
            QCOMPARE(back.getToolCallID(), QStringLiteral("call_1"));
            QCOMPARE(back.getToolCalls(), QStringLiteral("[{\"id\":\"call_1\"}]"));
            QCOMPARE(back.getReasoning(), QStringLiteral("why"));
            QCOMPARE(back.getImageURLs(),
                     (QStringList{QStringLiteral("https://example.com/a.png"), QStringLiteral("data:image/png;base64,AAAA")}));
            QCOMPARE(back.toJson().toString(QJsonDocument::Compact), m.toJson().toString(QJsonDocument::Compact));
        }
        // a moved-from message appends as a default one
        Message moved(Message::Role::Assistant, QStringLiteral("x"));
        Message target(std::move(moved));
        dialog.appendMessage(moved); // NOLINT(bugprone-use-after-move): the documented state
        QCOMPARE(dialog.getLastMessage().getRole(), Message::Role::User);
        QVERIFY(dialog.getLastMessage().getContent().isEmpty());
        QCOMPARE(target.getContent(), QStringLiteral("x"));
    }

    void signalsArriveOnDialogThreadFromStdThread()
    {
        Dialog dialog;
        QThread* received = nullptr;
        QList<qint32> indices;
        connect(&dialog, &Dialog::messageAppended, &dialog, [&](qint32 index) {
            received = QThread::currentThread();
            indices << index;
        }, Qt::DirectConnection);

        std::thread worker([&] {
            for (int i = 0; i < 50; ++i)
                dialog.appendMessage(Message::Role::User, QString::number(i));
        });
        worker.join();
        // Queued, not delivered yet: the worker is not the dialog's thread.
        QVERIFY(indices.isEmpty());
        // An edit on the dialog's own thread while events are queued is queued behind them.
        dialog.appendMessage(Message::Role::User, QStringLiteral("last"));
        QVERIFY(indices.isEmpty());
        QTRY_COMPARE(indices.size(), 51);
        QCOMPARE(received, QThread::currentThread());
        for (int i = 0; i < indices.size(); ++i)
            QCOMPARE(indices.at(i), i);
        // Once the queue is drained, delivery is direct again.
        dialog.appendMessage(Message::Role::User, QStringLiteral("direct"));
        QCOMPARE(indices.size(), 52);
    }

    void signalsArriveOnMovedDialogsThread()
    {
        QThread worker;
        worker.start();
        auto* dialog = new Dialog;
        dialog->moveToThread(&worker);
        std::atomic<QThread*> received{nullptr};
        std::atomic<int> count{0};
        connect(dialog, &Dialog::messageAppended, dialog, [&](qint32) {
            received = QThread::currentThread();
            ++count;
        }, Qt::DirectConnection);
        dialog->appendMessage(Message::Role::User, QStringLiteral("from main"));
        QTRY_COMPARE(count.load(), 1);
        QCOMPARE(received.load(), &worker);
        QMetaObject::invokeMethod(dialog, [dialog] { delete dialog; }, Qt::BlockingQueuedConnection);
        worker.quit();
        QVERIFY(worker.wait(5000));
    }

    void destroyedDialogDropsQueuedEvents()
    {
        auto* dialog = new Dialog;
        int delivered = 0;
        QObject receiver;
        connect(dialog, &Dialog::messageAppended, &receiver, [&](qint32) { ++delivered; });
        std::thread worker([&] {
            for (int i = 0; i < 20; ++i)
                dialog->appendMessage(Message::Role::User, QString::number(i));
        });
        worker.join();
        delete dialog;
        QTest::qWait(100);
        QCOMPARE(delivered, 0);
    }
};

QTEST_GUILESS_MAIN(TestDialog)
#include "tst_dialog.moc"
