// SPDX-License-Identifier: MIT
//
// The chat window (SPEC §H.5): conversations on the left (a DialogListModel: new, branch from
// here, delete), the selected one's messages on the right (a MessageModel drawn by
// MessageDelegate), an input box (Ctrl+Enter sends), Send / Stop / Regenerate, tool approval
// prompts, and fallback, retry, token usage and context window notices in the status bar — and
// a warning there while the tokens are kept in the saved file rather than the system keychain
// (SPEC §I.5.2).
#ifndef VI_CHAT_WINDOW_CHAT_WINDOW_H
#define VI_CHAT_WINDOW_CHAT_WINDOW_H

#include <Agent/Dialog.h>

#include <QtCore/QPointer>
#include <QtCore/QStringList>
#include <QtWidgets/QMainWindow>

class QAction;
class QLabel;
class QListView;
class QPlainTextEdit;
class QPushButton;
class MessageDelegate;
class Workspace;

namespace Visindigo::Agent {
class DialogListModel;
class MessageModel;
}

class ChatWindow : public QMainWindow
{
    Q_OBJECT
public:
    // `workspace` is opened already and outlives the window.
    explicit ChatWindow(Workspace* workspace, QWidget* parent = nullptr);
    ~ChatWindow() override;

    // The conversation shown (nullptr before the first one exists).
    Visindigo::Agent::Dialog* currentDialog() const { return current; }

public Q_SLOTS:
    void newConversation();
    void send();
    void stop();
    void regenerate();
    // A copy of the conversation up to the selected message (all of it when none is selected).
    void branchFromHere();
    void deleteConversation();
    void openSettings();

private:
    void showDialog(Visindigo::Agent::Dialog* dialog);
    // Selects conversation `id` once the list has its row (now, or when it arrives).
    void select(const QString& id);
    void updateButtons();
    void askNextApproval();
    // The status bar's warning about where the tokens are (Workspace::tokenWarning()).
    void showTokenWarning();
    // What the status bar says when a request left out earlier messages (Dialog::contextTrimmed).
    QString contextNotice(qint32 leftOut, qint32 estimatedTokens) const;

    Workspace* workspace;
    Visindigo::Agent::DialogListModel* conversations;
    Visindigo::Agent::MessageModel* messages;
    QListView* conversationView;
    QListView* messageView;
    MessageDelegate* delegate;
    QPlainTextEdit* input;
    QPushButton* sendButton;
    QPushButton* stopButton;
    QPushButton* regenerateButton;
    QPushButton* branchButton;
    QPushButton* deleteButton;
    QWidget* approvalBar;
    QLabel* approvalText;
    QAction* askBeforeTools;
    QLabel* usage;
    QLabel* source;
    QLabel* tokenWarning;

    QPointer<Visindigo::Agent::Dialog> current;
    QList<QMetaObject::Connection> dialogConnections;
    QString pendingSelection;
    // Tool calls waiting for the user: "callId\ntool\narguments", oldest first.
    QStringList approvals;
};

#endif // VI_CHAT_WINDOW_CHAT_WINDOW_H
