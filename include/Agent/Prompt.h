// SPDX-License-Identifier: MIT
//
/// \class Visindigo::Agent::Prompt
/// A message template with {{ name }} placeholders (a value
/// class owning one Rust handle). A moved-from Prompt reads as empty and becomes a
/// default prompt on the next setter.
#ifndef VISINDIGO_AGENT_PROMPT_H
#define VISINDIGO_AGENT_PROMPT_H

#include "Export.h"
#include "Message.h"
#include <Utility/JsonConfig.h>

#include <QtCore/QMap>
#include <QtCore/QMetaType>
#include <QtCore/QString>
#include <QtCore/QStringList>

struct ViPrompt;

namespace Visindigo::Agent {

namespace Internal { struct HandleAccess; }

class VISINDIGO_AGENT_EXPORT Prompt
{
public:
    /// An empty prompt.
    Prompt();
    /// A prompt `name` with the template `content`.
    Prompt(const QString& name, const QString& content);
    /// A copy of other (an equal, independent value).
    Prompt(const Prompt& other);
    /// Takes other's value; other reads as empty.
    Prompt(Prompt&& other) noexcept;
    /// Releases the value.
    ~Prompt();
    /// Becomes a copy of other.
    Prompt& operator=(const Prompt& other);
    /// Takes other's value; other reads as empty.
    Prompt& operator=(Prompt&& other) noexcept;

    /// The key in the Center or dialog.
    Prompt& setName(const QString& name);
    /// What the prompt is for (for the application's lists).
    Prompt& setDescription(const QString& description);
    /// The template text; placeholders are {{ name }} (spaces inside the braces allowed).
    Prompt& setContent(const QString& content);
    /// Labels for the application's own use.
    Prompt& setTags(const QStringList& tags);

    /// The name.
    QString getName() const;
    /// The description.
    QString getDescription() const;
    /// The template text.
    QString getContent() const;
    /// The tags.
    QStringList getTags() const;
    /// The distinct placeholder names, in order of first appearance.
    QStringList getVariables() const;
    /// Name and content are both set.
    bool isValid() const;

    /// A Prompt-role message: placeholders with a value replaced (the substituted text is
    /// not re-scanned), the others left verbatim; its name is the prompt's name.
    Message render(const QMap<QString, QString>& variables) const;

    /// The prompt as JSON: name, description, content, tags.
    Visindigo::Utility::JsonConfig toJson() const;
    /// Reads what toJson() wrote; returns isValid() afterwards. A JsonConfig whose root is not an object changes
    /// nothing and returns false.
    bool fromJson(const Visindigo::Utility::JsonConfig& json);

private:
    friend struct Internal::HandleAccess;
    explicit Prompt(ViPrompt* adopted) noexcept;
    ViPrompt* mut();

    ViPrompt* d;
};

} // namespace Visindigo::Agent

Q_DECLARE_METATYPE(Visindigo::Agent::Prompt)

#endif // VISINDIGO_AGENT_PROMPT_H
