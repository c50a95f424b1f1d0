// SPDX-License-Identifier: MIT
//
// The chat window used as a person would (SPEC §H.5), offscreen: it starts in the offline demo
// and says so, a message typed and sent with Ctrl+Enter streams its answer through a tool
// round, Stop during the second answer keeps what was said, "Branch from here" and Regenerate
// make new conversations, the settings dialog refuses an incomplete model and then points the
// window at a local server, where a tool call waits for the user's approval and the status bar
// shows the token usage, the token entered there is stored where the window says (SPEC §I.5.2),
// and the conversations and tokens come back from what was saved as after a restart. Last, a
// small context window and "Drop oldest" set in the settings make a long conversation leave
// its earlier turns out of what is sent, with a quiet notice in the status bar and the history
// shown unchanged (SPEC §I.4).
// It grabs the window to $VI_SCREENSHOT (the README's picture), the window and its settings
// with the token's place to $VI_SCREENSHOT with "-tokens" and "-settings" before ".png", and the
// settings with the context window and the window with the notice with "-context-settings" and
// "-context".
//
// VI_TOKEN_STORE says where the tokens must go (examples/CMakeLists.txt runs it both ways):
// "keychain" — a keychain answers (tools/with-keyring.sh: a fresh gnome-keyring on a private
// D-Bus session); "file" — none does (no session bus, or no QtKeychain in the build);
// "skip:<why>" — no keychain could be set up: the suite is skipped, saying why.
#include "ChatWindow.h"
#include "Keychain.h"
#include "MessageDelegate.h"
#include "SettingsDialog.h"
#include "Workspace.h"

#include <Agent/Center.h>
#include <Agent/Dialog.h>
#include <Agent/DialogListModel.h>
#include <Agent/MessageModel.h>

#include <QtCore/QFile>
#include <QtCore/QDir>
#include <QtCore/QFileInfo>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtCore/QTemporaryFile>
#include <QtGui/QAction>
#include <QtTest/QtTest>
#include <QtWidgets/QApplication>
#include <QtWidgets/QComboBox>
#include <QtWidgets/QLabel>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QListView>
#include <QtWidgets/QPlainTextEdit>
#include <QtWidgets/QPushButton>
#include <QtWidgets/QSpinBox>
#include <QtWidgets/QStatusBar>

using namespace Visindigo::Agent;

namespace {

const QString kReminder = QStringLiteral("Offline demo: I only replay a script.");

// VI_TOKEN_STORE (above).
QString tokenStore()
{
    return qEnvironmentVariable("VI_TOKEN_STORE");
}

// $VI_SCREENSHOT with `suffix` before its ".png".
QString screenshot(const QString& suffix)
{
    QString path = qEnvironmentVariable("VI_SCREENSHOT", QStringLiteral("chat-window.png"));
    return path.insert(path.size() - 4, suffix);
}

QStringList rows(QListView* view)
{
    QStringList out;
    QAbstractItemModel* model = view->model();
    for (int i = 0; i < model->rowCount(); ++i) {
        const QModelIndex index = model->index(i, 0);
        out << index.data(MessageModel::RoleRole).toString() + QLatin1Char(':')
                   + index.data(MessageModel::ContentRole).toString()
                   + (index.data(MessageModel::StreamingRole).toBool() ? QStringLiteral("*") : QString());
    }
    return out;
}

} // namespace

class TestChatWindow : public QObject
{
    Q_OBJECT

    QTemporaryDir home;
    std::unique_ptr<Workspace> workspace;
    std::unique_ptr<ChatWindow> window;

    template <typename T>
    T* child(const char* name)
    {
        T* found = window->findChild<T*>(QLatin1String(name));
        if (!found)
            qFatal("no %s in the window", name);
        return found;
    }

