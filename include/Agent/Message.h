// SPDX-License-Identifier: MIT
//
/// \class Visindigo::Agent::Message
/// One message of a dialog (a value class).
///
/// Users include <Agent/Dialog.h>, which includes this header, as with the native module.
/// The fields live on the Qt side in an implicitly shared private (copies are O(1), setters
/// detach); the Rust core is reached only to serialise (toJson/fromJson) and when the message
/// enters or leaves a Dialog. A moved-from Message reads as a default message and becomes
/// one again on the next setter.
#ifndef VISINDIGO_AGENT_MESSAGE_H
#define VISINDIGO_AGENT_MESSAGE_H

#include "Export.h"
#include <Utility/JsonConfig.h>

#include <QtCore/QMetaType>
#include <QtCore/QObject>
#include <QtCore/QSharedDataPointer>
#include <QtCore/QString>
#include <QtCore/QStringList>

namespace Visindigo::Agent {

namespace Internal { struct HandleAccess; }
class MessageData;

class VISINDIGO_AGENT_EXPORT Message
{
    Q_GADGET
public:
    /// The values are those of the native module (and of the C ABI's VI_ROLE_*).
    enum class Role {
        System,    ///< A system prompt.
        User,      ///< The user's input.
        Assistant, ///< The model's answer.
        Tool,      ///< A tool's result.
        Prompt,    ///< A rendered prompt template (sent as user).
    };
    Q_ENUM(Role)

    /// An empty User message.
    Message();
    /// A message of `role` with `content`.
    Message(Role role, const QString& content);
    /// A copy of other (an equal, independent value).
    Message(const Message& other);
    /// Takes other's value; other reads as empty.
    Message(Message&& other) noexcept;
    /// Releases the value.
    ~Message();
    /// Becomes a copy of other.
    Message& operator=(const Message& other);
    /// Takes other's value; other reads as empty.
    Message& operator=(Message&& other) noexcept;

    /// Who says it.
    Message& setRole(Role role);
    /// The text.
    Message& setContent(const QString& content);
    /// The tool's name (Tool messages) or the prompt's (Prompt messages); never sent.
    Message& setName(const QString& name);
    /// The id of the call a Tool message answers.
    Message& setToolCallID(const QString& id);
    /// The raw JSON array text of the tool calls, stored and re-sent verbatim.
    Message& setToolCalls(const QString& rawJsonArray);
    /// Shown to the user, never sent to the server.
    Message& setReasoning(const QString& reasoning);
    /// Extension (SPEC §H.2.2, §I.2.3): the reasoning of an answer that the API wants back —
    /// Anthropic's thinking blocks with their signatures, the Responses API's reasoning items
    /// with their encrypted content and the order of the output they came in — as a JSON
    /// array text; sent back verbatim in the rounds and runs that follow, each API only its
    /// own entries. Message JSON "thinkingBlocks" only when not empty.
    Message& setThinkingBlocks(const QString& blocksJson);

    /// Who says it.
    Role getRole() const;
    /// The text.
    QString getContent() const;
    /// The tool's or prompt's name.
    QString getName() const;
    /// The id of the call a Tool message answers.
    QString getToolCallID() const;
    /// The tool calls as JSON array text ("" for none).
    QString getToolCalls() const;
    /// The reasoning shown with an answer.
    QString getReasoning() const;
    /// The kept reasoning as JSON array text ("" for none).
    QString getThinkingBlocks() const;
    /// Neither content nor tool calls (name and reasoning don't count).
    bool isEmpty() const;

    /// The message as JSON: role, content, name, toolCallId, toolCalls, reasoning (and the
    /// extensions' images and thinkingBlocks when present).
    Visindigo::Utility::JsonConfig toJson() const;
    /// Reads what toJson() wrote, overwriting every field; false (and role User) when the role is not recognised.
    /// A JsonConfig whose root is not an object changes nothing and returns false.
    bool fromJson(const Visindigo::Utility::JsonConfig& json);

    /// Extension (not in the native module): attaches an image by URL (http(s) or data:)
    /// with an optional detail ("low", "high", "auto").
    Message& addImageURL(const QString& url, const QString& detail = QString());
    /// Extension: the attached images' URLs, in order.
    QStringList getImageURLs() const;

private:
    friend struct Internal::HandleAccess;
    /// The fields to change (a fresh default private when d is null, detached otherwise).
    MessageData* mut();

    /// Null for a default-constructed or moved-from message: reads as a default message.
    QSharedDataPointer<MessageData> d;
};

} // namespace Visindigo::Agent

Q_DECLARE_METATYPE(Visindigo::Agent::Message)

#endif // VISINDIGO_AGENT_MESSAGE_H
