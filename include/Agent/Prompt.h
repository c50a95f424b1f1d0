// SPDX-License-Identifier: MIT
//
// Visindigo::Agent::Prompt — a message template with {{ name }} placeholders (a value
// class owning one Rust handle). A moved-from Prompt reads as empty and becomes a
// default prompt on the next setter.
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
    Prompt();
    Prompt(const QString& name, const QString& content);
    Prompt(const Prompt& other);
    Prompt(Prompt&& other) noexcept;
    ~Prompt();
    Prompt& operator=(const Prompt& other);
    Prompt& operator=(Prompt&& other) noexcept;

    Prompt& setName(const QString& name);
    Prompt& setDescription(const QString& description);
    // The template text; placeholders are {{ name }} (spaces inside the braces allowed).
    Prompt& setContent(const QString& content);
    Prompt& setTags(const QStringList& tags);

    QString getName() const;
    QString getDescription() const;
    QString getContent() const;
    QStringList getTags() const;
    // The distinct placeholder names, in order of first appearance.
    QStringList getVariables() const;
    // Name and content are both set.
    bool isValid() const;

    // A Prompt-role message: placeholders with a value replaced (the substituted text is
    // not re-scanned), the others left verbatim; its name is the prompt's name.
    Message render(const QMap<QString, QString>& variables) const;

    // name, description, content, tags.
    Visindigo::Utility::JsonConfig toJson() const;
    // Returns isValid() afterwards. A JsonConfig whose root is not an object changes
    // nothing and returns false.
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
