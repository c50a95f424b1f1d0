// SPDX-License-Identifier: MIT
//
// DialogListModel (SPEC §H.5.2) under QAbstractItemModelTester (QtTest reporting mode): rows
// follow every change of the Center's dialogs — created, restored over, cloned, regenerated,
// removed, made through the C ABI, all replaced by fromJson — and each row's title and count
// follow its dialog, also during a real run against the scripted server.
#include <Agent/Center.h>
#include <Agent/Dialog.h>
#include <Agent/DialogListModel.h>

#include <visindigo_agent.h>

#include "ModelTesterTypes.h"
#include "Registrations.h"
#include "ScriptedServer.h"

#include <QtTest/QAbstractItemModelTester>
#include <QtTest/QtTest>

using namespace Visindigo::Agent;
using namespace ScriptedSteps;
using Visindigo::Utility::JsonConfig;

namespace {

QString roleText(const DialogListModel& model, int row, int role)
{
    return model.index(row).data(role).toString();
}

} // namespace

class TestDialogListModel : public QObject
{
    Q_OBJECT

    ScriptedServer server;
    Registrations registered;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(guiTypesAreKnown());
        QString error;
        QVERIFY2(server.start(&error), qPrintable(error));
        QVERIFY(Center::getInstance()->getDialogIds().isEmpty());
    }

    void cleanupTestCase() { server.stop(); }

    void cleanup()
    {
        for (const QString& id : Center::getInstance()->getDialogIds())
            Center::getInstance()->removeDialog(id);
        registered.clear();
    }

    void rowsFollowTheRegistry()
    {
        Center* center = Center::getInstance();
        DialogListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        const QHash<int, QByteArray> names = model.roleNames();
        for (const char* name : {"id", "title", "messageCount", "branchFromId"})
            QVERIFY2(names.values().contains(name), name);

        Dialog* first = center->createDialog();
        QCOMPARE(model.rowCount(), 0); // queued to the Center's event loop
        QTRY_COMPARE(model.rowCount(), 1);
        QCOMPARE(model.dialogAt(0), first);
        QCOMPARE(model.rowOf(first->getId()), 0);
        QCOMPARE(roleText(model, 0, Qt::DisplayRole), QStringLiteral("New conversation"));
        QCOMPARE(roleText(model, 0, DialogListModel::TitleRole), QString());

        // The title is the first user message, on one line; it follows appends at once.
        first->appendMessage(Message::Role::System, QStringLiteral("be brief"));
        first->appendMessage(Message::Role::User, QStringLiteral("  Hello\n   world  "));
        first->appendMessage(Message::Role::User, QStringLiteral("second"));
        QCOMPARE(roleText(model, 0, DialogListModel::TitleRole), QStringLiteral("Hello world"));
        QCOMPARE(model.index(0).data(DialogListModel::MessageCountRole).toInt(), 3);

        Dialog* branch = center->cloneDialog(first->getId());
        QTRY_COMPARE(model.rowCount(), 2);
        const int branchRow = model.rowOf(branch->getId());
        QCOMPARE(roleText(model, branchRow, DialogListModel::BranchFromIdRole), first->getId());
        QCOMPARE(roleText(model, branchRow, DialogListModel::TitleRole), QStringLiteral("Hello world"));

        // Restored over the same id: still one row, showing the restored dialog.
        JsonConfig saved = first->toJson();
        first->clearMessages();
        QCOMPARE(model.index(model.rowOf(saved.getString(QStringLiteral("id")))).data(DialogListModel::MessageCountRole).toInt(), 0);
        Dialog* restored = center->restoreDialog(saved);
        QTRY_COMPARE(model.dialogAt(model.rowOf(restored->getId())), restored);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(model.rowOf(restored->getId())).data(DialogListModel::MessageCountRole).toInt(), 3);

        // A long first message is cut to titleLength characters.
        restored->clearMessages();
        restored->appendMessage(Message::Role::User, QString(200, QLatin1Char('w')));
        const QString title = roleText(model, model.rowOf(restored->getId()), DialogListModel::TitleRole);
        QCOMPARE(title.size(), DialogListModel::titleLength);
        QVERIFY(title.endsWith(QChar(0x2026)));

        // Through the C ABI, on the global Center: the Qt list shows it too.
        ViDialog* handle = nullptr;
        QCOMPARE(vi_center_create_dialog(vi_center_global(), &handle), VI_STATUS_OK);
        ViString* id = nullptr;
        QCOMPARE(vi_dialog_id(handle, &id), VI_STATUS_OK);
        const QString cId = QString::fromUtf8(vi_string_view(id).data, qsizetype(vi_string_view(id).len));
        vi_string_free(id);
        vi_dialog_free(handle);
        QTRY_COMPARE(model.rowCount(), 3);
        QVERIFY(model.rowOf(cId) >= 0);

        center->removeDialog(branch->getId());
        center->removeDialog(cId);
        QTRY_COMPARE(model.rowCount(), 1);
        QCOMPARE(model.rowOf(restored->getId()), 0);

        // Added and removed before the event loop ran: never a row.
        const QString brief = center->createDialog()->getId();
        center->removeDialog(brief);
        QTest::qWait(50);
        QCOMPARE(model.rowCount(), 1);

        // The rows stay sorted by id, as getDialogIds() lists them.
        for (int i = 0; i < 5; ++i)
            center->createDialog();
        QTRY_COMPARE(model.rowCount(), 6);
        QStringList shown;
        for (int i = 0; i < model.rowCount(); ++i)
            shown << roleText(model, i, DialogListModel::IdRole);
        QCOMPARE(shown, center->getDialogIds());
    }

    void fromJsonReplacesTheRows()
    {
        Center* center = Center::getInstance();
        center->createDialog()->appendMessage(Message::Role::User, QStringLiteral("old"));
        DialogListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 1); // the dialogs already there
        QCOMPARE(roleText(model, 0, DialogListModel::TitleRole), QStringLiteral("old"));
        const JsonConfig doc = JsonConfig::fromJson(QStringLiteral(
            R"({"dialogs":[{"id":"a","messages":[{"role":"user","content":"one"}]},{"id":"b","branchFromId":"a"}]})"));
        QVERIFY(center->fromJson(doc));
        QTRY_COMPARE(model.rowCount(), 2);
        QCOMPARE(roleText(model, 0, DialogListModel::IdRole), QStringLiteral("a"));
        QCOMPARE(roleText(model, 0, DialogListModel::TitleRole), QStringLiteral("one"));
        QCOMPARE(roleText(model, 1, DialogListModel::BranchFromIdRole), QStringLiteral("a"));
        QVERIFY(!center->fromJson(JsonConfig::fromJson(QStringLiteral("{}"))));
        QTest::qWait(20);
        QCOMPARE(model.rowCount(), 2);
    }

    void aRunAndRegenerateShowInTheList()
    {
        QVERIFY(server.setScript({answer({QStringLiteral("Hi "), QStringLiteral("there.")}), answer({QStringLiteral("Hello!")})}));
        Model m;
        m.setName(QStringLiteral("list-model")).setUrl(server.url(QStringLiteral("/v1"))).setToken(QStringLiteral("t"));
        const QString provider = registered.addProvider({registered.addModel(m)});
        Center* center = Center::getInstance();
        DialogListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        Dialog* dialog = center->createDialog();
        dialog->setProviderId(provider);
        dialog->appendMessage(Message::Role::User, QStringLiteral("greet me"));
        QTRY_COMPARE(model.rowCount(), 1);
        bool finished = false;
        connect(dialog, &Dialog::runFinished, this, [&] { finished = true; });
        dialog->run();
        QTRY_VERIFY_WITH_TIMEOUT(finished, 10000);
        QCOMPARE(model.index(0).data(DialogListModel::MessageCountRole).toInt(), 2);

        Dialog* again = center->regenerate(dialog->getId());
        QVERIFY(again);
        bool regenerated = false;
        connect(again, &Dialog::runFinished, this, [&] { regenerated = true; });
        QTRY_VERIFY_WITH_TIMEOUT(regenerated, 10000);
        QTRY_COMPARE(model.rowCount(), 2);
        const int row = model.rowOf(again->getId());
        QCOMPARE(roleText(model, row, DialogListModel::BranchFromIdRole), dialog->getId());
        QCOMPARE(roleText(model, row, DialogListModel::TitleRole), QStringLiteral("greet me"));
        QTRY_COMPARE(model.index(row).data(DialogListModel::MessageCountRole).toInt(), 2);
        QCOMPARE(again->getLastMessage().getContent(), QStringLiteral("Hello!"));
    }
};

QTEST_GUILESS_MAIN(TestDialogListModel)
#include "tst_dialoglistmodel.moc"
