// SPDX-License-Identifier: MIT
#include "ChatWindow.h"

#include "MessageDelegate.h"
#include "SettingsDialog.h"
#include "Workspace.h"

#include <Agent/Center.h>
#include <Agent/Dialog.h>
#include <Agent/DialogListModel.h>
#include <Agent/MessageModel.h>
#include <Utility/JsonConfig.h>

#include <QtCore/QTimer>
#include <QtGui/QAction>
#include <QtGui/QKeySequence>
#include <QtGui/QShortcut>
#include <QtWidgets/QHBoxLayout>
#include <QtWidgets/QLabel>
#include <QtWidgets/QListView>
#include <QtWidgets/QMenuBar>
#include <QtWidgets/QPlainTextEdit>
#include <QtWidgets/QPushButton>
#include <QtWidgets/QSplitter>
#include <QtWidgets/QStatusBar>
#include <QtWidgets/QToolBar>
#include <QtWidgets/QVBoxLayout>

using Visindigo::Agent::Center;
using Visindigo::Agent::Dialog;
using Visindigo::Agent::DialogListModel;
using Visindigo::Agent::Message;
using Visindigo::Agent::MessageModel;

namespace {

QPushButton* button(const QString& text, const char* name)
{
    auto* b = new QPushButton(text);
    b->setObjectName(QLatin1String(name));
    return b;
}

} // namespace

