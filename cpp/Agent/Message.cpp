// SPDX-License-Identifier: MIT
//
// Message: the fields are held here, in an implicitly shared private (MessageData), so that
// creating, copying and reading a message never crosses the C ABI. The core's Message is
// used only where its behaviour lives: serialisation (toJson/fromJson go through a
// temporary ViMessage) and the Dialog/Prompt boundary (Internal::toHandle / adoptMessage,
// Handles.h).
//
// Strings are stored as the core would give them back: setters replace lone surrogates by
// U+FFFD (cpp/Internal/Utf16.h), so a message reads the same before and after a trip
// through the core.
#include <Agent/Message.h>

#include "Handles.h"
#include "Strings.h"

#include <visindigo_agent.h>

#include <QtCore/QList>
#include <QtCore/QSharedData>

#include <utility>

namespace Visindigo::Agent {

using Internal::ownedJson;
using Internal::takeJson;
using Internal::toQString;
using Internal::Utf8;
using Visindigo::Internal::Utf16::withoutLoneSurrogates;

class MessageData : public QSharedData
{
public:
    struct Image
    {
        QString url;
        QString detail;
    };

    Message::Role role = Message::Role::User;
    QString content;
    QString name;
    QString toolCallId;
    QString toolCalls;
    QString reasoning;
    QString thinkingBlocks;
    QList<Image> images;

