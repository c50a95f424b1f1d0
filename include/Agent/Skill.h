// SPDX-License-Identifier: MIT
//
/// \class Visindigo::Agent::Skill
/// An instruction injected into the system prompt, with the
/// function ids it brings (a value class owning one Rust handle). A moved-from Skill
/// reads as empty and becomes a default skill on the next setter.
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
    /// Enabled, everything else empty.
    Skill();
    /// An enabled skill named `name`.
    Skill(const QString& name);
    /// A copy of other (an equal, independent value).
    Skill(const Skill& other);
    /// Takes other's value; other reads as empty.
    Skill(Skill&& other) noexcept;
    /// Releases the value.
    ~Skill();
    /// Becomes a copy of other.
    Skill& operator=(const Skill& other);
    /// Takes other's value; other reads as empty.
    Skill& operator=(Skill&& other) noexcept;

    /// The key in the Center or dialog.
    Skill& setName(const QString& name);
    /// What the skill is for (for the application's lists).
    Skill& setDescription(const QString& description);
    /// The text injected into the system prompt.
    Skill& setInstruction(const QString& instruction);
    /// Whether runs use it (default true).
    Skill& setEnabled(bool enabled);
    /// Labels for the application's own use.
    Skill& setTags(const QStringList& tags);
    /// Offers function `functionId` to the model whenever the skill is used; insertion order
    /// kept, duplicates and "" ignored.
    Skill& addFunction(const QString& functionId);
    /// Stops offering function `id`.
    Skill& removeFunction(const QString& id);
    /// Whether function `id` is one of the skill's.
    bool hasFunction(const QString& id) const;
    /// The skill's function ids, in insertion order.
    QStringList getFunctionIds() const;

    /// The name.
    QString getName() const;
    /// The description.
    QString getDescription() const;
    /// The text injected into the system prompt.
    QString getInstruction() const;
    /// Whether runs use it.
    bool isEnabled() const;
    /// The tags.
    QStringList getTags() const;
    /// Name and instruction are both set.
    bool isValid() const;

    /// The skill as JSON: name, description, instruction, enabled, tags, functions.
    Visindigo::Utility::JsonConfig toJson() const;
    /// Reads what toJson() wrote; returns isValid() afterwards. A JsonConfig whose root is not an object changes
    /// nothing and returns false.
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