    // Types `text` into the input box and presses Ctrl+Enter; returns when the run finished.
    bool say(const QString& text)
    {
        auto* input = child<QPlainTextEdit>("input");
        window->activateWindow(); // as after a click into it
        if (!QTest::qWaitForWindowActive(window.get()))
            return false;
        input->setFocus();
        QTest::keyClicks(input, text);
        Dialog* dialog = window->currentDialog();
        QSignalSpy finished(dialog, &Dialog::runFinished);
        QTest::keyClick(input, Qt::Key_Return, Qt::ControlModifier);
        return finished.wait(15000) && input->toPlainText().isEmpty();
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (tokenStore().startsWith(QLatin1String("skip:")))
            QSKIP(qPrintable(tokenStore().mid(5)));
        if (tokenStore() == QLatin1String("keychain") && !Keychain::built())
            QSKIP("this build has no QtKeychain (Debian: qtkeychain-qt6-dev; CMake option VISINDIGO_AGENT_KEYCHAIN)");
        QVERIFY(home.isValid());
        qputenv("XDG_DATA_HOME", home.path().toUtf8()); // AppDataLocation below it
        QCoreApplication::setApplicationName(QStringLiteral("chat-window"));
        workspace = std::make_unique<Workspace>();
        QString error;
        QVERIFY2(workspace->open(&error), qPrintable(error));
        QVERIFY(workspace->isDemo());
        window = std::make_unique<ChatWindow>(workspace.get());
        window->resize(900, 620);
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    }

    void cleanupTestCase()
    {
        window.reset();
        workspace.reset();
    }

    void startsInTheOfflineDemoAndSaysSo()
    {
        QTRY_VERIFY(window->currentDialog());
        QVERIFY(child<QLabel>("source")->text().startsWith(QStringLiteral("Offline demo")));
        QCOMPARE(child<QListView>("conversations")->model()->rowCount(), 1);
        QVERIFY(child<QPushButton>("send")->isEnabled());
        QVERIFY(!child<QPushButton>("stop")->isEnabled());
    }

    void anAnswerStreamsThroughAToolRound()
    {
        auto* messages = child<QListView>("messages");
        QVERIFY(say(QStringLiteral("Hello! What time is it?")));
        const QStringList shown = rows(messages);
        QCOMPARE(shown.size(), 4);
        QCOMPARE(shown[0], QStringLiteral("user:Hello! What time is it?"));
        QCOMPARE(shown[1], QStringLiteral("assistant:Let me check the time. "));
        QVERIFY2(shown[2].startsWith(QStringLiteral("tool:{\"now\":")), qPrintable(shown[2]));
        QVERIFY(shown[3].startsWith(QStringLiteral("assistant:The clock tool answered")));
        QVERIFY(messages->model()->index(1, 0).data(MessageModel::ToolCallsRole).toString().contains(QStringLiteral("get_current_time")));
        QVERIFY(child<QLabel>("usage")->text().isEmpty() || child<QLabel>("usage")->text().startsWith(QStringLiteral("Tokens")));
        // The conversation list titles it after the question.
        QCOMPARE(child<QListView>("conversations")->model()->index(0, 0).data().toString(), QStringLiteral("Hello! What time is it?"));
    }

    void stopKeepsWhatWasSaid()
    {
        auto* messages = child<QListView>("messages");
        auto* input = child<QPlainTextEdit>("input");
        QTest::keyClicks(input, QStringLiteral("Tell me more."));
        QTest::mouseClick(child<QPushButton>("send"), Qt::LeftButton);
        // Some words in, the user presses Stop.
        QTRY_VERIFY_WITH_TIMEOUT(rows(messages).last().endsWith(QLatin1Char('*'))
                                     && rows(messages).last().size() > int(QStringLiteral("assistant:Offline demo: ").size()),
                                 10000);
        QVERIFY(child<QPushButton>("stop")->isEnabled());
        QVERIFY(!child<QPushButton>("send")->isEnabled());
        QTest::mouseClick(child<QPushButton>("stop"), Qt::LeftButton);
        QVERIFY(!window->currentDialog()->isStreaming());
        const QString last = rows(messages).last();
        QVERIFY2(last.startsWith(QStringLiteral("assistant:Offline demo:")) && !last.endsWith(QLatin1Char('*')), qPrintable(last));
        QVERIFY2(!last.contains(QStringLiteral("real model")), qPrintable(last)); // cut before the end
        QCOMPARE(rows(messages).size(), 6);
        QTRY_VERIFY(child<QPushButton>("send")->isEnabled());
        QVERIFY(!child<QPushButton>("stop")->isEnabled());
    }