    // A new private already holding its one reference, for QAdoptSharedDataTag (saves the
    // atomic increment of the plain constructor).
    static MessageData* adoptable()
    {
        auto* data = new MessageData;
        data->ref.storeRelaxed(1);
        return data;
    }
};

namespace {

Message::Role roleOf(uint32_t value)
{
    return value <= VI_ROLE_PROMPT ? Message::Role(value) : Message::Role::User;
}

// The fields of a core message (borrowed) in a new private.
MessageData* readHandle(const ViMessage* m)
{
    auto* data = MessageData::adoptable();
    data->role = roleOf(vi_message_role(m));
    data->content = toQString(vi_message_content(m));
    data->name = toQString(vi_message_name(m));
    data->toolCallId = toQString(vi_message_tool_call_id(m));
    data->toolCalls = toQString(vi_message_tool_calls(m));
    data->reasoning = toQString(vi_message_reasoning(m));
    data->thinkingBlocks = toQString(vi_message_thinking_blocks(m));
    const size_t n = vi_message_image_count(m);
    if (n) {
        data->images.reserve(qsizetype(n));
        for (size_t i = 0; i < n; ++i)
            data->images.append({toQString(vi_message_image_url(m, i)), toQString(vi_message_image_detail(m, i))});
    }
    return data;
}

ViStatus setString(ViStatus (*set)(ViMessage*, const char*, size_t), ViMessage* m, const QString& value)
{
    if (value.isEmpty())
        return VI_STATUS_OK; // a new core message has every string empty
    const Utf8 u(value);
    return set(m, u.data(), u.size());
}

// A new core message with the fields of `data` (null = a default message); NULL only when
// the core fails to allocate.
ViMessage* newHandle(const MessageData* data)
{
    static const MessageData defaults;
    if (!data)
        data = &defaults;
    const Utf8 content(data->content);
    ViMessage* m = nullptr;
    if (vi_message_new(uint32_t(data->role), content.data(), content.size(), &m) != VI_STATUS_OK)
        return nullptr;
    setString(vi_message_set_name, m, data->name);
    setString(vi_message_set_tool_call_id, m, data->toolCallId);
    setString(vi_message_set_tool_calls, m, data->toolCalls);
    setString(vi_message_set_reasoning, m, data->reasoning);
    setString(vi_message_set_thinking_blocks, m, data->thinkingBlocks);
    for (const MessageData::Image& image : data->images) {
        const Utf8 url(image.url);
        const Utf8 detail(image.detail);
        vi_message_add_image_url(m, url.data(), url.size(), detail.data(), detail.size());
    }
    return m;
}

} // namespace

// ---- the bridge to the core (Handles.h) -----------------------------------------------------------

ViMessage* Internal::HandleAccess::messageToHandle(const Message& message)
{
    return newHandle(message.d.constData());
}

Message Internal::HandleAccess::messageFromHandle(const ViMessage* handle)
{
    Message out;
    if (handle)
        out.d = QSharedDataPointer<MessageData>(readHandle(handle), QAdoptSharedDataTag{});
    return out;
}

// ---- the value class --------------------------------------------------------------------------------

Message::Message() = default;

Message::Message(Role role, const QString& content)
    : d(MessageData::adoptable(), QAdoptSharedDataTag{})
{
    d->role = roleOf(uint32_t(role)); // a value outside the enum reads as User
    d->content = withoutLoneSurrogates(content);
}

Message::Message(const Message& other) = default;
Message::Message(Message&& other) noexcept = default;
Message::~Message() = default;
Message& Message::operator=(const Message& other) = default;

Message& Message::operator=(Message&& other) noexcept
{
    d.swap(other.d);
    return *this;
}

MessageData* Message::mut()
{
    if (!d)
        d = QSharedDataPointer<MessageData>(MessageData::adoptable(), QAdoptSharedDataTag{});
    return d.data(); // detaches when shared
}

Message& Message::setRole(Role role)
{
    // A value outside the enum changes nothing (the core's vi_message_set_role refuses it).
    if (uint32_t(role) <= VI_ROLE_PROMPT)
        mut()->role = role;
    return *this;
}

Message& Message::setContent(const QString& content)
{
    mut()->content = withoutLoneSurrogates(content);
    return *this;
}

Message& Message::setName(const QString& name)
{
    mut()->name = withoutLoneSurrogates(name);
    return *this;
}

Message& Message::setToolCallID(const QString& id)
{
    mut()->toolCallId = withoutLoneSurrogates(id);
    return *this;
}

Message& Message::setToolCalls(const QString& rawJsonArray)
{
    mut()->toolCalls = withoutLoneSurrogates(rawJsonArray);
    return *this;
}

Message& Message::setReasoning(const QString& reasoning)
{
    mut()->reasoning = withoutLoneSurrogates(reasoning);
    return *this;
}

Message::Role Message::getRole() const { return d ? d->role : Role::User; }
QString Message::getContent() const { return d ? d->content : QString(); }
QString Message::getName() const { return d ? d->name : QString(); }
QString Message::getToolCallID() const { return d ? d->toolCallId : QString(); }
QString Message::getToolCalls() const { return d ? d->toolCalls : QString(); }
QString Message::getReasoning() const { return d ? d->reasoning : QString(); }

Message& Message::setThinkingBlocks(const QString& blocksJson)
{
    mut()->thinkingBlocks = withoutLoneSurrogates(blocksJson);
    return *this;
}

QString Message::getThinkingBlocks() const { return d ? d->thinkingBlocks : QString(); }

bool Message::isEmpty() const
{
    // SPEC §B.1 / seeds/Message.md, the one-line rule: empty means neither content nor tool
    // calls (name, reasoning and images don't count). The same as the core's
    // Message::is_empty, kept here so the check does not cross the C ABI.
    return !d || (d->content.isEmpty() && d->toolCalls.isEmpty());
}

Visindigo::Utility::JsonConfig Message::toJson() const
{
    // The JSON shape is the core's (SPEC §B.1, §E.9): serialise a temporary core message.
    ViMessage* m = newHandle(d.constData());
    const Visindigo::Utility::JsonConfig out =
        takeJson(ownedJson([m](ViString** o) { return vi_message_to_json(m, o); }));
    vi_message_free(m);
    return out;
}

bool Message::fromJson(const Visindigo::Utility::JsonConfig& json)
{
    QByteArray text;
    if (!Internal::objectJson(json, &text))
        return false;
    // The core reads the JSON into a temporary message; its fields then replace ours.
    ViMessage* m = nullptr;
    if (vi_message_new(VI_ROLE_USER, nullptr, 0, &m) != VI_STATUS_OK)
        return false;
    bool recognized = false;
    const bool ok = vi_message_from_json(m, text.constData(), size_t(text.size()), &recognized) == VI_STATUS_OK;
    if (ok)
        d = QSharedDataPointer<MessageData>(readHandle(m), QAdoptSharedDataTag{});
    vi_message_free(m);
    return ok && recognized;
}

Message& Message::addImageURL(const QString& url, const QString& detail)
{
    mut()->images.append({withoutLoneSurrogates(url), withoutLoneSurrogates(detail)});
    return *this;
}

QStringList Message::getImageURLs() const
{
    QStringList out;
    if (!d)
        return out;
    out.reserve(d->images.size());
    for (const MessageData::Image& image : d->images)
        out.append(image.url);
    return out;
}

} // namespace Visindigo::Agent
