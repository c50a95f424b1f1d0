// SPDX-License-Identifier: MIT
//
// Visindigo::Agent::MCP — the configuration of one MCP server (a value class owning one
// Rust handle). A moved-from MCP reads as empty and becomes a default entry on the next
// setter.
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
    enum class Transport { Stdio, Sse, StreamableHttp };
    Q_ENUM(Transport)

    // Stdio, enabled, auto-starting, everything else empty.
    MCP();
    MCP(const QString& name);
    MCP(const MCP& other);
    MCP(MCP&& other) noexcept;
    ~MCP();
    MCP& operator=(const MCP& other);
    MCP& operator=(MCP&& other) noexcept;

    MCP& setName(const QString& name);
    MCP& setTransport(Transport transport);
    // Sse and StreamableHttp.
    MCP& setUrl(const QUrl& url);
    // Stdio.
    MCP& setCommand(const QString& command);
    MCP& setArguments(const QStringList& arguments);
    // Added to the inherited environment.
    MCP& setEnvironment(const QMap<QString, QString>& environment);
    MCP& setHeaders(const QMap<QString, QString>& headers);
    MCP& setEnabled(bool enabled);
    MCP& setAutoStart(bool autoStart);

    QString getName() const;
    Transport getTransport() const;
    QUrl getUrl() const;
    QString getCommand() const;
    QStringList getArguments() const;
    QMap<QString, QString> getEnvironment() const;
    QMap<QString, QString> getHeaders() const;
    bool isEnabled() const;
    bool isAutoStart() const;
    // A name, and a command (Stdio) or a url with a scheme (otherwise).
    bool isValid() const;

    // name, transport ("stdio"|"sse"|"streamableHttp"), url, command, arguments,
    // environment, headers, enabled, autoStart.
    Visindigo::Utility::JsonConfig toJson() const;
    // Returns isValid() afterwards. A JsonConfig whose root is not an object changes
    // nothing and returns false.
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