    void theWindowAsShown()
    {
        // The reasoning of the first answer opened, as a click on its line would.
        auto* messages = child<QListView>("messages");
        auto* delegate = qobject_cast<MessageDelegate*>(messages->itemDelegate());
        QVERIFY(delegate);
        const QModelIndex first = messages->model()->index(1, 0);
        const QRect rect = messages->visualRect(first);
        QVERIFY(!delegate->reasoningShown(first));
        // The "Reasoning" line is the bubble's second line (the first, "Assistant", and it are
        // in small print), inside its margin and padding.
        const qreal line = QFontMetricsF(messages->font()).lineSpacing() * 0.85;
        QTest::mouseClick(messages->viewport(), Qt::LeftButton, {}, rect.topLeft() + QPoint(40, 4 + 10 + int(line * 1.5)));
        QVERIFY(delegate->reasoningShown(first));
        QTest::qWait(50);
        const QString path = qEnvironmentVariable("VI_SCREENSHOT", QStringLiteral("chat-window.png"));
        QVERIFY2(window->grab().save(path), qPrintable(path));
        QVERIFY(QFile(path).size() > 10000);
    }

    void branchFromHereAndRegenerate()
    {
        auto* conversations = child<QListView>("conversations");
        auto* messages = child<QListView>("messages");
        Dialog* original = window->currentDialog();
        messages->setCurrentIndex(messages->model()->index(0, 0)); // the first question
        QTest::mouseClick(child<QPushButton>("branch"), Qt::LeftButton);
        QTRY_COMPARE(conversations->model()->rowCount(), 2);
        QTRY_VERIFY(window->currentDialog() != original);
        Dialog* branch = window->currentDialog();
        QCOMPARE(branch->getBranchFromID(), original->getId());
        QCOMPARE(rows(messages), QStringList{QStringLiteral("user:Hello! What time is it?")});

        conversations->setCurrentIndex(conversations->model()->index(
            qobject_cast<DialogListModel*>(conversations->model())->rowOf(original->getId()), 0));
        QCOMPARE(window->currentDialog(), original);
        QTest::mouseClick(child<QPushButton>("regenerate"), Qt::LeftButton);
        QTRY_COMPARE(conversations->model()->rowCount(), 3);
        QTRY_VERIFY(window->currentDialog() != original && window->currentDialog() != branch);
        // The answer is shown once its signals reached the window (isStreaming() turns false
        // in the core before that).
        QTRY_VERIFY_WITH_TIMEOUT(rows(messages).last().startsWith(QStringLiteral("assistant:") + kReminder), 15000);
        QVERIFY(!window->currentDialog()->isStreaming());
    }

