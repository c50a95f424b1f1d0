// SPDX-License-Identifier: MIT
//
/// \class Visindigo::Agent::MCP
/// The configuration of one MCP server (a value class owning one
/// Rust handle). A moved-from MCP reads as empty and becomes a default entry on the next
/// setter.
#ifndef VISINDIGO_AGENT_MCP_H
#define VISINDIGO_AGENT_MCP_H

#include "Export.h"
#include <Utility/JsonConfig.h>

#include <QtCore/QMap>
#include <QtCore/QMetaType>
#include <QtCore/QObject>
#include <QtCore/QString>
#include <QtCore/QStringList>
#include <QtCore/QUrl>

struct ViMcp;

namespace Visindigo::Agent {

namespace Internal { struct HandleAccess; }

class VISINDIGO_AGENT_EXPORT MCP
{
    Q_GADGET
public:
    /// How the server is reached.
    enum class Transport {
        Stdio,          ///< A child process speaking JSON-RPC on its standard input and output.
        Sse,            ///< The legacy HTTP+SSE transport.
        StreamableHttp, ///< Streamable HTTP.
    };
    Q_ENUM(Transport)

    /// Stdio, enabled, auto-starting, everything else empty.
    MCP();
    /// A default entry named `name`.
    MCP(const QString& name);
    /// An independent copy.
    MCP(const MCP& other);
    /// Takes other's state; other reads as empty.
    MCP(MCP&& other) noexcept;
    /// Releases the handle.
    ~MCP();
    /// Becomes an independent copy of other.
    MCP& operator=(const MCP& other);
    /// Takes other's state; other reads as empty.
    MCP& operator=(MCP&& other) noexcept;

    /// The key in the Center and the prefix of its tools' names (`<server>__<tool>`).
    MCP& setName(const QString& name);
    /// How the server is reached (default Stdio).
    MCP& setTransport(Transport transport);
    /// The server's url (Sse and StreamableHttp).
    MCP& setUrl(const QUrl& url);
    /// The program to start (Stdio).
    MCP& setCommand(const QString& command);
    /// The program's arguments (Stdio).
    MCP& setArguments(const QStringList& arguments);
    /// Variables added to the inherited environment (Stdio).
    MCP& setEnvironment(const QMap<QString, QString>& environment);
    /// HTTP headers sent with every request (Sse and StreamableHttp), e.g. Authorization.
    MCP& setHeaders(const QMap<QString, QString>& headers);
    /// Whether runs use this server (default true).
    MCP& setEnabled(bool enabled);
    /// Whether a run connects the server when it first needs it (default true).
    MCP& setAutoStart(bool autoStart);
    /// What the server gets when it asks for `roots/list`: directories or files it may work
    /// on, as URIs (`file:///…`); a local absolute path is turned into its `file://` URI. A
    /// connected server is told when they change. Default none (the list is empty).
    MCP& setRoots(const QStringList& uris);
    /// How long one tool call may go without an answer or a progress notification, in
    /// milliseconds (default 60000; values below 1 are ignored). Each progress the server
    /// reports starts the wait again.
    MCP& setCallTimeout(int milliseconds);
    /// The provider whose models answer the server's `sampling/createMessage` requests (one
    /// completion, no tools); empty (the default) declines them (SPEC §H.4.5).
    MCP& setSamplingProviderId(const QString& providerId);
    /// The OAuth client id registered for this application with the server's authorization
    /// server; empty (the default): the library registers a client dynamically when the server
    /// asks for authorization (SPEC §H.4.6). An https url with a path is the url of the
    /// application's Client ID Metadata Document, used as the id where the authorization server
    /// reads such documents (SPEC §I.3.6). Saved in the JSON ("oauthClientId").
    MCP& setOAuthClientId(const QString& clientId);
    /// The tokens of an earlier authorization, as Center::mcpTokensChanged() gave them: the
    /// server is used without asking the user again, and an expired access token is refreshed
    /// first. Within a session the library keeps the newest per server until the entry is
    /// removed; tokens given here replace them when they differ from the ones given last. Never
    /// part of toJson() — tokens are secrets the application keeps where it keeps passwords.
    MCP& setOAuthTokens(const Visindigo::Utility::JsonConfig& tokens);

    /// The name.
    QString getName() const;
    /// The transport.
    Transport getTransport() const;
    /// The url (Sse and StreamableHttp).
    QUrl getUrl() const;
    /// The program (Stdio).
    QString getCommand() const;
    /// The program's arguments.
    QStringList getArguments() const;
    /// The added environment variables.
    QMap<QString, QString> getEnvironment() const;
    /// The HTTP headers.
    QMap<QString, QString> getHeaders() const;
    /// Whether runs use this server.
    bool isEnabled() const;
    /// Whether a run connects it when first needed.
    bool isAutoStart() const;
    /// The roots, as set.
    QStringList getRoots() const;
    /// The call timeout in milliseconds.
    int getCallTimeout() const;
    /// The sampling provider's id (empty: sampling is declined).
    QString getSamplingProviderId() const;
    /// The configured OAuth client id (empty: dynamic registration).
    QString getOAuthClientId() const;
    /// The tokens given with setOAuthTokens() (an empty object when none).
    Visindigo::Utility::JsonConfig getOAuthTokens() const;
    /// A name, and a command (Stdio) or a url with a scheme (otherwise).
    bool isValid() const;

    /// The entry as JSON: name, transport ("stdio"|"sse"|"streamableHttp"), url, command, arguments,
    /// environment, headers, enabled, autoStart; "roots", "samplingProviderId" and "oauthClientId"
    /// only when set, "callTimeout" (ms) only when not 60000; never the OAuth tokens.
    Visindigo::Utility::JsonConfig toJson() const;
    /// Reads what toJson() wrote; returns isValid() afterwards. A JsonConfig whose root is not an object changes
    /// nothing and returns false.
    bool fromJson(const Visindigo::Utility::JsonConfig& json);

private:
    friend struct Internal::HandleAccess;
    explicit MCP(ViMcp* adopted) noexcept;
    ViMcp* mut();

    ViMcp* d;
};

} // namespace Visindigo::Agent

Q_DECLARE_METATYPE(Visindigo::Agent::MCP)

#endif // VISINDIGO_AGENT_MCP_H
