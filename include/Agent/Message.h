// SPDX-License-Identifier: MIT
//
// Visindigo::Agent::Message — one message of a dialog (a value class).
//
// Users include <Agent/Dialog.h>, which includes this header, as with the native module.
// The fields live on the Qt side in an implicitly shared private (copies are O(1), setters
// detach); the Rust core is reached only to serialise (toJson/fromJson) and when the message
// enters or leaves a Dialog. A moved-from Message reads as a default message and becomes
// one again on the next setter.
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
    // The values are those of the native module (and of the C ABI's VI_ROLE_*).
    enum class Role { System, User, Assistant, Tool, Prompt };
    Q_ENUM(Role)

    // An empty User message.
    Message();
    Message(Role role, const QString& content);
    Message(const Message& other);
    Message(Message&& other) noexcept;
    ~Message();
    Message& operator=(const Message& other);
    Message& operator=(Message&& other) noexcept;

    Message& setRole(Role role);
    Message& setContent(const QString& content);
    Message& setName(const QString& name);
    Message& setToolCallID(const QString& id);
    // The raw JSON array text of the tool calls, stored and re-sent verbatim.
    Message& setToolCalls(const QString& rawJsonArray);
    // Shown to the user, never sent to the server.
    Message& setReasoning(const QString& reasoning);
    // Extension (SPEC §H.2.2): Anthropic's thinking blocks of an answer, signatures
    // included, as a JSON array text; sent back verbatim in the rounds that follow. Message
    // JSON "thinkingBlocks" only when not empty.
    Message& setThinkingBlocks(const QString& blocksJson);

    Role getRole() const;
    QString getContent() const;
    QString getName() const;
    QString getToolCallID() const;
    QString getToolCalls() const;
    QString getReasoning() const;
    QString getThinkingBlocks() const;
    // Neither content nor tool calls (name and reasoning don't count).
    bool isEmpty() const;

    Visindigo::Utility::JsonConfig toJson() const;
    // Overwrites every field; false (and role User) when the role is not recognised.
    // A JsonConfig whose root is not an object changes nothing and returns false.
    bool fromJson(const Visindigo::Utility::JsonConfig& json);

    // Extension (not in the native module): attaches an image by URL (http(s) or data:)
    // with an optional detail ("low", "high", "auto").
    Message& addImageURL(const QString& url, const QString& detail = QString());
    // Extension: the attached images' URLs, in order.
    QStringList getImageURLs() const;

private:
    friend struct Internal::HandleAccess;
    // The fields to change (a fresh default private when d is null, detached otherwise).
    MessageData* mut();

    // Null for a default-constructed or moved-from message: reads as a default message.
    QSharedDataPointer<MessageData> d;
};

} // namespace Visindigo::Agent

Q_DECLARE_METATYPE(Visindigo::Agent::Message)

#endif // VISINDIGO_AGENT_MESSAGE_H
