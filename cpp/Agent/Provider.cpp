// SPDX-License-Identifier: MIT
#include <Agent/Provider.h>

#include "Handles.h"
#include "Strings.h"

#include <visindigo_agent.h>

#include <utility>

namespace Visindigo::Agent {

using Internal::ownedJson;
using Internal::takeJson;
using Internal::takeQString;
using Internal::takeStringList;
using Internal::toQString;
using Internal::Utf8;

namespace {

ViProvider* newProvider(const QString& name)
{
    const Utf8 u(name);
    ViProvider* p = nullptr;
    if (vi_provider_new(u.data(), u.size(), &p) != VI_STATUS_OK)
        return nullptr;
    return p;
}


} // namespace

Provider::Provider()
    : d(newProvider(QString()))
{
}

Provider::Provider(const QString& name)
    : d(newProvider(name))
{
}

Provider::Provider(ViProvider* adopted) noexcept
    : d(adopted)
{
}

Provider::Provider(const Provider& other)
    : d(Internal::cloneHandle(other.d))
{
}

Provider::Provider(Provider&& other) noexcept
    : d(std::exchange(other.d, nullptr))
{
}

Provider::~Provider()
{
    vi_provider_free(d);
}

Provider& Provider::operator=(const Provider& other)
{
    Internal::assignHandle(d, other.d);
    return *this;
}

Provider& Provider::operator=(Provider&& other) noexcept
{
    std::swap(d, other.d);
    return *this;
}

ViProvider* Provider::mut()
{
    if (!d)
        d = newProvider(QString());
    return d;
}

Provider& Provider::addModel(const QString& modelId, qint32 priority)
{
    const Utf8 u(modelId);
    vi_provider_add_model(mut(), u.data(), u.size(), priority);
    return *this;
}

Provider& Provider::clearModels()
{
    vi_provider_clear_models(mut());
    return *this;
}

Provider& Provider::removeModel(const QString& modelId)
{
    const Utf8 u(modelId);
    vi_provider_remove_model(mut(), u.data(), u.size());
    return *this;
}

Provider& Provider::setName(const QString& name)
{
    const Utf8 u(name);
    vi_provider_set_name(mut(), u.data(), u.size());
    return *this;
}

QString Provider::getId() const { return toQString(vi_provider_id(d)); }
QString Provider::getName() const { return toQString(vi_provider_name(d)); }

Provider& Provider::setRetries(qint32 retries)
{
    vi_provider_set_retries(mut(), retries);
    return *this;
}

qint32 Provider::getRetries() const { return vi_provider_retries(d); }

Provider& Provider::setMaxRetryDelayMs(qint32 ms)
{
    vi_provider_set_max_retry_delay_ms(mut(), ms);
    return *this;
}

qint32 Provider::getMaxRetryDelayMs() const { return vi_provider_max_retry_delay_ms(d); }

QStringList Provider::getModelIds() const
{
    return takeStringList(ownedJson([this](ViString** out) { return vi_provider_model_ids(d, out); }));
}

qint32 Provider::getModelPriority(const QString& modelId) const
{
    const Utf8 u(modelId);
    return vi_provider_model_priority(d, u.data(), u.size());
}

bool Provider::isValid() const
{
    return vi_provider_is_valid(d);
}

QString Provider::pickFirst(Model::Capabilities required) const
{
    const uint32_t bits = uint32_t(required.toInt());
    return takeQString(ownedJson([this, bits](ViString** out) {
        return vi_provider_pick_first(d, nullptr, bits, out);
    }));
}

QString Provider::pickNext(const QString& afterModelId, Model::Capabilities required) const
{
    const uint32_t bits = uint32_t(required.toInt());
    const Utf8 u(afterModelId);
    return takeQString(ownedJson([this, bits, &u](ViString** out) {
        return vi_provider_pick_next(d, nullptr, u.data(), u.size(), bits, out);
    }));
}

Visindigo::Utility::JsonConfig Provider::toJson() const
{
    return takeJson(ownedJson([this](ViString** out) { return vi_provider_to_json(d, out); }));
}

bool Provider::fromJson(const Visindigo::Utility::JsonConfig& json)
{
    QByteArray text;
    if (!Internal::objectJson(json, &text))
        return false;
    bool idRead = false;
    if (vi_provider_from_json(mut(), text.constData(), size_t(text.size()), &idRead) != VI_STATUS_OK)
        return false;
    return idRead;
}

} // namespace Visindigo::Agent
