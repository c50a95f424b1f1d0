// SPDX-License-Identifier: MIT
//
// MessageModel: a Dialog's messages and its answer in progress as list rows (MessageModel.h
// says what a view sees). It follows the dialog's signals only: rows are the messages the
// signals announced, so a view never sees a row the signals did not explain.
#include <Agent/MessageModel.h>

#include <Agent/Dialog.h>

#include <QtCore/QMetaObject>
#include <QtCore/QPointer>

namespace Visindigo::Agent {

class MessageModelPrivate
{
public:
    explicit MessageModelPrivate(MessageModel* q) : q(q) {}

    MessageModel* q;
    QPointer<Dialog> dialog;
    QList<QMetaObject::Connection> connections;
    QList<Message> rows;
    // The last row is the answer in progress.
    bool streaming = false;
    QString partial;
    QString partialReasoning;
    // A dataChanged for the streaming row is queued for the next event-loop pass.
    bool updateQueued = false;

    int count() const { return int(rows.size()) + (streaming ? 1 : 0); }

    void attach(Dialog* next);
    void appended(qint32 index);
    void began();
    void grew();
    void endStream();
    void reset();
};

namespace {

QString roleName(Message::Role role)
{
    switch (role) {
    case Message::Role::System:
        return QStringLiteral("system");
    case Message::Role::User:
        return QStringLiteral("user");
    case Message::Role::Assistant:
        return QStringLiteral("assistant");
    case Message::Role::Tool:
        return QStringLiteral("tool");
    case Message::Role::Prompt:
        return QStringLiteral("prompt");
    }
    return QString();
}

} // namespace

void MessageModelPrivate::attach(Dialog* next)
{
    q->beginResetModel();
    for (const QMetaObject::Connection& c : std::as_const(connections))
        QObject::disconnect(c);
    connections.clear();
    dialog = next;
    rows = next ? next->getMessages() : QList<Message>();
    streaming = false;
    partial.clear();
    partialReasoning.clear();
    if (next) {
        connections << QObject::connect(next, &Dialog::messageAppended, q, [this](qint32 i) { appended(i); })
                    << QObject::connect(next, &Dialog::streamBegan, q, [this] { began(); })
                    << QObject::connect(next, &Dialog::streamDelta, q, [this](const QString& t) {
                           partial += t;
                           grew();
                       })
                    << QObject::connect(next, &Dialog::streamReasoning, q, [this](const QString& t) {
                           partialReasoning += t;
                           grew();
                       })
                    << QObject::connect(next, &Dialog::streamEnded, q, [this] { endStream(); })
                    // A failed or aborted round ends without streamEnded.
                    << QObject::connect(next, &Dialog::runFailed, q, [this] {
                           if (dialog && !dialog->isStreaming())
                               endStream();
                       })
                    << QObject::connect(next, &Dialog::messagesReset, q, [this] { reset(); })
                    << QObject::connect(next, &QObject::destroyed, q, [this] { attach(nullptr); });
    }
    q->endResetModel();
}

void MessageModelPrivate::appended(qint32 index)
{
    if (index != rows.size()) {
        reset(); // out of step (cannot happen through the signals; cheap to heal)
        return;
    }
    const QList<Message> messages = dialog->getMessages();
    if (index >= messages.size()) {
        reset();
        return;
    }
    // Before the answer in progress: that row stays last until the stream ends.
    q->beginInsertRows(QModelIndex(), index, index);
    rows.append(messages.at(index));
    q->endInsertRows();
}

void MessageModelPrivate::began()
{
    if (streaming) {
        partial.clear();
        partialReasoning.clear();
        grew();
        return;
    }
    const int row = int(rows.size());
    q->beginInsertRows(QModelIndex(), row, row);
    streaming = true;
    partial.clear();
    partialReasoning.clear();
    q->endInsertRows();
}

void MessageModelPrivate::grew()
{
    if (!streaming || updateQueued)
        return;
    updateQueued = true;
    QMetaObject::invokeMethod(
        q,
        [this] {
            updateQueued = false;
            if (!streaming)
                return;
            const QModelIndex row = q->index(int(rows.size()));
            Q_EMIT q->dataChanged(row, row, {Qt::DisplayRole, MessageModel::ContentRole, MessageModel::ReasoningRole});
        },
        Qt::QueuedConnection);
}

void MessageModelPrivate::endStream()
{
    if (!streaming)
        return;
    const int row = int(rows.size());
    q->beginRemoveRows(QModelIndex(), row, row);
    streaming = false;
    q->endRemoveRows();
}

void MessageModelPrivate::reset()
{
    q->beginResetModel();
    rows = dialog ? dialog->getMessages() : QList<Message>();
    q->endResetModel();
}

MessageModel::MessageModel(QObject* parent)
    : QAbstractListModel(parent)
    , d(std::make_unique<MessageModelPrivate>(this))
{
}

MessageModel::~MessageModel() = default;

void MessageModel::setDialog(Dialog* dialog)
{
    if (dialog == d->dialog)
        return;
    d->attach(dialog);
    Q_EMIT dialogChanged();
}

Dialog* MessageModel::dialog() const
{
    return d->dialog;
}

int MessageModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : d->count();
}

QVariant MessageModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return QVariant();
    const int row = index.row();
    if (row == d->rows.size()) { // the answer in progress
        switch (role) {
        case RoleRole:
            return QStringLiteral("assistant");
        case Qt::DisplayRole:
        case ContentRole:
            return d->partial;
        case ReasoningRole:
            return d->partialReasoning;
        case StreamingRole:
            return true;
        case ImagesRole:
            return QStringList();
        case NameRole:
        case ToolCallsRole:
        case ToolCallIdRole:
            return QString();
        default:
            return QVariant();
        }
    }
    const Message& m = d->rows.at(row);
    switch (role) {
    case RoleRole:
        return roleName(m.getRole());
    case Qt::DisplayRole:
    case ContentRole:
        return m.getContent();
    case ReasoningRole:
        return m.getReasoning();
    case NameRole:
        return m.getName();
    case ToolCallsRole:
        return m.getToolCalls();
    case ToolCallIdRole:
        return m.getToolCallID();
    case ImagesRole:
        return m.getImageURLs();
    case StreamingRole:
        return false;
    default:
        return QVariant();
    }
}

QHash<int, QByteArray> MessageModel::roleNames() const
{
    return {{Qt::DisplayRole, "display"},     {RoleRole, "role"},         {ContentRole, "content"},
            {ReasoningRole, "reasoning"},     {NameRole, "name"},         {ToolCallsRole, "toolCalls"},
            {ToolCallIdRole, "toolCallId"},   {ImagesRole, "images"},     {StreamingRole, "streaming"}};
}

} // namespace Visindigo::Agent
