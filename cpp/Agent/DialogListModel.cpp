// SPDX-License-Identifier: MIT
//
// DialogListModel: the Center's dialogs as rows (DialogListModel.h says what a view sees).
// Rows change only on the Center's signals; each row keeps what it shows, refreshed on its
// dialog's signals, so a Dialog deleted before its dialogRemoved arrives leaves a consistent
// row until then.
#include <Agent/DialogListModel.h>

#include <Agent/Center.h>
#include <Agent/Dialog.h>

#include <QtCore/QPointer>

#include <algorithm>

namespace Visindigo::Agent {

namespace {

struct Row
{
    QString id;
    QPointer<Dialog> dialog;
    QString title;
    qint32 messageCount = 0;
    QString branchFromId;
    QList<QMetaObject::Connection> connections;
};

// The first user message on one line, cut to titleLength characters.
QString titleOf(const Dialog& dialog)
{
    const QList<Message> messages = dialog.getMessages();
    for (const Message& message : messages) {
        if (message.getRole() != Message::Role::User)
            continue;
        QString title = message.getContent().simplified();
        if (title.size() > DialogListModel::titleLength)
            title = title.left(DialogListModel::titleLength - 1) + QChar(0x2026);
        return title;
    }
    return QString();
}

} // namespace

class DialogListModelPrivate
{
public:
    explicit DialogListModelPrivate(DialogListModel* q) : q(q) {}

    DialogListModel* q;
    // Sorted by id, as the Center lists them.
    QList<Row> rows;

    qsizetype lowerBound(const QString& id) const
    {
        return std::lower_bound(rows.cbegin(), rows.cend(), id, [](const Row& r, const QString& i) { return r.id < i; })
               - rows.cbegin();
    }

    qsizetype find(const QString& id) const
    {
        const qsizetype at = lowerBound(id);
        return at < rows.size() && rows[at].id == id ? at : -1;
    }

    // A row for id, following its dialog; false when the Center no longer has it.
    bool makeRow(const QString& id, Row* row)
    {
        Dialog* dialog = Center::getInstance()->getDialog(id);
        if (!dialog)
            return false;
        row->id = id;
        row->dialog = dialog;
        read(row);
        auto refresh = [this, id] {
            const qsizetype at = find(id);
            if (at < 0)
                return;
            read(&rows[at]);
            const QModelIndex index = q->index(int(at));
            Q_EMIT q->dataChanged(index, index);
        };
        row->connections << QObject::connect(dialog, &Dialog::messageAppended, q, refresh)
                         << QObject::connect(dialog, &Dialog::messagesReset, q, refresh);
        return true;
    }

    static void read(Row* row)
    {
        if (!row->dialog)
            return;
        row->title = titleOf(*row->dialog);
        row->messageCount = row->dialog->getMessageCount();
        row->branchFromId = row->dialog->getBranchFromID();
    }

    static void release(Row& row)
    {
        for (const QMetaObject::Connection& c : std::as_const(row.connections))
            QObject::disconnect(c);
    }

    void added(const QString& id)
    {
        if (find(id) >= 0)
            return;
        Row row;
        if (!makeRow(id, &row))
            return; // removed again before the signal arrived
        const qsizetype at = lowerBound(id);
        q->beginInsertRows(QModelIndex(), int(at), int(at));
        rows.insert(at, std::move(row));
        q->endInsertRows();
    }

    void removed(const QString& id)
    {
        const qsizetype at = find(id);
        if (at < 0)
            return;
        q->beginRemoveRows(QModelIndex(), int(at), int(at));
        release(rows[at]);
        rows.removeAt(at);
        q->endRemoveRows();
    }

    void reset()
    {
        q->beginResetModel();
        for (Row& row : rows)
            release(row);
        rows.clear();
        const QStringList ids = Center::getInstance()->getDialogIds();
        for (const QString& id : ids) {
            Row row;
            if (makeRow(id, &row))
                rows.append(std::move(row));
        }
        q->endResetModel();
    }
};

DialogListModel::DialogListModel(QObject* parent)
    : QAbstractListModel(parent)
    , d(std::make_unique<DialogListModelPrivate>(this))
{
    Center* center = Center::getInstance();
    connect(center, &Center::dialogAdded, this, [this](const QString& id) { d->added(id); });
    connect(center, &Center::dialogRemoved, this, [this](const QString& id) { d->removed(id); });
    connect(center, &Center::dialogsReset, this, [this] { d->reset(); });
    d->reset();
}

DialogListModel::~DialogListModel()
{
    for (Row& row : d->rows)
        DialogListModelPrivate::release(row);
}

Dialog* DialogListModel::dialogAt(int row) const
{
    if (row < 0 || row >= d->rows.size())
        return nullptr;
    return d->rows[row].dialog.data();
}

int DialogListModel::rowOf(const QString& id) const
{
    return int(d->find(id));
}

int DialogListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(d->rows.size());
}

QVariant DialogListModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return QVariant();
    const Row& row = d->rows[index.row()];
    switch (role) {
    case Qt::DisplayRole:
        return row.title.isEmpty() ? tr("New conversation") : row.title;
    case Qt::ToolTipRole:
    case IdRole:
        return row.id;
    case TitleRole:
        return row.title;
    case MessageCountRole:
        return row.messageCount;
    case BranchFromIdRole:
        return row.branchFromId;
    default:
        return QVariant();
    }
}

QHash<int, QByteArray> DialogListModel::roleNames() const
{
    return {{Qt::DisplayRole, "display"},
            {IdRole, "id"},
            {TitleRole, "title"},
            {MessageCountRole, "messageCount"},
            {BranchFromIdRole, "branchFromId"}};
}

} // namespace Visindigo::Agent
