// SPDX-License-Identifier: MIT
#include <Agent/MCP.h>

#include "Handles.h"
#include "Strings.h"

#include <visindigo_agent.h>

#include <algorithm>
#include <limits>
#include <utility>

namespace Visindigo::Agent {

using Internal::ownedJson;
using Internal::takeJson;
using Internal::takeStringList;
using Internal::takeStringMap;
using Internal::toQString;
using Internal::Utf8;

namespace {

ViMcp* newMcp(const QString& name)
{
    const Utf8 u(name);
    ViMcp* m = nullptr;
    if (vi_mcp_new(u.data(), u.size(), &m) != VI_STATUS_OK)
        return nullptr;
    return m;
}


} // namespace

MCP::MCP()
    : d(newMcp(QString()))
{
}

MCP::MCP(const QString& name)
    : d(newMcp(name))
{
}

MCP::MCP(ViMcp* adopted) noexcept
    : d(adopted)
{
}

MCP::MCP(const MCP& other)
    : d(Internal::cloneHandle(other.d))
{
}

MCP::MCP(MCP&& other) noexcept
    : d(std::exchange(other.d, nullptr))
{
}

MCP::~MCP()
{
    vi_mcp_free(d);
}

MCP& MCP::operator=(const MCP& other)
{
    Internal::assignHandle(d, other.d);
    return *this;
}

MCP& MCP::operator=(MCP&& other) noexcept
{
    std::swap(d, other.d);
    return *this;
}

ViMcp* MCP::mut()
{
    if (!d)
        d = newMcp(QString());
    return d;
}

MCP& MCP::setName(const QString& name)
{
    const Utf8 u(name);
    vi_mcp_set_name(mut(), u.data(), u.size());
    return *this;
}

MCP& MCP::setTransport(Transport transport)
{
    vi_mcp_set_transport(mut(), uint32_t(transport));
    return *this;
}

MCP& MCP::setUrl(const QUrl& url)
{
    const Utf8 u(url.toString());
    vi_mcp_set_url(mut(), u.data(), u.size());
    return *this;
}

MCP& MCP::setCommand(const QString& command)
{
    const Utf8 u(command);
    vi_mcp_set_command(mut(), u.data(), u.size());
    return *this;
}

MCP& MCP::setArguments(const QStringList& arguments)
{
    const QByteArray json = Internal::stringListJson(arguments);
    vi_mcp_set_arguments(mut(), json.constData(), size_t(json.size()));
    return *this;
}

MCP& MCP::setEnvironment(const QMap<QString, QString>& environment)
{
    const QByteArray json = Internal::stringMapJson(environment);
    vi_mcp_set_environment(mut(), json.constData(), size_t(json.size()));
    return *this;
}

MCP& MCP::setHeaders(const QMap<QString, QString>& headers)
{
    const QByteArray json = Internal::stringMapJson(headers);
    vi_mcp_set_headers(mut(), json.constData(), size_t(json.size()));
    return *this;
}

MCP& MCP::setEnabled(bool enabled)
{
    vi_mcp_set_enabled(mut(), enabled);
    return *this;
}

MCP& MCP::setAutoStart(bool autoStart)
{
    vi_mcp_set_auto_start(mut(), autoStart);
    return *this;
}

MCP& MCP::setRoots(const QStringList& uris)
{
    const QByteArray json = Internal::stringListJson(uris);
    vi_mcp_set_roots(mut(), json.constData(), size_t(json.size()));
    return *this;
}

MCP& MCP::setCallTimeout(int milliseconds)
{
    if (milliseconds > 0)
        vi_mcp_set_call_timeout(mut(), uint32_t(milliseconds));
    return *this;
}

MCP& MCP::setSamplingProviderId(const QString& providerId)
{
    const Utf8 u(providerId);
    vi_mcp_set_sampling_provider_id(mut(), u.data(), u.size());
    return *this;
}

MCP& MCP::setOAuthClientId(const QString& clientId)
{
    const Utf8 u(clientId);
    vi_mcp_set_oauth_client_id(mut(), u.data(), u.size());
    return *this;
}

MCP& MCP::setOAuthTokens(const Visindigo::Utility::JsonConfig& tokens)
{
    QByteArray text;
    if (!Internal::objectJson(tokens, &text))
        text = "{}";
    vi_mcp_set_oauth_tokens(mut(), text.constData(), size_t(text.size()));
    return *this;
}

QString MCP::getName() const { return toQString(vi_mcp_name(d)); }
QString MCP::getOAuthClientId() const { return toQString(vi_mcp_oauth_client_id(d)); }

Visindigo::Utility::JsonConfig MCP::getOAuthTokens() const
{
    return takeJson(ownedJson([this](ViString** out) { return vi_mcp_oauth_tokens(d, out); }));
}
QString MCP::getSamplingProviderId() const { return toQString(vi_mcp_sampling_provider_id(d)); }

MCP::Transport MCP::getTransport() const
{
    const uint32_t t = vi_mcp_transport(d);
    return t <= VI_TRANSPORT_STREAMABLE_HTTP ? Transport(t) : Transport::Stdio;
}

QUrl MCP::getUrl() const { return QUrl(toQString(vi_mcp_url(d))); }
QString MCP::getCommand() const { return toQString(vi_mcp_command(d)); }

QStringList MCP::getArguments() const
{
    return takeStringList(ownedJson([this](ViString** out) { return vi_mcp_arguments(d, out); }));
}

QMap<QString, QString> MCP::getEnvironment() const
{
    return takeStringMap(ownedJson([this](ViString** out) { return vi_mcp_environment(d, out); }));
}

QMap<QString, QString> MCP::getHeaders() const
{
    return takeStringMap(ownedJson([this](ViString** out) { return vi_mcp_headers(d, out); }));
}

bool MCP::isEnabled() const { return vi_mcp_is_enabled(d); }
bool MCP::isAutoStart() const { return vi_mcp_is_auto_start(d); }
bool MCP::isValid() const { return vi_mcp_is_valid(d); }

QStringList MCP::getRoots() const
{
    return takeStringList(ownedJson([this](ViString** out) { return vi_mcp_roots(d, out); }));
}

int MCP::getCallTimeout() const
{
    return int(std::min<uint32_t>(vi_mcp_call_timeout(d), uint32_t(std::numeric_limits<int>::max())));
}

Visindigo::Utility::JsonConfig MCP::toJson() const
{
    return takeJson(ownedJson([this](ViString** out) { return vi_mcp_to_json(d, out); }));
}

bool MCP::fromJson(const Visindigo::Utility::JsonConfig& json)
{
    QByteArray text;
    if (!Internal::objectJson(json, &text))
        return false;
    bool valid = false;
    if (vi_mcp_from_json(mut(), text.constData(), size_t(text.size()), &valid) != VI_STATUS_OK)
        return false;
    return valid;
}

} // namespace Visindigo::Agent
