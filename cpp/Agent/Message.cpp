// SPDX-License-Identifier: MIT
#include <Agent/Message.h>

#include "Strings.h"

#include <visindigo_agent.h>

#include <utility>

namespace Visindigo::Agent {

using Internal::ownedJson;
using Internal::takeJson;
using Internal::toQString;
using Internal::Utf8;

namespace {

ViMessage* newMessage(Message::Role role, const QString& content)
{
    const Utf8 u(content);
    ViMessage* m = nullptr;
    if (vi_message_new(uint32_t(role), u.data(), u.size(), &m) != VI_STATUS_OK)
        return nullptr;
    return m;
}

ViMessage* cloneMessage(const ViMessage* m)
{
    ViMessage* out = nullptr;
    if (!m || vi_message_clone(m, &out) != VI_STATUS_OK)
        return nullptr;
    return out;
}

} // namespace

Message::Message()
    : d(newMessage(Role::User, QString()))
{
}

Message::Message(Role role, const QString& content)
    : d(newMessage(role, content))
{
}

Message::Message(ViMessage* adopted) noexcept
    : d(adopted)
{
}

Message::Message(const Message& other)
    : d(cloneMessage(other.d))
{
}

Message::Message(Message&& other) noexcept
    : d(std::exchange(other.d, nullptr))
{
}

Message::~Message()
{
    vi_message_free(d);
}

Message& Message::operator=(const Message& other)
{
    if (this != &other) {
        ViMessage* copy = cloneMessage(other.d);
        vi_message_free(d);
        d = copy;
    }
    return *this;
}

Message& Message::operator=(Message&& other) noexcept
{
    std::swap(d, other.d);
    return *this;
}

ViMessage* Message::mut()
{
    if (!d)
        d = newMessage(Role::User, QString());
    return d;
}

Message& Message::setRole(Role role)
{
    vi_message_set_role(mut(), uint32_t(role));
    return *this;
}

Message& Message::setContent(const QString& content)
{
    const Utf8 u(content);
    vi_message_set_content(mut(), u.data(), u.size());
    return *this;
}

Message& Message::setName(const QString& name)
{
    const Utf8 u(name);
    vi_message_set_name(mut(), u.data(), u.size());
    return *this;
}

Message& Message::setToolCallID(const QString& id)
{
    const Utf8 u(id);
    vi_message_set_tool_call_id(mut(), u.data(), u.size());
    return *this;
}

Message& Message::setToolCalls(const QString& rawJsonArray)
{
    const Utf8 u(rawJsonArray);
    vi_message_set_tool_calls(mut(), u.data(), u.size());
    return *this;
}

Message& Message::setReasoning(const QString& reasoning)
{
    const Utf8 u(reasoning);
    vi_message_set_reasoning(mut(), u.data(), u.size());
    return *this;
}

Message::Role Message::getRole() const
{
    const uint32_t r = vi_message_role(d);
    return r <= VI_ROLE_PROMPT ? Role(r) : Role::User;
}

QString Message::getContent() const { return toQString(vi_message_content(d)); }
QString Message::getName() const { return toQString(vi_message_name(d)); }
QString Message::getToolCallID() const { return toQString(vi_message_tool_call_id(d)); }
QString Message::getToolCalls() const { return toQString(vi_message_tool_calls(d)); }
QString Message::getReasoning() const { return toQString(vi_message_reasoning(d)); }

bool Message::isEmpty() const
{
    return vi_message_is_empty(d);
}

Visindigo::Utility::JsonConfig Message::toJson() const
{
    if (!d) {
        // A moved-from message serialises as a default one.
        return Message().toJson();
    }
    return takeJson(ownedJson([this](ViString** out) { return vi_message_to_json(d, out); }));
}

bool Message::fromJson(const Visindigo::Utility::JsonConfig& json)
{
    QByteArray text;
    if (!Internal::objectJson(json, &text))
        return false;
    bool recognized = false;
    if (vi_message_from_json(mut(), text.constData(), size_t(text.size()), &recognized) != VI_STATUS_OK)
        return false;
    return recognized;
}

Message& Message::addImageURL(const QString& url, const QString& detail)
{
    const Utf8 u(url);
    const Utf8 dt(detail);
    vi_message_add_image_url(mut(), u.data(), u.size(), dt.data(), dt.size());
    return *this;
}

QStringList Message::getImageURLs() const
{
    QStringList out;
    const size_t n = vi_message_image_count(d);
    out.reserve(qsizetype(n));
    for (size_t i = 0; i < n; ++i)
        out.append(toQString(vi_message_image_url(d, i)));
    return out;
}

} // namespace Visindigo::Agent
