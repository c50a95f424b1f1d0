// SPDX-License-Identifier: MIT
#include <Agent/Prompt.h>

#include "Handles.h"
#include "Strings.h"

#include <visindigo_agent.h>

#include <utility>

namespace Visindigo::Agent {

using Internal::ownedJson;
using Internal::takeJson;
using Internal::takeStringList;
using Internal::toQString;
using Internal::Utf8;

namespace {

ViPrompt* newPrompt(const QString& name, const QString& content)
{
    const Utf8 n(name);
    const Utf8 c(content);
    ViPrompt* p = nullptr;
    if (vi_prompt_new(n.data(), n.size(), c.data(), c.size(), &p) != VI_STATUS_OK)
        return nullptr;
    return p;
}


} // namespace

Prompt::Prompt()
    : d(newPrompt(QString(), QString()))
{
}

Prompt::Prompt(const QString& name, const QString& content)
    : d(newPrompt(name, content))
{
}

Prompt::Prompt(ViPrompt* adopted) noexcept
    : d(adopted)
{
}

Prompt::Prompt(const Prompt& other)
    : d(Internal::cloneHandle(other.d))
{
}

Prompt::Prompt(Prompt&& other) noexcept
    : d(std::exchange(other.d, nullptr))
{
}

Prompt::~Prompt()
{
    vi_prompt_free(d);
}

Prompt& Prompt::operator=(const Prompt& other)
{
    Internal::assignHandle(d, other.d);
    return *this;
}

Prompt& Prompt::operator=(Prompt&& other) noexcept
{
    std::swap(d, other.d);
    return *this;
}

ViPrompt* Prompt::mut()
{
    if (!d)
        d = newPrompt(QString(), QString());
    return d;
}

Prompt& Prompt::setName(const QString& name)
{
    const Utf8 u(name);
    vi_prompt_set_name(mut(), u.data(), u.size());
    return *this;
}

Prompt& Prompt::setDescription(const QString& description)
{
    const Utf8 u(description);
    vi_prompt_set_description(mut(), u.data(), u.size());
    return *this;
}

Prompt& Prompt::setContent(const QString& content)
{
    const Utf8 u(content);
    vi_prompt_set_content(mut(), u.data(), u.size());
    return *this;
}

Prompt& Prompt::setTags(const QStringList& tags)
{
    const QByteArray json = Internal::stringListJson(tags);
    vi_prompt_set_tags(mut(), json.constData(), size_t(json.size()));
    return *this;
}

QString Prompt::getName() const { return toQString(vi_prompt_name(d)); }
QString Prompt::getDescription() const { return toQString(vi_prompt_description(d)); }
QString Prompt::getContent() const { return toQString(vi_prompt_content(d)); }

QStringList Prompt::getTags() const
{
    return takeStringList(ownedJson([this](ViString** out) { return vi_prompt_tags(d, out); }));
}

QStringList Prompt::getVariables() const
{
    return takeStringList(ownedJson([this](ViString** out) { return vi_prompt_variables(d, out); }));
}

bool Prompt::isValid() const
{
    return vi_prompt_is_valid(d);
}

Message Prompt::render(const QMap<QString, QString>& variables) const
{
    const QByteArray json = Internal::stringMapJson(variables);
    ViMessage* m = nullptr;
    if (!d || vi_prompt_render(d, json.constData(), size_t(json.size()), &m) != VI_STATUS_OK) {
        // Only a moved-from prompt gets here: render the empty template.
        return Message(Message::Role::Prompt, QString());
    }
    return Internal::adoptMessage(m);
}

Visindigo::Utility::JsonConfig Prompt::toJson() const
{
    return takeJson(ownedJson([this](ViString** out) { return vi_prompt_to_json(d, out); }));
}

bool Prompt::fromJson(const Visindigo::Utility::JsonConfig& json)
{
    QByteArray text;
    if (!Internal::objectJson(json, &text))
        return false;
    bool valid = false;
    if (vi_prompt_from_json(mut(), text.constData(), size_t(text.size()), &valid) != VI_STATUS_OK)
        return false;
    return valid;
}

} // namespace Visindigo::Agent