ChatWindow::ChatWindow(Workspace* workspace, QWidget* parent)
    : QMainWindow(parent)
    , workspace(workspace)
    , conversations(new DialogListModel(this))
    , messages(new MessageModel(this))
    , conversationView(new QListView)
    , messageView(new QListView)
    , delegate(new MessageDelegate(this))
    , input(new QPlainTextEdit)
    , sendButton(button(tr("Send"), "send"))
    , stopButton(button(tr("Stop"), "stop"))
    , regenerateButton(button(tr("Regenerate"), "regenerate"))
    , branchButton(button(tr("Branch from here"), "branch"))
    , deleteButton(button(tr("Delete"), "delete"))
    , approvalBar(new QWidget)
    , approvalText(new QLabel)
    , askBeforeTools(new QAction(tr("Ask before running tools"), this))
    , usage(new QLabel)
    , source(new QLabel)
    , tokenWarning(new QLabel)
{
    setWindowTitle(tr("Visindigo Agent — chat"));

    // Left: the conversations.
    conversationView->setObjectName(QStringLiteral("conversations"));
    conversationView->setModel(conversations);
    conversationView->setSelectionMode(QAbstractItemView::SingleSelection);
    auto* newButton = button(tr("New"), "newConversation");
    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(6, 6, 0, 6);
    auto* leftButtons = new QHBoxLayout;
    leftButtons->addWidget(newButton);
    leftButtons->addWidget(branchButton);
    leftButtons->addWidget(deleteButton);
    leftLayout->addWidget(conversationView);
    leftLayout->addLayout(leftButtons);

    // Right: the messages, the approval prompt, the input.
    messageView->setObjectName(QStringLiteral("messages"));
    messageView->setModel(messages);
    messageView->setItemDelegate(delegate);
    messageView->setResizeMode(QListView::Adjust);
    messageView->setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
    messageView->setSelectionMode(QAbstractItemView::SingleSelection);
    messageView->setSpacing(0);
    approvalBar->setObjectName(QStringLiteral("approvalBar"));
    approvalText->setObjectName(QStringLiteral("approvalText"));
    approvalText->setWordWrap(true);
    auto* approve = button(tr("Run it"), "approve");
    auto* reject = button(tr("Decline"), "reject");
    auto* approvalLayout = new QHBoxLayout(approvalBar);
    approvalLayout->setContentsMargins(8, 4, 8, 4);
    approvalLayout->addWidget(approvalText, 1);
    approvalLayout->addWidget(approve);
    approvalLayout->addWidget(reject);
    approvalBar->setStyleSheet(QStringLiteral("#approvalBar { background: #fff4d6; border: 1px solid #e6c66a; }"));
    approvalBar->hide();
    input->setObjectName(QStringLiteral("input"));
    input->setPlaceholderText(tr("Type a message — Ctrl+Enter sends"));
    input->setMaximumHeight(90);
    auto* right = new QWidget;
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 6, 6, 6);
    auto* actions = new QHBoxLayout;
    actions->addStretch(1);
    actions->addWidget(regenerateButton);
    actions->addWidget(stopButton);
    actions->addWidget(sendButton);
    rightLayout->addWidget(messageView, 1);
    rightLayout->addWidget(approvalBar);
    rightLayout->addWidget(input);
    rightLayout->addLayout(actions);

    auto* splitter = new QSplitter;
    splitter->addWidget(left);
    splitter->addWidget(right);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({230, 570});
    setCentralWidget(splitter);

    auto* settings = new QAction(tr("Settings…"), this);
    settings->setObjectName(QStringLiteral("settings"));
    askBeforeTools->setObjectName(QStringLiteral("askBeforeTools"));
    askBeforeTools->setCheckable(true);
    QToolBar* toolBar = addToolBar(tr("Chat"));
    toolBar->setMovable(false);
    toolBar->addAction(settings);
    toolBar->addAction(askBeforeTools);
    source->setObjectName(QStringLiteral("source"));
    usage->setObjectName(QStringLiteral("usage"));
    tokenWarning->setObjectName(QStringLiteral("tokenWarning"));
    tokenWarning->setStyleSheet(QStringLiteral("color: #8a5a00"));
    tokenWarning->setWordWrap(true);
    statusBar()->addWidget(source, 1);
    statusBar()->addWidget(tokenWarning, 2);
    statusBar()->addPermanentWidget(usage);
    source->setText(workspace->describe());
    showTokenWarning();

    connect(newButton, &QPushButton::clicked, this, &ChatWindow::newConversation);
    connect(sendButton, &QPushButton::clicked, this, &ChatWindow::send);
    connect(stopButton, &QPushButton::clicked, this, &ChatWindow::stop);
    connect(regenerateButton, &QPushButton::clicked, this, &ChatWindow::regenerate);
    connect(branchButton, &QPushButton::clicked, this, &ChatWindow::branchFromHere);
    connect(deleteButton, &QPushButton::clicked, this, &ChatWindow::deleteConversation);
    connect(settings, &QAction::triggered, this, &ChatWindow::openSettings);
    auto* sendShortcut = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return), input);
    sendShortcut->setContext(Qt::WidgetShortcut);
    connect(sendShortcut, &QShortcut::activated, this, &ChatWindow::send);
    connect(askBeforeTools, &QAction::toggled, this, [this](bool on) {
        if (current)
            current->setToolApproval(on);
    });
    connect(approve, &QPushButton::clicked, this, [this] {
        if (current && !approvals.isEmpty())
            current->approveToolCall(approvals.takeFirst().section(QLatin1Char('\n'), 0, 0));
        askNextApproval();
    });
    connect(reject, &QPushButton::clicked, this, [this] {
        if (current && !approvals.isEmpty())
            current->rejectToolCall(approvals.takeFirst().section(QLatin1Char('\n'), 0, 0), tr("the user declined"));
        askNextApproval();
    });

    connect(conversationView->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex& index) {
                // An invalid index (the list resetting) keeps the conversation shown.
                if (index.isValid())
                    showDialog(conversations->dialogAt(index.row()));
            });
    connect(conversations, &QAbstractItemModel::modelReset, this, [this] {
        if (current)
            select(current->getId());
        else if (conversations->rowCount() > 0)
            conversationView->setCurrentIndex(conversations->index(0));
    });
    connect(conversations, &QAbstractItemModel::rowsInserted, this, [this] {
        if (!pendingSelection.isEmpty())
            select(pendingSelection);
    });
    // The streaming row grows: its height changes, and the view follows the newest text.
    connect(messages, &QAbstractItemModel::dataChanged, this, [this](const QModelIndex& from, const QModelIndex& to) {
        for (int row = from.row(); row <= to.row(); ++row)
            Q_EMIT delegate->sizeHintChanged(messages->index(row));
        messageView->scrollToBottom();
    });
    connect(messages, &QAbstractItemModel::rowsInserted, messageView, &QListView::scrollToBottom);

    if (conversations->rowCount() > 0)
        select(conversations->index(0).data(DialogListModel::IdRole).toString());
    else
        newConversation();
    updateButtons();
    input->setFocus();
}

