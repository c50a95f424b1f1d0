// SPDX-License-Identifier: MIT
//
// The QML page used as a person would, offscreen: type into the input, press Enter, watch the
// answer stream into the ListView (the row in progress grows), press Stop during the next one;
// the ListView shows what MessageModel says. Grabs the window to $VI_SCREENSHOT.
#include "ChatController.h"

#include <QtQml/QQmlApplicationEngine>
#include <QtQml/QQmlContext>
#include <QtQuick/QQuickItem>
#include <QtQuick/QQuickWindow>
#include <QtTest/QtTest>

using namespace Visindigo::Agent;

class TestChatQml : public QObject
{
    Q_OBJECT

    ChatController chat;
    QQmlApplicationEngine engine;
    QQuickWindow* window = nullptr;

    QQuickItem* item(const char* name) const
    {
        auto* found = window->findChild<QQuickItem*>(QLatin1String(name));
        if (!found)
            qFatal("no %s on the page", name);
        return found;
    }

    int shownRows() const { return item("messages")->property("count").toInt(); }

    // Clicks a Button item in the middle.
    void click(const char* name)
    {
        QQuickItem* button = item(name);
        QTest::mouseClick(window, Qt::LeftButton, {}, button->mapToScene(QPointF(button->width() / 2, button->height() / 2)).toPoint());
    }

    void type(const QString& text)
    {
        QQuickItem* input = item("input");
        QTest::mouseClick(window, Qt::LeftButton, {}, input->mapToScene(QPointF(input->width() / 2, input->height() / 2)).toPoint());
        QTRY_VERIFY(input->hasActiveFocus());
        for (const QChar c : text) // QTest::keyClicks is for widgets; a QWindow gets keys one by one
            QTest::keyClick(window, c.toLatin1());
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(chat.open(&error), qPrintable(error));
        engine.rootContext()->setContextProperty(QStringLiteral("chat"), &chat);
        engine.load(QUrl(QStringLiteral("qrc:/chat-qml/Main.qml")));
        QVERIFY(!engine.rootObjects().isEmpty());
        window = qobject_cast<QQuickWindow*>(engine.rootObjects().first());
        QVERIFY(window);
        QVERIFY(QTest::qWaitForWindowExposed(window));
    }

    void anAnswerStreamsIntoTheList()
    {
        QCOMPARE(shownRows(), 0);
        type(QStringLiteral("Hello from QML"));
        QTest::keyClick(window, Qt::Key_Return);
        QSignalSpy finished(chat.dialog(), &Dialog::runFinished);
        QVERIFY(finished.wait(15000));
        // user, assistant with the tool call, the tool result, the answer.
        QTRY_COMPARE(shownRows(), 4);
        QCOMPARE(chat.messages()->rowCount(), 4);
        QVERIFY(item("input")->property("text").toString().isEmpty());
    }

    void stopDuringTheNextAnswer()
    {
        type(QStringLiteral("And now?"));
        click("send");
        // The row in progress is there and growing.
        QTRY_COMPARE_WITH_TIMEOUT(shownRows(), 6, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(chat.dialog()->getStreamingContent().size() > 20, 10000);
        QVERIFY(chat.messages()->index(5).data(MessageModel::StreamingRole).toBool());
        click("stop");
        QVERIFY(!chat.dialog()->isStreaming());
        QTRY_VERIFY(!chat.streaming());
        QCOMPARE(shownRows(), 6);
        const QString kept = chat.messages()->index(5).data(MessageModel::ContentRole).toString();
        QVERIFY2(kept.startsWith(QStringLiteral("Offline demo:")) && !kept.contains(QStringLiteral("real model")), qPrintable(kept));
        QVERIFY(!chat.messages()->index(5).data(MessageModel::StreamingRole).toBool());
        QTest::qWait(50);
        const QString path = qEnvironmentVariable("VI_SCREENSHOT", QStringLiteral("chat-qml.png"));
        QVERIFY2(window->grabWindow().save(path), qPrintable(path));
    }
};

QTEST_MAIN(TestChatQml)
#include "tst_chatqml.moc"
