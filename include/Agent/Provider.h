// SPDX-License-Identifier: MIT
//
/// \class Visindigo::Agent::Provider
/// A set of model ids with priorities, and the choice of the
/// model to use (a value class owning one Rust handle; copies keep the id). No credentials
/// are held: the models themselves live in the Center's pool. A moved-from Provider reads
/// as empty and becomes a fresh provider (new id) on the next setter.
#ifndef VISINDIGO_AGENT_PROVIDER_H
#define VISINDIGO_AGENT_PROVIDER_H

#include "Export.h"
#include "Model.h"
#include <Utility/JsonConfig.h>

#include <QtCore/QMetaType>
#include <QtCore/QString>
#include <QtCore/QStringList>

struct ViProvider;

namespace Visindigo::Agent {

namespace Internal { struct HandleAccess; }

class VISINDIGO_AGENT_EXPORT Provider
{
public:
    /// An empty provider with a fresh UUID.
    Provider();
    /// The name is for display only; the id is the key.
    Provider(const QString& name);
    /// A copy of other (an equal, independent value).
    Provider(const Provider& other);
    /// Takes other's value; other reads as empty.
    Provider(Provider&& other) noexcept;
    /// Releases the value.
    ~Provider();
    /// Becomes a copy of other.
    Provider& operator=(const Provider& other);
    /// Takes other's value; other reads as empty.
    Provider& operator=(Provider&& other) noexcept;

    /// Higher priority is picked first; re-adding overwrites the priority; "" is ignored.
    /// The id is not checked against the Center.
    Provider& addModel(const QString& modelId, qint32 priority = 0);
    /// Removes every model id.
    Provider& clearModels();
    /// A missing id is ignored.
    Provider& removeModel(const QString& modelId);
    /// The display name.
    Provider& setName(const QString& name);
    /// Extensions (SPEC §H.1.4). When every model failed a round with a retryable failure
    /// (not a timeout), the run starts over from pickFirst() up to `retries` more times
    /// (default 2; 0 = never), waiting for the server's Retry-After, else 1 s, 2 s, 4 s … ±20 %.
    Provider& setRetries(qint32 retries);
    /// How many times a run starts over when every model failed.
    qint32 getRetries() const;
    /// A server asking for a longer wait than this ends the run instead (default 60000).
    Provider& setMaxRetryDelayMs(qint32 ms);
    /// The longest wait a retry may take.
    qint32 getMaxRetryDelayMs() const;

    /// The id (the key in the Center).
    QString getId() const;
    /// In id order.
    QStringList getModelIds() const;
    /// 0 when the id is not in this provider.
    qint32 getModelPriority(const QString& modelId) const;
    /// The display name.
    QString getName() const;
    /// At least one model id (ids are not resolved).
    bool isValid() const;

    /// The first model of the global Center's pool that is valid and has every bit of
    /// required, by priority (descending) then id (ascending); "" when none.
    QString pickFirst(Model::Capabilities required) const;
    /// The first qualifying model after afterModelId in that order; no wrap-around;
    /// an afterModelId not in this provider is pickFirst().
    QString pickNext(const QString& afterModelId, Model::Capabilities required) const;

    /// The provider as JSON: {"id","name","models":[{"id","priority"}]} (models in id order), plus "retries" and
    /// "maxRetryDelayMs" when they are not the defaults.
    Visindigo::Utility::JsonConfig toJson() const;
    /// Reads what toJson() wrote; returns whether a non-empty id was read (the current id is kept otherwise). A
    /// JsonConfig whose root is not an object changes nothing and returns false.
    bool fromJson(const Visindigo::Utility::JsonConfig& json);

private:
    friend struct Internal::HandleAccess;
    explicit Provider(ViProvider* adopted) noexcept;
    ViProvider* mut();

    ViProvider* d;
};

} // namespace Visindigo::Agent

Q_DECLARE_METATYPE(Visindigo::Agent::Provider)

#endif // VISINDIGO_AGENT_PROVIDER_H
