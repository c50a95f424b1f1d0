// SPDX-License-Identifier: MIT
//
/// \class Visindigo::Agent::MessageModel
/// One Dialog's messages as a QAbstractListModel, for a
/// QListView or a QML ListView (extension, SPEC §H.5).
///
/// One row per message, plus one row at the end for the answer in progress while a round
/// streams (role "assistant", streaming true, its content and reasoning growing). When the
/// round ends that row becomes the appended message (or goes away when nothing was said).
/// Streamed text is coalesced: however many deltas arrive, at most one dataChanged per
/// event-loop pass. Changes other than appends (clearMessages, truncateTo, fromJson, copyTo)
/// reset the model. The model lives on the dialog's thread and follows the dialog's
/// destruction (it becomes empty). Qt Core only.
#ifndef VISINDIGO_AGENT_MESSAGEMODEL_H
#define VISINDIGO_AGENT_MESSAGEMODEL_H

#include "Export.h"

#include <QtCore/QAbstractListModel>

#include <memory>

namespace Visindigo::Agent {

class Dialog;
class MessageModelPrivate;

class VISINDIGO_AGENT_EXPORT MessageModel : public QAbstractListModel
{
    Q_OBJECT
    /// The dialog shown (for QML); see setDialog().
    Q_PROPERTY(Visindigo::Agent::Dialog* dialog READ dialog WRITE setDialog NOTIFY dialogChanged)
public:
    /// The data roles (roleNames() gives their QML names).
    enum Roles {
        /// "user", "assistant", "tool", "system" or "prompt".
        RoleRole = Qt::UserRole + 1,
        /// The text (also Qt::DisplayRole).
        ContentRole,
        ReasoningRole,
        NameRole,
        /// The tool calls' JSON array text ("" for none).
        ToolCallsRole,
        ToolCallIdRole,
        /// The image urls (QStringList).
        ImagesRole,
        /// True only for the row of the answer in progress.
        StreamingRole,
    };
    Q_ENUM(Roles)

    /// An empty model; setDialog() fills it.
    explicit MessageModel(QObject* parent = nullptr);
    ~MessageModel() override;

    /// The dialog shown (null: none). Not owned.
    void setDialog(Dialog* dialog);
    /// The dialog shown; nullptr for none (or when it was destroyed).
    Dialog* dialog() const;

    /// The messages, plus one while an answer streams.
    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    /// A row's value for one of the Roles (Qt::DisplayRole: the content).
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    /// role, content, reasoning, name, toolCalls, toolCallId, images, streaming.
    QHash<int, QByteArray> roleNames() const override;

Q_SIGNALS:
    /// setDialog() changed the dialog shown.
    void dialogChanged();

private:
    friend class MessageModelPrivate;
    std::unique_ptr<MessageModelPrivate> d;
};

} // namespace Visindigo::Agent

#endif // VISINDIGO_AGENT_MESSAGEMODEL_H
