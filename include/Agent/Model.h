// SPDX-License-Identifier: MIT
//
// Visindigo::Agent::Model — one model endpoint: name, base url, token, timeouts,
// capabilities and request parameters (a value class owning one Rust handle; copies are
// independent and keep the id). A moved-from Model reads as empty and becomes a fresh
// model (new id) on the next setter.
#ifndef VISINDIGO_AGENT_MODEL_H
#define VISINDIGO_AGENT_MODEL_H

#include "Export.h"
#include <Utility/JsonConfig.h>

#include <QtCore/QFlags>
#include <QtCore/QJsonValue>
#include <QtCore/QMetaType>
#include <QtCore/QObject>
#include <QtCore/QString>
#include <QtCore/QUrl>

struct ViModel;

namespace Visindigo::Agent {

namespace Internal { struct HandleAccess; }

class VISINDIGO_AGENT_EXPORT Model
{
    Q_GADGET
public:
    enum class Capability { None = 0, Text = 1, Image = 2, Audio = 4, ToolUse = 8 };
    Q_DECLARE_FLAGS(Capabilities, Capability)
    Q_FLAG(Capabilities)
    // The wire protocol (extension, SPEC §H.2): OpenAI-compatible Chat Completions
    // (POST <url>/chat/completions, the default), OpenAI Responses (<url>/responses) or
    // Anthropic Messages (<url>/messages, x-api-key). One provider may mix them.
    enum class Api { ChatCompletions = 0, Responses = 1, AnthropicMessages = 2 };
    Q_ENUM(Api)

    // A fresh UUID id; timeouts 60000 ms; capabilities Text; no parameters.
    Model();
    Model(const Model& other);
    Model(Model&& other) noexcept;
    ~Model();
    Model& operator=(const Model& other);
    Model& operator=(Model&& other) noexcept;

    // Sent as the request's "model".
    Model& setName(const QString& name);
    // The BASE url; the API's path ("/chat/completions", "/responses", "/messages") is
    // appended at run time.
    Model& setUrl(const QUrl& url);
    Model& setToken(const QString& token);
    // Total time of one request; 0 = unlimited.
    Model& setTimeoutMs(qint32 ms);
    // Longest silence between received bytes; 0 = the default 60000.
    Model& setIdleTimeoutMs(qint32 ms);
    Model& setCapabilities(Capabilities capabilities);
    Model& addCapability(Capability capability);
    // A dotted key becomes a nested object in the request body; an undefined value
    // removes the key.
    Model& setParameter(const QString& key, const QJsonValue& value);
    Model& setTemperature(qreal temperature);
    Model& setTopP(qreal topP);
    Model& setMaxTokens(qint32 maxTokens);
    // Extension: Model JSON "api" ("responses", "anthropicMessages") only when not
    // ChatCompletions; read case-insensitively, anything else is ChatCompletions.
    Model& setApi(Api api);

    QString getId() const;
    QString getName() const;
    QUrl getUrl() const;
    QString getToken() const;
    qint32 getTimeoutMs() const;
    qint32 getIdleTimeoutMs() const;
    Capabilities getCapabilities() const;
    bool hasCapability(Capability capability) const;
    Api getApi() const;
    // The parameters as a JSON object.
    Visindigo::Utility::JsonConfig getParameters() const;
    // Name, a url with a scheme and a token are all set.
    bool isValid() const;

    // id, name, url, token, timeoutMs, idleTimeoutMs, capabilities, parameters (and "api"
    // when not ChatCompletions).
    Visindigo::Utility::JsonConfig toJson() const;
    // Returns whether a non-empty id was read (the id is kept otherwise). A JsonConfig
    // whose root is not an object changes nothing and returns false.
    bool fromJson(const Visindigo::Utility::JsonConfig& json);

private:
    friend struct Internal::HandleAccess;
    explicit Model(ViModel* adopted) noexcept;
    ViModel* mut();

    ViModel* d;
};

} // namespace Visindigo::Agent

Q_DECLARE_OPERATORS_FOR_FLAGS(Visindigo::Agent::Model::Capabilities)
Q_DECLARE_METATYPE(Visindigo::Agent::Model)

#endif // VISINDIGO_AGENT_MODEL_H
