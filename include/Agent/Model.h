// SPDX-License-Identifier: MIT
//
/// \class Visindigo::Agent::Model
/// One model endpoint: name, base url, token, timeouts,
/// capabilities and request parameters (a value class owning one Rust handle; copies are
/// independent and keep the id). A moved-from Model reads as empty and becomes a fresh
/// model (new id) on the next setter.
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
    /// What a model can do (a provider picks by these).
    enum class Capability {
        None = 0,    ///< No requirement.
        Text = 1,    ///< Text in and out.
        Image = 2,   ///< Images in messages.
        Audio = 4,   ///< Audio.
        ToolUse = 8, ///< Tool calls.
    };
    /// A set of Capability bits.
    Q_DECLARE_FLAGS(Capabilities, Capability)
    Q_FLAG(Capabilities)
    /// The wire protocol (extension, SPEC §H.2): OpenAI-compatible Chat Completions
    /// (`POST <url>/chat/completions`, the default), OpenAI Responses (`<url>/responses`) or
    /// Anthropic Messages (`<url>/messages`, its version from setApiVersion) or Gemini
    /// (`<url>/models/<name>:streamGenerateContent?alt=sse`, x-goog-api-key; SPEC §I.2.4). One
    /// provider may mix them.
    enum class Api {
        ChatCompletions = 0,   ///< OpenAI-compatible Chat Completions.
        Responses = 1,         ///< OpenAI Responses.
        AnthropicMessages = 2, ///< Anthropic Messages.
        Gemini = 3,            ///< Google Gemini (generativelanguage, v1beta).
    };
    Q_ENUM(Api)

    /// A fresh UUID id; timeouts 60000 ms; capabilities Text; no parameters.
    Model();
    /// A copy of other (an equal, independent value).
    Model(const Model& other);
    /// Takes other's value; other reads as empty.
    Model(Model&& other) noexcept;
    /// Releases the value.
    ~Model();
    /// Becomes a copy of other.
    Model& operator=(const Model& other);
    /// Takes other's value; other reads as empty.
    Model& operator=(Model&& other) noexcept;

    /// Sent as the request's "model".
    Model& setName(const QString& name);
    /// The base url; the API's path ("/chat/completions", "/responses", "/messages",
    /// "/models/<name>:streamGenerateContent") is
    /// appended at run time.
    Model& setUrl(const QUrl& url);
    /// The API key (sent as a Bearer token, or x-api-key for Anthropic 2023-06-01); never logged.
    Model& setToken(const QString& token);
    /// Total time of one request; 0 = unlimited.
    Model& setTimeoutMs(qint32 ms);
    /// Longest silence between received bytes; 0 = the default 60000.
    Model& setIdleTimeoutMs(qint32 ms);
    /// Replaces the capabilities.
    Model& setCapabilities(Capabilities capabilities);
    /// Adds one capability.
    Model& addCapability(Capability capability);
    /// A dotted key becomes a nested object in the request body; an undefined value
    /// removes the key.
    Model& setParameter(const QString& key, const QJsonValue& value);
    /// The parameter "temperature".
    Model& setTemperature(qreal temperature);
    /// The parameter "top_p".
    Model& setTopP(qreal topP);
    /// The parameter "max_tokens".
    Model& setMaxTokens(qint32 maxTokens);
    /// Extension: Model JSON "api" ("responses", "anthropicMessages", "gemini") only when not
    /// ChatCompletions; read case-insensitively, anything else is ChatCompletions.
    Model& setApi(Api api);
    /// Extension (SPEC §I.2.1): the API's version where it has versions, sent as given. For
    /// AnthropicMessages "2026-10-21" (the default, "" = the newest this library knows: the
    /// token as `Authorization: Bearer`, temperature/top_p/top_k never sent) or "2023-06-01"
    /// (x-api-key, every parameter sent; so is any version before 2026-10-21). The other APIs
    /// have no version of their own and ignore it. Model JSON "apiVersion" only when set.
    Model& setApiVersion(const QString& version);
    /// Extension (SPEC §I.2.2): asks the server to cache the stable prefix of each request —
    /// Anthropic's top-level cache_control, OpenAI's prompt_cache_key (the dialog's id).
    /// Default false; Model JSON "promptCaching" only when true.
    Model& setPromptCaching(bool on);
    /// Extension (SPEC §I.4.1): the model's context window in tokens (0 = unknown, the
    /// default; negative is 0). Before each request the library estimates its size — exactly
    /// for what the previous round's usage covered, by a fast estimate for the rest — and
    /// applies the dialog's ContextPolicy when it would not fit (the window less the answer's
    /// max_tokens). Model JSON "contextWindow" only when set.
    Model& setContextWindow(qint32 tokens);

    /// The id (the key in the Center's pool).
    QString getId() const;
    /// The name sent as "model".
    QString getName() const;
    /// The base url.
    QUrl getUrl() const;
    /// The API key.
    QString getToken() const;
    /// The total time of one request (0 = unlimited).
    qint32 getTimeoutMs() const;
    /// The longest silence between received bytes.
    qint32 getIdleTimeoutMs() const;
    /// The capabilities.
    Capabilities getCapabilities() const;
    /// Whether every bit of `capability` is set.
    bool hasCapability(Capability capability) const;
    /// The wire protocol.
    Api getApi() const;
    /// The API version as set ("" = the newest).
    QString getApiVersion() const;
    /// Whether prompt caching is asked for.
    bool getPromptCaching() const;
    /// The context window in tokens (0 = unknown).
    qint32 getContextWindow() const;
    /// The parameters as a JSON object.
    Visindigo::Utility::JsonConfig getParameters() const;
    /// Name, a url with a scheme and a token are all set.
    bool isValid() const;

    /// id, name, url, token, timeoutMs, idleTimeoutMs, capabilities, parameters (and "api"
    /// when not ChatCompletions, "apiVersion" when set, "promptCaching" when true).
    Visindigo::Utility::JsonConfig toJson() const;
    /// Returns whether a non-empty id was read (the id is kept otherwise). A JsonConfig
    /// whose root is not an object changes nothing and returns false.
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
