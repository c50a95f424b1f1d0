// SPDX-License-Identifier: MIT
#include "Workspace.h"

#include "../common/Clock.h"

#include <Agent/Center.h>
#include <Agent/Provider.h>
#include <Utility/JsonConfig.h>

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QSaveFile>
#include <QtCore/QStandardPaths>

using Visindigo::Agent::Center;
using Visindigo::Agent::Model;
using Visindigo::Agent::Provider;
using Visindigo::Utility::JsonConfig;

namespace {

// Fixed ids, so that a restored Center still knows which model is whose.
const QString kConfiguredModelId = QStringLiteral("chat-window-model");
const QString kDemoModelId = QStringLiteral("chat-window-demo");

Model modelWithId(const QString& id)
{
    Model model;
    JsonConfig json;
    json.setString(QStringLiteral("id"), id);
    model.fromJson(json);
    return model;
}

} // namespace

QString Workspace::storagePath()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/center.json");
}

bool Workspace::open(QString* error)
{
    Center* center = Center::getInstance();
    QFile file(storagePath());
    if (file.exists()) {
        if (!file.open(QIODevice::ReadOnly)) {
            *error = QStringLiteral("Cannot read %1: %2").arg(file.fileName(), file.errorString());
            return false;
        }
        const JsonConfig saved(QString::fromUtf8(file.readAll()));
        if (!center->fromJson(saved)) {
            *error = QStringLiteral("%1 holds no saved conversations (not a Center JSON object).").arg(file.fileName());
            return false;
        }
    }
    center->addFunction(new Clock);
    if (center->getModel(kConfiguredModelId).isValid()) {
        useModel(kConfiguredModelId);
        return true;
    }
    const QString url = offline.start();
    if (url.isEmpty()) {
        *error = QStringLiteral("No model is configured and the offline demo server did not start.");
        return false;
    }
    Model model = modelWithId(kDemoModelId);
    model.setName(QStringLiteral("offline-demo")).setUrl(QUrl(url)).setToken(QStringLiteral("demo"));
    model.addCapability(Model::Capability::ToolUse);
    center->addModel(model);
    useModel(kDemoModelId);
    demo = true;
    return true;
}

bool Workspace::save(QString* error) const
{
    QDir().mkpath(QFileInfo(storagePath()).path());
    QSaveFile file(storagePath());
    if (!file.open(QIODevice::WriteOnly)
        || file.write(Center::getInstance()->toJson().toString(QJsonDocument::Indented).toUtf8()) < 0 || !file.commit()) {
        *error = QStringLiteral("Cannot write %1: %2").arg(file.fileName(), file.errorString());
        return false;
    }
    return true;
}

QString Workspace::describe() const
{
    if (demo)
        return QStringLiteral("Offline demo: a scripted local server answers, not a model (Settings… to connect one)");
    const Model model = Center::getInstance()->getModel(kConfiguredModelId);
    return QStringLiteral("%1 at %2").arg(model.getName(), model.getUrl().toString());
}

Model Workspace::configuredModel() const
{
    Center* center = Center::getInstance();
    return center->getModelIds().contains(kConfiguredModelId) ? center->getModel(kConfiguredModelId)
                                                              : modelWithId(kConfiguredModelId);
}

void Workspace::configure(Model model)
{
    model.addCapability(Model::Capability::ToolUse);
    Center::getInstance()->addModel(model);
    useModel(model.getId());
    demo = false;
}

void Workspace::useModel(const QString& modelId)
{
    Center* center = Center::getInstance();
    center->removeProvider(center->getDefaultProvider());
    Provider provider(QStringLiteral("chat-window"));
    provider.addModel(modelId);
    center->addProvider(provider);
    center->setDefaultProvider(provider.getId());
}
