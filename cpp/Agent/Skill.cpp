// SPDX-License-Identifier: MIT
#include <Agent/Skill.h>

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

ViSkill* newSkill(const QString& name)
{
    const Utf8 u(name);
    ViSkill* s = nullptr;
    if (vi_skill_new(u.data(), u.size(), &s) != VI_STATUS_OK)
        return nullptr;
    return s;
}


} // namespace

Skill::Skill()
    : d(newSkill(QString()))
{
}

Skill::Skill(const QString& name)
    : d(newSkill(name))
{
}

Skill::Skill(ViSkill* adopted) noexcept
    : d(adopted)
{
}

Skill::Skill(const Skill& other)
    : d(Internal::cloneHandle(other.d))
{
}

Skill::Skill(Skill&& other) noexcept
    : d(std::exchange(other.d, nullptr))
{
}

Skill::~Skill()
{
    vi_skill_free(d);
}

Skill& Skill::operator=(const Skill& other)
{
    Internal::assignHandle(d, other.d);
    return *this;
}

Skill& Skill::operator=(Skill&& other) noexcept
{
    std::swap(d, other.d);
    return *this;
}

ViSkill* Skill::mut()
{
    if (!d)
        d = newSkill(QString());
    return d;
}

Skill& Skill::setName(const QString& name)
{
    const Utf8 u(name);
    vi_skill_set_name(mut(), u.data(), u.size());
    return *this;
}

Skill& Skill::setDescription(const QString& description)
{
    const Utf8 u(description);
    vi_skill_set_description(mut(), u.data(), u.size());
    return *this;
}

Skill& Skill::setInstruction(const QString& instruction)
{
    const Utf8 u(instruction);
    vi_skill_set_instruction(mut(), u.data(), u.size());
    return *this;
}

Skill& Skill::setEnabled(bool enabled)
{
    vi_skill_set_enabled(mut(), enabled);
    return *this;
}

Skill& Skill::setTags(const QStringList& tags)
{
    const QByteArray json = Internal::stringListJson(tags);
    vi_skill_set_tags(mut(), json.constData(), size_t(json.size()));
    return *this;
}

Skill& Skill::addFunction(const QString& functionId)
{
    const Utf8 u(functionId);
    vi_skill_add_function(mut(), u.data(), u.size());
    return *this;
}

Skill& Skill::removeFunction(const QString& id)
{
    const Utf8 u(id);
    vi_skill_remove_function(mut(), u.data(), u.size());
    return *this;
}

bool Skill::hasFunction(const QString& id) const
{
    const Utf8 u(id);
    return vi_skill_has_function(d, u.data(), u.size());
}

QStringList Skill::getFunctionIds() const
{
    return takeStringList(ownedJson([this](ViString** out) { return vi_skill_function_ids(d, out); }));
}

QString Skill::getName() const { return toQString(vi_skill_name(d)); }
QString Skill::getDescription() const { return toQString(vi_skill_description(d)); }
QString Skill::getInstruction() const { return toQString(vi_skill_instruction(d)); }
bool Skill::isEnabled() const { return vi_skill_is_enabled(d); }

QStringList Skill::getTags() const
{
    return takeStringList(ownedJson([this](ViString** out) { return vi_skill_tags(d, out); }));
}

bool Skill::isValid() const
{
    return vi_skill_is_valid(d);
}

Visindigo::Utility::JsonConfig Skill::toJson() const
{
    return takeJson(ownedJson([this](ViString** out) { return vi_skill_to_json(d, out); }));
}

bool Skill::fromJson(const Visindigo::Utility::JsonConfig& json)
{
    QByteArray text;
    if (!Internal::objectJson(json, &text))
        return false;
    bool valid = false;
    if (vi_skill_from_json(mut(), text.constData(), size_t(text.size()), &valid) != VI_STATUS_OK)
        return false;
    return valid;
}

} // namespace Visindigo::Agent