ChatWindow::~ChatWindow() = default;

void ChatWindow::select(const QString& id)
{
    const int row = conversations->rowOf(id);
    if (row < 0) {
        pendingSelection = id;
        return;
    }
    pendingSelection.clear();
    conversationView->setCurrentIndex(conversations->index(row));
}

void ChatWindow::showDialog(Dialog* dialog)
{
    for (const QMetaObject::Connection& c : std::as_const(dialogConnections))
        disconnect(c);
    dialogConnections.clear();
    approvals.clear();
    approvalBar->hide();
    current = dialog;
    messages->setDialog(dialog);
    if (dialog) {
        const QSignalBlocker blocker(askBeforeTools);
        askBeforeTools->setChecked(dialog->getToolApproval());
        dialogConnections
            << connect(dialog, &Dialog::streamBegan, this, [this] { updateButtons(); })
            // The normalised counts read the same on every API (SPEC §I.2.2).
            << connect(dialog, &Dialog::usageUpdated, this, [this](const Visindigo::Utility::JsonConfig& u) {
                   const qint64 cached = u.getInt(QStringLiteral("cachedInputTokens"));
                   QString text = tr("Tokens: %1 in, %2 out").arg(u.getInt(QStringLiteral("inputTokens"))).arg(u.getInt(QStringLiteral("outputTokens")));
                   if (cached > 0)
                       text += tr(" (%1 cached)").arg(cached);
                   usage->setText(text);
               })
            << connect(dialog, &Dialog::runFinished, this, [this] {
                   approvals.clear();
                   approvalBar->hide();
                   updateButtons();
               })
            << connect(dialog, &Dialog::runFailed, this,
                       [this](const QString& message) { statusBar()->showMessage(tr("Failed: %1").arg(message), 10000); })
            << connect(dialog, &Dialog::modelFallback, this,
                       [this](const QString& from, const QString& to, const QString& reason) {
                           statusBar()->showMessage(tr("Model %1 failed (%2); trying %3").arg(from, reason, to), 10000);
                       })
            << connect(dialog, &Dialog::retrying, this, [this](qint32 attempt, qint32 delayMs, const QString& reason) {
                   statusBar()->showMessage(
                       tr("Every model failed (%1); retry %2 in %3 s").arg(reason).arg(attempt).arg(delayMs / 1000.0, 0, 'f', 1),
                       delayMs + 2000);
               })
            // A quiet notice: the request left turns out (or sent a summary of them) to fit the
            // context window; the conversation shown keeps every message (SPEC §I.4.2).
            << connect(dialog, &Dialog::contextTrimmed, this, [this](qint32 leftOut, qint32 estimatedTokens) {
                   statusBar()->showMessage(contextNotice(leftOut, estimatedTokens), 15000);
               })
            << connect(dialog, &Dialog::mcpFailed, this, [this](const QString& server, const QString& message) {
                   statusBar()->showMessage(tr("MCP server %1: %2").arg(server, message), 10000);
               })
            << connect(dialog, &Dialog::toolApprovalRequested, this,
                       [this](const QString& callId, const QString& tool, const QString& arguments) {
                           approvals << callId + QLatin1Char('\n') + tool + QLatin1Char('\n') + arguments;
                           askNextApproval();
                       });
    }
    updateButtons();
}

