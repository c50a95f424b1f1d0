// SPDX-License-Identifier: MIT
#include "MessageDelegate.h"

#include <Agent/MessageModel.h>

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtGui/QAbstractTextDocumentLayout>
#include <QtGui/QMouseEvent>
#include <QtGui/QPainter>
#include <QtGui/QTextBlock>
#include <QtGui/QTextCursor>
#include <QtGui/QTextDocument>
#include <QtGui/QTextDocumentFragment>

using Visindigo::Agent::MessageModel;

namespace {

constexpr int kMargin = 8;   // around a bubble
constexpr int kPadding = 10; // inside it
// A tool result longer than this is cut in its card.
constexpr int kResultChars = 240;

QTextCharFormat format(const QFont& base, qreal scale, bool bold, const QColor& color, bool mono = false)
{
    QTextCharFormat f;
    QFont font = base;
    if (mono)
        font.setFamilies({QStringLiteral("DejaVu Sans Mono"), QStringLiteral("monospace")});
    font.setPointSizeF(base.pointSizeF() * scale);
    font.setBold(bold);
    f.setFont(font);
    f.setForeground(color);
    return f;
}

// "name(arguments)" for every call of an assistant message's tool calls.
QStringList describeCalls(const QString& toolCallsJson)
{
    QStringList calls;
    const QJsonArray array = QJsonDocument::fromJson(toolCallsJson.toUtf8()).array();
    for (const QJsonValue& call : array) {
        const QJsonObject function = call.toObject().value(QLatin1String("function")).toObject();
        calls << function.value(QLatin1String("name")).toString() + QLatin1Char('(')
                     + function.value(QLatin1String("arguments")).toString() + QLatin1Char(')');
    }
    return calls;
}

} // namespace

struct MessageDelegate::Bubble
{
    QRect rect;                           // in the row's coordinates
    QColor fill;
    QColor border;
    std::shared_ptr<QTextDocument> text;
    int reasoningBlock = -1;              // the "Reasoning" line's block, -1 without reasoning
};

bool MessageDelegate::reasoningShown(const QModelIndex& index) const
{
    const bool streaming = index.data(MessageModel::StreamingRole).toBool();
    return streaming != toggled.contains(QPersistentModelIndex(index));
}

void MessageDelegate::setReasoningShown(const QModelIndex& index, bool shown)
{
    if (reasoningShown(index) == shown)
        return;
    const QPersistentModelIndex key(index);
    if (toggled.contains(key))
        toggled.remove(key);
    else
        toggled.insert(key);
    Q_EMIT sizeHintChanged(index);
}

MessageDelegate::Bubble MessageDelegate::layout(const QStyleOptionViewItem& option, const QModelIndex& index) const
{
    const QString role = index.data(MessageModel::RoleRole).toString();
    const QString content = index.data(MessageModel::ContentRole).toString();
    const QString reasoning = index.data(MessageModel::ReasoningRole).toString();
    const bool streaming = index.data(MessageModel::StreamingRole).toBool();
    const bool user = role == QLatin1String("user");
    const bool tool = role == QLatin1String("tool");
    const QPalette& palette = option.palette;
    const QColor dim = palette.color(QPalette::PlaceholderText);
    const QColor ink = palette.color(QPalette::Text);

    Bubble b;
    b.text = std::make_shared<QTextDocument>();
    QTextDocument& doc = *b.text;
    doc.setDefaultFont(option.font);
    doc.setDocumentMargin(0);
    QTextCursor c(&doc);

    QString title = user ? tr("You") : tool ? tr("Tool result") : role == QLatin1String("assistant") ? tr("Assistant") : role;
    const QString name = index.data(MessageModel::NameRole).toString();
    if (tool && !name.isEmpty())
        title += QStringLiteral(" · ") + name;
    c.insertText(title, format(option.font, 0.85, true, dim));

    if (!reasoning.isEmpty()) {
        c.insertBlock();
        b.reasoningBlock = c.block().blockNumber();
        const bool shown = reasoningShown(index);
        c.insertText((shown ? QStringLiteral("▾ ") : QStringLiteral("▸ ")) + tr("Reasoning"), format(option.font, 0.85, false, dim));
        if (shown) {
            c.insertBlock();
            QTextCharFormat f = format(option.font, 0.9, false, dim);
            f.setFontItalic(true);
            c.insertText(reasoning, f);
        }
    }

    c.insertBlock();
    c.setCharFormat(format(option.font, 1.0, false, ink, tool));
    if (tool) {
        c.insertText(content.size() > kResultChars ? content.left(kResultChars) + QChar(0x2026) : content);
    } else {
        c.insertFragment(QTextDocumentFragment::fromMarkdown(content));
        if (streaming)
            c.insertText(QStringLiteral("▍"), format(option.font, 1.0, false, dim));
    }

    for (const QString& call : describeCalls(index.data(MessageModel::ToolCallsRole).toString())) {
        c.insertBlock();
        QTextCharFormat f = format(option.font, 0.9, false, ink, true);
        f.setBackground(palette.color(QPalette::AlternateBase));
        c.insertText(tr("Tool call: ") + call, f);
    }

    const int available = option.rect.width() - 2 * kMargin;
    const int width = tool ? available : int(available * 0.82);
    doc.setTextWidth(qMax(80, width - 2 * kPadding));
    const int textWidth = qMin(int(doc.idealWidth()) + 1, int(doc.textWidth()));
    const QSize size(textWidth + 2 * kPadding, int(doc.size().height()) + 2 * kPadding);
    const int x = user ? option.rect.width() - kMargin - size.width() : kMargin;
    b.rect = QRect(QPoint(x, kMargin / 2), size);
    if (user) {
        b.fill = QColor(0xd7, 0xe8, 0xff);
        b.border = QColor(0xa9, 0xc8, 0xf5);
    } else if (tool) {
        b.fill = palette.color(QPalette::AlternateBase);
        b.border = palette.color(QPalette::Mid);
    } else {
        b.fill = palette.color(QPalette::Base);
        b.border = streaming ? palette.color(QPalette::Highlight) : palette.color(QPalette::Mid);
    }
    return b;
}

QSize MessageDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const
{
    const Bubble b = layout(option, index);
    return QSize(option.rect.width(), b.rect.height() + kMargin);
}

void MessageDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const
{
    const Bubble b = layout(option, index);
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    painter->translate(option.rect.topLeft());
    painter->setPen(QPen(b.border, (option.state & QStyle::State_Selected) ? 2.0 : 1.0));
    painter->setBrush(b.fill);
    painter->drawRoundedRect(QRectF(b.rect).adjusted(0.5, 0.5, -0.5, -0.5), 8, 8);
    painter->translate(b.rect.topLeft() + QPoint(kPadding, kPadding));
    b.text->drawContents(painter);
    painter->restore();
}

bool MessageDelegate::editorEvent(QEvent* event, QAbstractItemModel* model, const QStyleOptionViewItem& option,
                                  const QModelIndex& index)
{
    if (event->type() == QEvent::MouseButtonRelease) {
        const Bubble b = layout(option, index);
        if (b.reasoningBlock >= 0) {
            const QPointF at = static_cast<QMouseEvent*>(event)->position() - option.rect.topLeft()
                               - b.rect.topLeft() - QPoint(kPadding, kPadding);
            const QRectF line = b.text->documentLayout()->blockBoundingRect(b.text->findBlockByNumber(b.reasoningBlock));
            if (line.contains(at)) {
                setReasoningShown(index, !reasoningShown(index));
                return true;
            }
        }
    }
    return QStyledItemDelegate::editorEvent(event, model, option, index);
}
