// SPDX-License-Identifier: MIT
#include <Agent/Model.h>

#include "Handles.h"
#include "Strings.h"

#include <visindigo_agent.h>

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>

#include <utility>

namespace Visindigo::Agent {

using Internal::ownedJson;
using Internal::takeJson;
using Internal::toQString;
using Internal::Utf8;
using Internal::valueJson;

namespace {

ViModel* newModel()
{
    ViModel* m = nullptr;
    if (vi_model_new(&m) != VI_STATUS_OK)
        return nullptr;
    return m;
}


} // namespace

Model::Model()
    : d(newModel())
{
}

Model::Model(ViModel* adopted) noexcept
    : d(adopted)
{
}

Model::Model(const Model& other)
    : d(Internal::cloneHandle(other.d))
{
}

Model::Model(Model&& other) noexcept
    : d(std::exchange(other.d, nullptr))
{
}

Model::~Model()
{
    vi_model_free(d);
}

Model& Model::operator=(const Model& other)
{
    Internal::assignHandle(d, other.d);
    return *this;
}

Model& Model::operator=(Model&& other) noexcept
{
    std::swap(d, other.d);
    return *this;
}

ViModel* Model::mut()
{
    if (!d)
        d = newModel();
    return d;
}

Model& Model::setName(const QString& name)
{
    const Utf8 u(name);
    vi_model_set_name(mut(), u.data(), u.size());
    return *this;
}

Model& Model::setUrl(const QUrl& url)
{
    const Utf8 u(url.toString());
    vi_model_set_url(mut(), u.data(), u.size());
    return *this;
}

Model& Model::setToken(const QString& token)
{
    const Utf8 u(token);
    vi_model_set_token(mut(), u.data(), u.size());
    return *this;
}

Model& Model::setTimeoutMs(qint32 ms)
{
    vi_model_set_timeout_ms(mut(), ms);
    return *this;
}

Model& Model::setIdleTimeoutMs(qint32 ms)
{
    vi_model_set_idle_timeout_ms(mut(), ms);
    return *this;
}

Model& Model::setCapabilities(Capabilities capabilities)
{
    vi_model_set_capabilities(mut(), uint32_t(capabilities.toInt()));
    return *this;
}

Model& Model::addCapability(Capability capability)
{
    vi_model_add_capability(mut(), uint32_t(capability));
    return *this;
}

Model& Model::setApi(Api api)
{
    vi_model_set_api(mut(), uint32_t(api));
    return *this;
}

Model::Api Model::getApi() const
{
    return Api(vi_model_api(d));
}

Model& Model::setApiVersion(const QString& version)
{
    const Utf8 u(version);
    vi_model_set_api_version(mut(), u.data(), u.size());
    return *this;
}

QString Model::getApiVersion() const
{
    return toQString(vi_model_api_version(d));
}

Model& Model::setPromptCaching(bool on)
{
    vi_model_set_prompt_caching(mut(), on);
    return *this;
}

bool Model::getPromptCaching() const
{
    return vi_model_prompt_caching(d);
}

Model& Model::setContextWindow(qint32 tokens)
{
    vi_model_set_context_window(mut(), tokens);
    return *this;
}

qint32 Model::getContextWindow() const
{
    return vi_model_context_window(d);
}

Model& Model::setParameter(const QString& key, const QJsonValue& value)
{
    const Utf8 k(key);
    if (value.isUndefined()) {
        vi_model_remove_parameter(mut(), k.data(), k.size());
        return *this;
    }
    const QByteArray v = valueJson(value);
    vi_model_set_parameter(mut(), k.data(), k.size(), v.constData(), size_t(v.size()));
    return *this;
}

Model& Model::setTemperature(qreal temperature)
{
    vi_model_set_temperature(mut(), double(temperature));
    return *this;
}

Model& Model::setTopP(qreal topP)
{
    vi_model_set_top_p(mut(), double(topP));
    return *this;
}

Model& Model::setMaxTokens(qint32 maxTokens)
{
    vi_model_set_max_tokens(mut(), maxTokens);
    return *this;
}

QString Model::getId() const { return toQString(vi_model_id(d)); }
QString Model::getName() const { return toQString(vi_model_name(d)); }
QUrl Model::getUrl() const { return QUrl(toQString(vi_model_url(d))); }
QString Model::getToken() const { return toQString(vi_model_token(d)); }
qint32 Model::getTimeoutMs() const { return vi_model_timeout_ms(d); }
qint32 Model::getIdleTimeoutMs() const { return vi_model_idle_timeout_ms(d); }

Model::Capabilities Model::getCapabilities() const
{
    return Capabilities::fromInt(int(vi_model_capabilities(d)));
}

bool Model::hasCapability(Capability capability) const
{
    return vi_model_has_capability(d, uint32_t(capability));
}

Visindigo::Utility::JsonConfig Model::getParameters() const
{
    return takeJson(ownedJson([this](ViString** out) { return vi_model_parameters(d, out); }));
}

bool Model::isValid() const
{
    return vi_model_is_valid(d);
}

Visindigo::Utility::JsonConfig Model::toJson() const
{
    return takeJson(ownedJson([this](ViString** out) { return vi_model_to_json(d, out); }));
}

bool Model::fromJson(const Visindigo::Utility::JsonConfig& json)
{
    QByteArray text;
    if (!Internal::objectJson(json, &text))
        return false;
    bool idRead = false;
    if (vi_model_from_json(mut(), text.constData(), size_t(text.size()), &idRead) != VI_STATUS_OK)
        return false;
    return idRead;
}

} // namespace Visindigo::Agent