    void settingsPointTheWindowAtAServer()
    {
        // A local OpenAI-compatible server of our own: the scripted server playing a tool call,
        // then an answer that reports its token usage.
        QTemporaryFile scriptFile;
        const QByteArray script = R"({"responses": [
 {"events": [{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function",
              "function":{"name":"get_current_time","arguments":"{}"}}]}}]}, {"$done": true}]},
 {"events": [{"choices":[{"index":0,"delta":{"content":"Local answer after the clock."}}]},
             {"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":5,"total_tokens":17}}, {"$done": true}]}
]})";
        QVERIFY(scriptFile.open() && scriptFile.write(script) == script.size() && scriptFile.flush());
        QProcess server;
        server.start(QStringLiteral(VI_SCRIPTED_SERVER), {QStringLiteral("--script"), scriptFile.fileName()});
        QVERIFY(server.waitForStarted(5000) && server.waitForReadyRead(5000));
        const QByteArray line = server.readLine().trimmed();
        QVERIFY2(line.startsWith("PORT "), line.constData());
        const QString url = QStringLiteral("http://127.0.0.1:%1/v1").arg(QString::fromLatin1(line.mid(5)));

        bool refused = false;
        QTimer::singleShot(0, this, [&] {
            auto* dialog = qobject_cast<SettingsDialog*>(QApplication::activeModalWidget());
            QVERIFY(dialog);
            dialog->findChild<QLineEdit*>(QStringLiteral("url"))->setText(url);
            dialog->findChild<QLineEdit*>(QStringLiteral("modelName"))->setText(QStringLiteral("local-model"));
            QCOMPARE(dialog->findChild<QComboBox*>(QStringLiteral("api"))->currentIndex(), 0); // Chat Completions
            QCOMPARE(dialog->findChild<QLineEdit*>(QStringLiteral("token"))->echoMode(), QLineEdit::Password);
            dialog->accept(); // no token yet: refused, the dialog stays
            refused = dialog->isVisible() && dialog->findChild<QLabel*>(QStringLiteral("problem"))->isVisible();
            dialog->findChild<QLineEdit*>(QStringLiteral("token"))->setText(QStringLiteral("sk-local"));
            dialog->accept();
        });
        window->openSettings();
        QVERIFY(refused);
        QVERIFY(!workspace->isDemo());
        QCOMPARE(child<QLabel>("source")->text(), QStringLiteral("local-model at ") + url);

        // A new conversation that asks before running tools.
        QTest::mouseClick(child<QPushButton>("newConversation"), Qt::LeftButton);
        QTRY_COMPARE(child<QListView>("conversations")->model()->rowCount(), 4);
        QTRY_COMPARE(window->currentDialog()->getMessageCount(), 0);
        window->findChild<QAction*>(QStringLiteral("askBeforeTools"))->trigger();
        QVERIFY(window->currentDialog()->getToolApproval());
        auto* input = child<QPlainTextEdit>("input");
        QTest::keyClicks(input, QStringLiteral("What time is it there?"));
        QTest::mouseClick(child<QPushButton>("send"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(child<QWidget>("approvalBar")->isVisible(), 10000);
        QVERIFY2(child<QLabel>("approvalText")->text().contains(QStringLiteral("get_current_time")),
                 qPrintable(child<QLabel>("approvalText")->text()));
        QSignalSpy finished(window->currentDialog(), &Dialog::runFinished);
        QTest::mouseClick(child<QPushButton>("approve"), Qt::LeftButton);
        QVERIFY(finished.wait(10000));
        QVERIFY(!child<QWidget>("approvalBar")->isVisible());
        const QStringList shown = rows(child<QListView>("messages"));
        QCOMPARE(shown.size(), 4);
        QVERIFY2(shown[2].startsWith(QStringLiteral("tool:{\"now\":")), qPrintable(shown[2])); // it ran
        QCOMPARE(shown[3], QStringLiteral("assistant:Local answer after the clock."));
        QCOMPARE(child<QLabel>("usage")->text(), QStringLiteral("Tokens: 12 in, 5 out"));
        server.closeWriteChannel();
        QVERIFY(server.waitForFinished(5000));
    }

    void theTokenIsKeptWhereTheWindowSays()
    {
        // An MCP server with a credential header, beside the model's token from Settings…
        MCP docs(QStringLiteral("docs"));
        docs.setTransport(MCP::Transport::StreamableHttp).setUrl(QUrl(QStringLiteral("http://127.0.0.1:9/mcp"))).setEnabled(false);
        docs.setHeaders({{QStringLiteral("Authorization"), QStringLiteral("Bearer mcp-secret")},
                         {QStringLiteral("Accept-Language"), QStringLiteral("de")}});
        Center::getInstance()->addMCP(docs);
        // … and a stdio server with a credential in its environment.
        MCP github(QStringLiteral("github"));
        github.setCommand(QStringLiteral("github-mcp-server")).setEnabled(false);
        github.setEnvironment({{QStringLiteral("GITHUB_TOKEN"), QStringLiteral("ghp-window-secret")},
                               {QStringLiteral("GITHUB_HOST"), QStringLiteral("github.example")}});
        Center::getInstance()->addMCP(github);
        QString error;
        QVERIFY2(workspace->save(&error), qPrintable(error));

        QFile file(Workspace::storagePath());
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray saved = file.readAll();
        // Readable by its owner only, wherever the tokens are.
        const QFileDevice::Permissions others = QFileDevice::ReadGroup | QFileDevice::WriteGroup | QFileDevice::ExeGroup
                                               | QFileDevice::ReadOther | QFileDevice::WriteOther | QFileDevice::ExeOther;
        QCOMPARE(file.permissions() & others, QFileDevice::Permissions());
        QVERIFY(file.permissions().testFlags(QFileDevice::ReadOwner | QFileDevice::WriteOwner));
        QVERIFY(saved.contains("Accept-Language") && saved.contains("github.example")); // not credentials: stay in the file
        auto* warning = child<QLabel>("tokenWarning");
        if (tokenStore() == QLatin1String("keychain")) {
            QCOMPARE(workspace->tokenStore(), Workspace::TokenStore::Keychain);
            QVERIFY2(!saved.contains("sk-local") && !saved.contains("mcp-secret") && !saved.contains("ghp-window-secret"), saved.constData());
            QVERIFY(saved.contains("\"secretsOmitted\": true"));
            QVERIFY(!warning->isVisible());
            const Keychain::Result entry = Keychain::read(Workspace::storagePath());
            QCOMPARE(entry.status, Keychain::Result::Ok);
            QVERIFY(entry.data.contains("sk-local") && entry.data.contains("Bearer mcp-secret") && entry.data.contains("ghp-window-secret"));
            QVERIFY(!entry.data.contains("Accept-Language") && !entry.data.contains("github.example"));
        } else if (tokenStore() == QLatin1String("file")) {
            QCOMPARE(workspace->tokenStore(), Workspace::TokenStore::File);
            QVERIFY(saved.contains("sk-local") && saved.contains("mcp-secret") && saved.contains("ghp-window-secret"));
            QVERIFY(!saved.contains("secretsOmitted"));
            QVERIFY(warning->isVisible());
            QVERIFY2(warning->text().contains(QLatin1String("keychain")) && warning->text().contains(Workspace::storagePath()),
                     qPrintable(warning->text()));
        }
        QVERIFY2(window->grab().save(screenshot(QStringLiteral("-tokens"))), qPrintable(screenshot(QStringLiteral("-tokens"))));

        // Settings… says where the token is kept.
        QString note;
        QTimer::singleShot(0, this, [&] {
            auto* dialog = qobject_cast<SettingsDialog*>(QApplication::activeModalWidget());
            QVERIFY(dialog);
            auto* label = dialog->findChild<QLabel*>(QStringLiteral("tokenNote"));
            QVERIFY(label && label->isVisible());
            note = label->text();
            QVERIFY(dialog->grab().save(screenshot(QStringLiteral("-settings"))));
            dialog->reject();
        });
        window->openSettings();
        QCOMPARE(note, workspace->tokenNote());
        QVERIFY2(note.contains(tokenStore() == QLatin1String("keychain") ? QLatin1String("kept in the system keychain")
                                                                         : QLatin1String("readable only by you")),
                 qPrintable(note));
    }

    // Quits and starts again: the window and workspace go, and the new ones see what a new
    // process would — the Center restored from the file (and the keychain), nothing else.
    bool restart()
    {
        window.reset();
        workspace.reset();
        if (!Center::getInstance()->fromJson(Visindigo::Utility::JsonConfig(QStringLiteral(R"({"dialogs":[]})")))
            || !Center::getInstance()->getModelIds().isEmpty())
            return false;
        workspace = std::make_unique<Workspace>();
        QString error;
        if (!workspace->open(&error)) {
            qWarning("%s", qPrintable(error));
            return false;
        }
        window = std::make_unique<ChatWindow>(workspace.get());
        window->show();
        return QTest::qWaitForWindowExposed(window.get());
    }

    void conversationsComeBackAfterARestart()
    {
        QString error;
        QVERIFY2(workspace->save(&error), qPrintable(error));
        const QStringList before = Center::getInstance()->getDialogIds();
        QVERIFY(restart());
        QVERIFY(!workspace->isDemo()); // the configured model was saved too
        QCOMPARE(Center::getInstance()->getDialogIds(), before);
        // The secrets too, from the keychain or the file.
        QCOMPARE(workspace->configuredModel().getToken(), QStringLiteral("sk-local"));
        QCOMPARE(Center::getInstance()->getMCP(QStringLiteral("docs")).getHeaders().value(QStringLiteral("Authorization")),
                 QStringLiteral("Bearer mcp-secret"));
        const QMap<QString, QString> environment = Center::getInstance()->getMCP(QStringLiteral("github")).getEnvironment();
        QCOMPARE(environment.value(QStringLiteral("GITHUB_TOKEN")), QStringLiteral("ghp-window-secret"));
        QCOMPARE(environment.value(QStringLiteral("GITHUB_HOST")), QStringLiteral("github.example"));
        QCOMPARE(child<QLabel>("tokenWarning")->isVisible(), tokenStore() == QLatin1String("file"));
        auto* conversations = child<QListView>("conversations");
        QTRY_COMPARE(conversations->model()->rowCount(), 4);
        QTRY_VERIFY(window->currentDialog());
        QVERIFY(window->currentDialog()->getMessageCount() > 0 || window->currentDialog()->getBranchFromID().isEmpty());
    }

    void anOldFileWithTokensIsClosedAndMoved()
    {
        // What a chat window before the keychain left: the whole Center, tokens included, in a
        // file anyone could read.
        const QByteArray old = Center::getInstance()->toJson().toString(QJsonDocument::Indented).toUtf8();
        QFile file(Workspace::storagePath());
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(old) == old.size());
        file.close();
        QVERIFY(file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup | QFileDevice::ReadOther));

        QVERIFY(restart());
        QCOMPARE(workspace->configuredModel().getToken(), QStringLiteral("sk-local"));
        QCOMPARE(file.permissions() & (QFileDevice::ReadGroup | QFileDevice::ReadOther), QFileDevice::Permissions());
        QCOMPARE(workspace->tokenStore(), Workspace::TokenStore::File);
        QVERIFY(child<QLabel>("tokenWarning")->isVisible()); // until a save moves them

        QString error;
        QVERIFY2(workspace->save(&error), qPrintable(error));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray saved = file.readAll();
        if (tokenStore() == QLatin1String("keychain")) {
            QCOMPARE(workspace->tokenStore(), Workspace::TokenStore::Keychain);
            QVERIFY2(!saved.contains("sk-local") && !saved.contains("mcp-secret"), saved.constData());
            QVERIFY(workspace->tokenWarning().isEmpty());
        } else {
            QCOMPARE(workspace->tokenStore(), Workspace::TokenStore::File);
            QVERIFY(saved.contains("sk-local"));
        }
    }

    void aLockedKeychainLosesNoToken()
    {
        if (tokenStore() != QLatin1String("keychain"))
            QSKIP("no keychain in this run: nothing to lock");
        // The keychain is locked (as a screen lock does) and cannot be unlocked: no one is there
        // to answer gnome-keyring's prompt.
        QProcess lock;
        lock.start(QStringLiteral("dbus-send"),
                   {QStringLiteral("--session"), QStringLiteral("--print-reply"), QStringLiteral("--dest=org.freedesktop.secrets"),
                    QStringLiteral("/org/freedesktop/secrets"), QStringLiteral("org.freedesktop.Secret.Service.Lock"),
                    QStringLiteral("array:objpath:/org/freedesktop/secrets/collection/login")});
        QVERIFY2(lock.waitForFinished(10000) && lock.exitCode() == 0, lock.readAllStandardError().constData());
        // (QtKeychain 0.13 with gnome-keyring reads a locked entry as a missing one.)
        QVERIFY(Keychain::read(Workspace::storagePath()).status != Keychain::Result::Ok);

        // A new token in Settings…: it cannot go to the keychain, so it goes to the file.
        QTimer::singleShot(0, this, [&] {
            auto* dialog = qobject_cast<SettingsDialog*>(QApplication::activeModalWidget());
            QVERIFY(dialog);
            dialog->findChild<QLineEdit*>(QStringLiteral("token"))->setText(QStringLiteral("sk-rotated"));
            dialog->accept();
        });
        window->openSettings();
        QCOMPARE(workspace->tokenStore(), Workspace::TokenStore::File);
        QVERIFY(child<QLabel>("tokenWarning")->isVisible());
        QVERIFY2(workspace->tokenWarning().contains(QLatin1String("keychain")), qPrintable(workspace->tokenWarning()));
        QFile file(Workspace::storagePath());
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray saved = file.readAll();
        QVERIFY(saved.contains("sk-rotated") && saved.contains("Bearer mcp-secret"));
        QCOMPARE(file.permissions() & ~(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadUser | QFileDevice::WriteUser),
                 QFileDevice::Permissions());
        file.close();

        // Started again while it is still locked: every secret comes back, from the file.
        QVERIFY(restart());
        QCOMPARE(workspace->configuredModel().getToken(), QStringLiteral("sk-rotated"));
        QCOMPARE(Center::getInstance()->getMCP(QStringLiteral("docs")).getHeaders().value(QStringLiteral("Authorization")),
                 QStringLiteral("Bearer mcp-secret"));
        QVERIFY(child<QLabel>("tokenWarning")->isVisible());
    }

    void aLongConversationIsTrimmedToTheContextWindow()
    {
        // A local server whose every answer is long (about 480 tokens), without usage counts;
        // it keeps a copy of each request body.
        QTemporaryDir sent;
        QVERIFY(sent.isValid());
        const QString longText = QStringLiteral("lorem ipsum dolor sit amet ").repeated(80);
        QJsonArray responses;
        for (int i = 1; i <= 3; ++i) {
            const QJsonObject delta{{QStringLiteral("content"), QStringLiteral("Answer %1: ").arg(i) + longText}};
            const QJsonObject chunk{{QStringLiteral("choices"), QJsonArray{QJsonObject{{QStringLiteral("index"), 0}, {QStringLiteral("delta"), delta}}}}};
            responses.append(QJsonObject{{QStringLiteral("events"), QJsonArray{chunk, QJsonObject{{QStringLiteral("$done"), true}}}}});
        }
        QTemporaryFile scriptFile;
        const QByteArray script = QJsonDocument(QJsonObject{{QStringLiteral("responses"), responses}}).toJson();
        QVERIFY(scriptFile.open() && scriptFile.write(script) == script.size() && scriptFile.flush());
        QProcess server;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("VI_REQUEST_BODIES_DIR"), sent.path());
        server.setProcessEnvironment(env);
        server.start(QStringLiteral(VI_SCRIPTED_SERVER), {QStringLiteral("--script"), scriptFile.fileName()});
        QVERIFY(server.waitForStarted(5000) && server.waitForReadyRead(5000));
        const QByteArray line = server.readLine().trimmed();
        QVERIFY2(line.startsWith("PORT "), line.constData());
        const QString url = QStringLiteral("http://127.0.0.1:%1/v1").arg(QString::fromLatin1(line.mid(5)));

        // Settings…: the model's context window (unknown so far) typed in, "Drop oldest" chosen.
        QString shown;
        QTimer::singleShot(0, this, [&] {
            auto* dialog = qobject_cast<SettingsDialog*>(QApplication::activeModalWidget());
            QVERIFY(dialog);
            dialog->findChild<QLineEdit*>(QStringLiteral("url"))->setText(url);
            auto* window = dialog->findChild<QSpinBox*>(QStringLiteral("contextWindow"));
            auto* policy = dialog->findChild<QComboBox*>(QStringLiteral("contextPolicy"));
            QVERIFY(window && policy);
            QCOMPARE(window->value(), 0);
            shown = window->text();
            QCOMPARE(policy->currentText(), QStringLiteral("Fail"));
            window->setFocus();
            window->selectAll();
            QTest::keyClicks(window, QStringLiteral("400"));
            QCOMPARE(window->value(), 400);
            policy->setCurrentIndex(policy->findText(QStringLiteral("Drop oldest")));
            QVERIFY(dialog->grab().save(screenshot(QStringLiteral("-context-settings"))));
            dialog->accept();
        });
        window->openSettings();
        QCOMPARE(shown, QStringLiteral("unknown"));
        QCOMPARE(workspace->configuredModel().getContextWindow(), 400);
        QCOMPARE(window->currentDialog()->getContextPolicy(), Dialog::ContextPolicy::DropOldest);

        // A new conversation does the same; three questions, each answer long.
        Dialog* before = window->currentDialog();
        QTest::mouseClick(child<QPushButton>("newConversation"), Qt::LeftButton);
        QTRY_VERIFY(window->currentDialog() != before);
        Dialog* dialog = window->currentDialog();
        QCOMPARE(dialog->getContextPolicy(), Dialog::ContextPolicy::DropOldest);
        QSignalSpy trims(dialog, &Dialog::contextTrimmed);
        QVERIFY(say(QStringLiteral("First question")));
        QCOMPARE(trims.size(), 0); // it fitted
        QVERIFY(!window->statusBar()->currentMessage().contains(QLatin1String("context window")));
        QVERIFY(say(QStringLiteral("Second question")));
        QCOMPARE(trims.size(), 1);
        QCOMPARE(trims.at(0).at(0).toInt(), 2); // the first turn
        QString notice = window->statusBar()->currentMessage();
        QVERIFY2(notice.startsWith(QLatin1String("2 earlier messages left out to fit the context window (about ")), qPrintable(notice));
        QVERIFY(say(QStringLiteral("Third question")));
        QCOMPARE(trims.size(), 2);
        QCOMPARE(trims.at(1).at(0).toInt(), 4);
        const int estimated = trims.at(1).at(1).toInt();
        QVERIFY2(estimated > 0 && estimated <= 400, qPrintable(QString::number(estimated)));
        notice = window->statusBar()->currentMessage();
        QCOMPARE(notice, QStringLiteral("4 earlier messages left out to fit the context window (about %1 tokens sent)").arg(estimated));
        QVERIFY2(window->grab().save(screenshot(QStringLiteral("-context"))), qPrintable(screenshot(QStringLiteral("-context"))));

        // The window still shows the whole conversation; only the requests were shorter.
        const QStringList history = rows(child<QListView>("messages"));
        QCOMPARE(history.size(), 6);
        QCOMPARE(history[0], QStringLiteral("user:First question"));
        QCOMPARE(history[1], QStringLiteral("assistant:Answer 1: ") + longText);
        QCOMPARE(history[2], QStringLiteral("user:Second question"));
        QCOMPARE(history[4], QStringLiteral("user:Third question"));
        QCOMPARE(history[5], QStringLiteral("assistant:Answer 3: ") + longText);
        QCOMPARE(dialog->getMessageCount(), 6);
        QStringList files = QDir(sent.path()).entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Time | QDir::Reversed);
        QCOMPARE(files.size(), 3);
        QStringList carried;
        for (const QString& name : std::as_const(files)) {
            QFile body(sent.filePath(name));
            QVERIFY(body.open(QIODevice::ReadOnly));
            QStringList texts;
            for (const QJsonValue& m : QJsonDocument::fromJson(body.readAll()).object().value(QLatin1String("messages")).toArray())
                texts << m[QLatin1String("content")].toString().left(16);
            carried << texts.join(QLatin1Char('|'));
        }
        carried.sort(); // by what they carried: the file times may tie
        QCOMPARE(carried, (QStringList{QStringLiteral("First question"), QStringLiteral("Second question"),
                                       QStringLiteral("Third question")}));
        server.closeWriteChannel();
        QVERIFY(server.waitForFinished(5000));

        // Saved with the Center: the window in the model, the policy in the conversation.
        QString error;
        QVERIFY2(workspace->save(&error), qPrintable(error));
        const QString id = dialog->getId();
        QVERIFY(restart());
        QCOMPARE(workspace->configuredModel().getContextWindow(), 400);
        QCOMPARE(Center::getInstance()->getDialog(id)->getContextPolicy(), Dialog::ContextPolicy::DropOldest);
        QCOMPARE(Center::getInstance()->getDialog(id)->getMessageCount(), 6);
    }
};

QTEST_MAIN(TestChatWindow)
#include "tst_chatwindow.moc"
