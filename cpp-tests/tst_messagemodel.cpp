// SPDX-License-Identifier: MIT
//
// MessageModel (SPEC §H.5) under QAbstractItemModelTester (QtTest reporting mode) through
// every path: appends, the answer in progress during real runs against the scripted server
// (tool rounds, stop, abort), truncation, clearing, fromJson, the dialog's destruction, and the
// coalescing of streamed text into one dataChanged per event-loop pass.
#include <Agent/Center.h>
#include <Agent/Dialog.h>
#include <Agent/Function.h>
#include <Agent/MessageModel.h>

#include "ModelTesterTypes.h"
#include "Registrations.h"
#include "ScriptedServer.h"

#include <QtTest/QAbstractItemModelTester>
#include <QtTest/QtTest>

using namespace Visindigo::Agent;
using namespace ScriptedSteps;
using Visindigo::Utility::JsonConfig;

namespace {

class Clock : public Function
{
public:
    QString getId() const override { return QStringLiteral("get_time"); }
    QString getName() const override { return QStringLiteral("Clock"); }
    QString getDescription() const override { return QStringLiteral("Tells the time"); }
    JsonConfig getParameterSchema() const override { return JsonConfig::fromJson(QStringLiteral(R"({"type":"object"})")); }
    JsonConfig invoke(const JsonConfig&) override
    {
        JsonConfig result;
        result.setString(QStringLiteral("time"), QStringLiteral("noon"));
        return result;
    }
};

// The model's rows as "role:content[*]" (* = the answer in progress).
QStringList rows(const MessageModel& model)
{
    QStringList out;
    for (int i = 0; i < model.rowCount(); ++i) {
        const QModelIndex index = model.index(i);
        out << index.data(MessageModel::RoleRole).toString() + QLatin1Char(':') + index.data(MessageModel::ContentRole).toString()
                   + (index.data(MessageModel::StreamingRole).toBool() ? QStringLiteral("*") : QString());
    }
    return out;
}

} // namespace

class TestMessageModel : public QObject
{
    Q_OBJECT

    ScriptedServer server;
    Registrations registered;

    Dialog* newDialog(QObject* owner)
    {
        Model model;
        model.setName(QStringLiteral("view-model")).setUrl(server.url(QStringLiteral("/v1"))).setToken(QStringLiteral("t"));
        return registered.newDialog(owner, {registered.addModel(model)});
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(guiTypesAreKnown());
        QString error;
        QVERIFY2(server.start(&error), qPrintable(error));
    }

    void cleanupTestCase() { server.stop(); }

    void cleanup()
    {
        registered.clear();
    }

