// SPDX-License-Identifier: MIT
//
// Draws one MessageModel row as a chat bubble: Markdown content (QTextDocument), the user's on
// the right and the assistant's on the left in different colours, reasoning dimmed and
// collapsed behind a "Reasoning" line (a click opens or closes it; the answer in progress shows
// it open), tool calls and tool results as compact cards.
#ifndef VI_CHAT_WINDOW_MESSAGE_DELEGATE_H
#define VI_CHAT_WINDOW_MESSAGE_DELEGATE_H

#include <QtCore/QPersistentModelIndex>
#include <QtCore/QSet>
#include <QtWidgets/QStyledItemDelegate>

#include <memory>

class QTextDocument;

class MessageDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;
    bool editorEvent(QEvent* event, QAbstractItemModel* model, const QStyleOptionViewItem& option,
                     const QModelIndex& index) override;

    // Whether a row's reasoning is shown.
    bool reasoningShown(const QModelIndex& index) const;
    void setReasoningShown(const QModelIndex& index, bool shown);

private:
    struct Bubble;
    Bubble layout(const QStyleOptionViewItem& option, const QModelIndex& index) const;

    // Rows whose reasoning the user opened (or, for the answer in progress, closed).
    QSet<QPersistentModelIndex> toggled;
};

#endif // VI_CHAT_WINDOW_MESSAGE_DELEGATE_H
