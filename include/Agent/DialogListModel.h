// SPDX-License-Identifier: MIT
//
/// \class Visindigo::Agent::DialogListModel
/// The Center's dialogs as a QAbstractListModel, for the
/// conversation list of a chat window (extension, SPEC §H.5.2).
///
/// One row per registered dialog, in the Center's order (getDialogIds(): sorted by id, the
/// same after a restart); put a QSortFilterProxyModel in front for another order. Rows come
/// and go with the Center's dialogAdded / dialogRemoved / dialogsReset signals (so dialogs
/// made through the C ABI or on other threads appear too), after the Center's event loop
/// delivered them; a row's title and message count follow its dialog's messageAppended and
/// messagesReset. Lives on the Center's thread (the one that first called
/// Center::getInstance()). Qt Core only.
#ifndef VISINDIGO_AGENT_DIALOGLISTMODEL_H
#define VISINDIGO_AGENT_DIALOGLISTMODEL_H

#include "Export.h"

#include <QtCore/QAbstractListModel>

#include <memory>

namespace Visindigo::Agent {

class Dialog;
class DialogListModelPrivate;

class VISINDIGO_AGENT_EXPORT DialogListModel : public QAbstractListModel
{
    Q_OBJECT
public:
    /// The data roles (roleNames() gives their QML names).
    enum Roles {
        /// The dialog's id.
        IdRole = Qt::UserRole + 1,
        /// The first user message, on one line, cut to titleLength characters with "…"
        /// ("" while there is none; Qt::DisplayRole then says "New conversation").
        TitleRole,
        /// getMessageCount().
        MessageCountRole,
        /// getBranchFromID(): the dialog it was cloned from ("" for none).
        BranchFromIdRole,
    };
    Q_ENUM(Roles)

    /// How many characters a title keeps.
    static constexpr int titleLength = 60;

    /// A model of the Center's dialogs as they are now, following them from here on.
    explicit DialogListModel(QObject* parent = nullptr);
    ~DialogListModel() override;

    /// The Dialog of a row (owned by the Center); nullptr out of range or when it is gone.
    Dialog* dialogAt(int row) const;
    /// The row of dialog id; -1 when it is not listed.
    int rowOf(const QString& id) const;

    /// How many dialogs are listed.
    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    /// A row's value for one of the Roles (Qt::DisplayRole: the title, or "New
    /// conversation"; Qt::ToolTipRole: the id).
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    /// id, title, messageCount, branchFromId.
    QHash<int, QByteArray> roleNames() const override;

private:
    friend class DialogListModelPrivate;
    std::unique_ptr<DialogListModelPrivate> d;
};

} // namespace Visindigo::Agent

#endif // VISINDIGO_AGENT_DIALOGLISTMODEL_H