    void rolesAndEditsWithoutARun()
    {
        Dialog dialog;
        dialog.appendMessage(Message::Role::System, QStringLiteral("be brief"));
        MessageModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setDialog(&dialog);
        QCOMPARE(rows(model), QStringList{QStringLiteral("system:be brief")});
        const QHash<int, QByteArray> names = model.roleNames();
        for (const char* name : {"role", "content", "reasoning", "name", "toolCalls", "toolCallId", "images", "streaming"})
            QVERIFY2(names.values().contains(name), name);
        Message withImage(Message::Role::User, QStringLiteral("look"));
        withImage.addImageURL(QStringLiteral("https://x/a.png"));
        dialog.appendMessage(withImage).appendMessage(Message::Role::Assistant, QStringLiteral("a cat"));
        QCOMPARE(rows(model), (QStringList{QStringLiteral("system:be brief"), QStringLiteral("user:look"), QStringLiteral("assistant:a cat")}));
        QCOMPARE(model.index(1).data(MessageModel::ImagesRole).toStringList(), QStringList{QStringLiteral("https://x/a.png")});
        dialog.truncateTo(2);
        QCOMPARE(model.rowCount(), 2);
        const JsonConfig saved = dialog.toJson();
        dialog.clearMessages();
        QCOMPARE(model.rowCount(), 0);
        dialog.fromJson(saved);
        QCOMPARE(rows(model), (QStringList{QStringLiteral("system:be brief"), QStringLiteral("user:look")}));
        Dialog other;
        other.appendMessage(Message::Role::User, QStringLiteral("copied"));
        other.copyTo(&dialog);
        QCOMPARE(rows(model), QStringList{QStringLiteral("user:copied")});
        model.setDialog(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void streamedTextIsCoalescedPerEventLoopPass()
    {
        Dialog dialog;
        MessageModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setDialog(&dialog);
        int changes = 0;
        connect(&model, &QAbstractItemModel::dataChanged, this, [&] { ++changes; });
        dialog.beginAssistantMessage();
        QCOMPARE(rows(model), QStringList{QStringLiteral("assistant:*")});
        for (int i = 0; i < 3000; ++i)
            dialog.appendDelta(QStringLiteral("x"));
        QCOMPARE(changes, 0); // not one per delta
        QCoreApplication::processEvents();
        QCOMPARE(changes, 1);
        QCOMPARE(model.index(0).data(MessageModel::ContentRole).toString().size(), 3000);
        dialog.endAssistantMessage();
        QCOMPARE(rows(model), QStringList{QStringLiteral("assistant:") + QString(3000, QLatin1Char('x'))});
        QCoreApplication::processEvents();
        QCOMPARE(changes, 1); // the queued update found no stream left
    }

    void aRunWithAToolRound()
    {
        QVERIFY(server.setScript({sse({deltaChunk(QJsonObject{{"reasoning_content", "Hmm"}}), contentChunk(QStringLiteral("Checking. ")),
                                       toolCallChunk(QStringLiteral("call_1"), QStringLiteral("get_time"), QStringLiteral("{}")), done()}),
                                  answer({QStringLiteral("It is "), QStringLiteral("noon.")})}));
        Center::getInstance()->addFunction(new Clock);
        QObject owner;
        Dialog* dialog = newDialog(&owner);
        dialog->appendMessage(Message::Role::User, QStringLiteral("time?"));
        MessageModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setDialog(dialog);
        bool finished = false;
        connect(dialog, &Dialog::runFinished, this, [&] { finished = true; });
        dialog->run();
        QTRY_VERIFY_WITH_TIMEOUT(finished, 10000);
        QCoreApplication::processEvents();
        QCOMPARE(rows(model), (QStringList{QStringLiteral("user:time?"), QStringLiteral("assistant:Checking. "),
                                           QStringLiteral(R"(tool:{"time":"noon"})"), QStringLiteral("assistant:It is noon.")}));
        QCOMPARE(model.index(1).data(MessageModel::ReasoningRole).toString(), QStringLiteral("Hmm"));
        QVERIFY(model.index(1).data(MessageModel::ToolCallsRole).toString().contains(QStringLiteral("call_1")));
        QCOMPARE(model.index(2).data(MessageModel::ToolCallIdRole).toString(), QStringLiteral("call_1"));
    }

    void stopAndAbortWhileStreaming()
    {
        QVERIFY(server.setScript({sse({contentChunk(QStringLiteral("Half")), stall()}), sse({contentChunk(QStringLiteral("Gone")), stall()})}));
        QObject owner;
        Dialog* dialog = newDialog(&owner);
        dialog->appendMessage(Message::Role::User, QStringLiteral("q"));
        MessageModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setDialog(dialog);
        dialog->run();
        QTRY_COMPARE_WITH_TIMEOUT(rows(model), (QStringList{QStringLiteral("user:q"), QStringLiteral("assistant:Half*")}), 10000);
        dialog->stop();
        QTRY_COMPARE(rows(model), (QStringList{QStringLiteral("user:q"), QStringLiteral("assistant:Half")}));
        dialog->run();
        QTRY_COMPARE_WITH_TIMEOUT(rows(model).last(), QStringLiteral("assistant:Gone*"), 10000);
        dialog->abort();
        QTRY_COMPARE(rows(model), (QStringList{QStringLiteral("user:q"), QStringLiteral("assistant:Half")}));
    }

    void theDialogsDestructionEmptiesTheModel()
    {
        auto* dialog = new Dialog;
        dialog->appendMessage(Message::Role::User, QStringLiteral("q"));
        MessageModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setDialog(dialog);
        dialog->beginAssistantMessage();
        dialog->appendDelta(QStringLiteral("x"));
        QCOMPARE(model.rowCount(), 2);
        delete dialog;
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.dialog(), nullptr);
        QCoreApplication::processEvents(); // the queued update finds nothing to update
    }
};

QTEST_GUILESS_MAIN(TestMessageModel)
#include "tst_messagemodel.moc"
