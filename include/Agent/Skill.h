// SPDX-License-Identifier: MIT
//
// Visindigo::Agent::Skill — an instruction injected into the system prompt, with the
// function ids it brings (a value class owning one Rust handle). A moved-from Skill
// reads as empty and becomes a default skill on the next setter.
#ifndef VISINDIGO_AGENT_SKILL_H
#define VISINDIGO_AGENT_SKILL_H

#include "Export.h"
#include <Utility/JsonConfig.h>

#include <QtCore/QMetaType>
#include <QtCore/QString>
#include <QtCore/QStringList>

struct ViSkill;

namespace Visindigo::Agent {

namespace Internal { struct HandleAccess; }

class VISINDIGO_AGENT_EXPORT Skill
{
public:
    // Enabled, everything else empty.
    Skill();
    Skill(const QString& name);
    Skill(const Skill& other);
    Skill(Skill&& other) noexcept;
    ~Skill();
    Skill& operator=(const Skill& other);
    Skill& operator=(Skill&& other) noexcept;

    Skill& setName(const QString& name);
    Skill& setDescription(const QString& description);
    // The text injected into the system prompt.
    Skill& setInstruction(const QString& instruction);
    Skill& setEnabled(bool enabled);
    Skill& setTags(const QStringList& tags);
    // Insertion order kept; duplicates and "" ignored.
    Skill& addFunction(const QString& functionId);
    Skill& removeFunction(const QString& id);
    bool hasFunction(const QString& id) const;
    QStringList getFunctionIds() const;

    QString getName() const;
    QString getDescription() const;
    QString getInstruction() const;
    bool isEnabled() const;
    QStringList getTags() const;
    // Name and instruction are both set.
    bool isValid() const;

    // name, description, instruction, enabled, tags, functions.
    Visindigo::Utility::JsonConfig toJson() const;
    // Returns isValid() afterwards. A JsonConfig whose root is not an object changes
    // nothing and returns false.
    bool fromJson(const Visindigo::Utility::JsonConfig& json);

private:
    friend struct Internal::HandleAccess;
    explicit Skill(ViSkill* adopted) noexcept;
    ViSkill* mut();

    ViSkill* d;
};

} // namespace Visindigo::Agent

Q_DECLARE_METATYPE(Visindigo::Agent::Skill)

#endif // VISINDIGO_AGENT_SKILL_H