void ChatWindow::askNextApproval()
{
    if (approvals.isEmpty()) {
        approvalBar->hide();
        return;
    }
    const QString tool = approvals.first().section(QLatin1Char('\n'), 1, 1);
    const QString arguments = approvals.first().section(QLatin1Char('\n'), 2);
    approvalText->setText(tr("The model wants to run <b>%1</b>(%2).").arg(tool.toHtmlEscaped(), arguments.toHtmlEscaped()));
    approvalBar->show();
}

void ChatWindow::updateButtons()
{
    const bool running = current && current->isStreaming();
    sendButton->setEnabled(current && !running);
    stopButton->setEnabled(running);
    regenerateButton->setEnabled(current && !running && current->findLastAssistantMessage() >= 0);
    branchButton->setEnabled(current && !running);
    deleteButton->setEnabled(current);
}

QString ChatWindow::contextNotice(qint32 leftOut, qint32 estimatedTokens) const
{
    const bool summarized = current && current->getContextPolicy() == Dialog::ContextPolicy::Summarize;
    const QString what = leftOut == 1 ? tr("1 earlier message") : tr("%1 earlier messages").arg(leftOut);
    return (summarized ? tr("%1 sent as a summary to fit the context window (about %2 tokens)")
                       : tr("%1 left out to fit the context window (about %2 tokens sent)"))
        .arg(what)
        .arg(estimatedTokens);
}

void ChatWindow::newConversation()
{
    Dialog* dialog = Center::getInstance()->createDialog();
    dialog->setToolApproval(askBeforeTools->isChecked());
    // A new conversation does what the one shown does when it gets too long.
    if (current)
        dialog->setContextPolicy(current->getContextPolicy());
    select(dialog->getId());
}

void ChatWindow::send()
{
    const QString text = input->toPlainText().trimmed();
    if (!current || text.isEmpty() || current->isStreaming())
        return;
    input->clear();
    current->appendMessage(Message::Role::User, text);
    current->run();
    updateButtons();
}

void ChatWindow::stop()
{
    if (current)
        current->stop();
    updateButtons();
}

void ChatWindow::regenerate()
{
    if (!current)
        return;
    if (Dialog* again = Center::getInstance()->regenerate(current->getId()))
        select(again->getId());
}

void ChatWindow::branchFromHere()
{
    if (!current)
        return;
    const QModelIndex at = messageView->currentIndex();
    Dialog* branch = Center::getInstance()->cloneDialog(current->getId());
    if (!branch)
        return;
    if (at.isValid() && !at.data(MessageModel::StreamingRole).toBool())
        branch->truncateTo(at.row() + 1);
    select(branch->getId());
}

void ChatWindow::deleteConversation()
{
    if (!current)
        return;
    const QString id = current->getId();
    showDialog(nullptr);
    Center::getInstance()->removeDialog(id);
    // The next conversation is selected once the list drops the row.
    QTimer::singleShot(0, this, [this] {
        if (!current && conversations->rowCount() > 0)
            conversationView->setCurrentIndex(conversations->index(0));
    });
}

void ChatWindow::showTokenWarning()
{
    const QString text = workspace->tokenWarning();
    tokenWarning->setText(text.isEmpty() ? QString() : QStringLiteral("⚠ ") + text);
    tokenWarning->setToolTip(workspace->tokenNote());
    tokenWarning->setVisible(!text.isEmpty());
}

void ChatWindow::openSettings()
{
    SettingsDialog dialog(workspace->configuredModel(), this);
    dialog.setTokenNote(workspace->tokenNote());
    if (current)
        dialog.setContextPolicy(current->getContextPolicy());
    if (dialog.exec() != QDialog::Accepted)
        return;
    workspace->configure(dialog.model());
    // Saved with the conversation (Dialog JSON "contextPolicy", in the Center's document).
    if (current)
        current->setContextPolicy(dialog.contextPolicy());
    source->setText(workspace->describe());
    // A new token is stored now (keychain or file), not only on quit.
    QString error;
    if (!workspace->save(&error))
        statusBar()->showMessage(error, 10000);
    showTokenWarning();
}
