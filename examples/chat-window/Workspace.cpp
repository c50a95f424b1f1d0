// SPDX-License-Identifier: MIT
#include "Workspace.h"

#include "Keychain.h"

#include "../common/Clock.h"

#include <Agent/Center.h>
#include <Agent/Provider.h>
#include <Utility/JsonConfig.h>

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
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

QJsonObject object(const JsonConfig& json)
{
    return QJsonDocument::fromJson(json.toString(QJsonDocument::Compact).toUtf8()).object();
}

bool hasHeader(const QJsonObject& headers, const QString& name)
{
    for (auto it = headers.begin(); it != headers.end(); ++it) {
        if (it.key().compare(name, Qt::CaseInsensitive) == 0)
            return true;
    }
    return false;
}

// The values of each MCP entry's `key` object ("headers" or "environment") in `full` that
// the same entry in `omitted` lacks, by entry name: {name: {header or variable: value}}.
QJsonObject leftOut(const QJsonObject& full, const QJsonObject& omitted, QLatin1String key)
{
    QHash<QString, QJsonObject> kept;
    for (const QJsonValue& m : omitted.value(QLatin1String("mcps")).toArray())
        kept.insert(m[QLatin1String("name")].toString(), m[key].toObject());
    QJsonObject byName;
    for (const QJsonValue& m : full.value(QLatin1String("mcps")).toArray()) {
        const QString name = m[QLatin1String("name")].toString();
        const QJsonObject values = m[key].toObject();
        QJsonObject credentials;
        for (auto it = values.begin(); it != values.end(); ++it) {
            if (!kept.value(name).contains(it.key()))
                credentials.insert(it.key(), it.value());
        }
        if (!credentials.isEmpty())
            byName.insert(name, credentials);
    }
    return byName;
}

// The secrets of a Center document `full` that `omitted` (the same Center written with
// Secrets::Omit) leaves out — the library decides which headers and environment variables
// are credentials, not this example: {"models": {id: token}, "mcps": {name: {header: value}},
// "mcpEnvironment": {name: {variable: value}}} ("mcpEnvironment" beside, not inside, "mcps" so
// that an entry an older window wrote reads the same).
QJsonObject secretsOf(const QJsonObject& full, const QJsonObject& omitted)
{
    QJsonObject models;
    for (const QJsonValue& m : full.value(QLatin1String("models")).toArray()) {
        const QString token = m[QLatin1String("token")].toString();
        if (!token.isEmpty())
            models.insert(m[QLatin1String("id")].toString(), token);
    }
    return QJsonObject{{QLatin1String("models"), models},
                       {QLatin1String("mcps"), leftOut(full, omitted, QLatin1String("headers"))},
                       {QLatin1String("mcpEnvironment"), leftOut(full, omitted, QLatin1String("environment"))}};
}

// `doc` (a Center document) with the `secrets` it lacks: a model's token where it has none, an
// MCP entry's header (any case) or environment variable where it has none of that name. What
// `doc` has wins.
QJsonObject withSecrets(QJsonObject doc, const QJsonObject& secrets)
{
    const QJsonObject tokens = secrets.value(QLatin1String("models")).toObject();
    QJsonArray models = doc.value(QLatin1String("models")).toArray();
    for (qsizetype i = 0; i < models.size(); ++i) {
        QJsonObject m = models.at(i).toObject();
        const QString id = m.value(QLatin1String("id")).toString();
        if (m.value(QLatin1String("token")).toString().isEmpty() && tokens.contains(id)) {
            m.insert(QLatin1String("token"), tokens.value(id));
            models.replace(i, m);
        }
    }
    doc.insert(QLatin1String("models"), models);
    const QJsonObject headersByName = secrets.value(QLatin1String("mcps")).toObject();
    const QJsonObject environmentByName = secrets.value(QLatin1String("mcpEnvironment")).toObject();
    QJsonArray mcps = doc.value(QLatin1String("mcps")).toArray();
    for (qsizetype i = 0; i < mcps.size(); ++i) {
        QJsonObject m = mcps.at(i).toObject();
        const QString name = m.value(QLatin1String("name")).toString();
        QJsonObject headers = m.value(QLatin1String("headers")).toObject();
        const QJsonObject credentials = headersByName.value(name).toObject();
        for (auto it = credentials.begin(); it != credentials.end(); ++it) {
            if (!hasHeader(headers, it.key()))
                headers.insert(it.key(), it.value());
        }
        m.insert(QLatin1String("headers"), headers);
        QJsonObject environment = m.value(QLatin1String("environment")).toObject();
        const QJsonObject variables = environmentByName.value(name).toObject();
        for (auto it = variables.begin(); it != variables.end(); ++it) {
            if (!environment.contains(it.key()))
                environment.insert(it.key(), it.value());
        }
        if (!environment.isEmpty())
            m.insert(QLatin1String("environment"), environment);
        mcps.replace(i, m);
    }
    doc.insert(QLatin1String("mcps"), mcps);
    return doc;
}

// Whether Center document `doc` holds a model token.
bool hasTokens(const QJsonObject& doc)
{
    for (const QJsonValue& m : doc.value(QLatin1String("models")).toArray()) {
        if (!m[QLatin1String("token")].toString().isEmpty())
            return true;
    }
    return false;
}

QJsonObject parseSecrets(const QByteArray& data)
{
    return QJsonDocument::fromJson(data).object();
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
    if (!Keychain::built()) {
        store = TokenStore::File;
        note = QStringLiteral("Tokens are saved in %1, readable only by you: this build has no QtKeychain.").arg(file.fileName());
        warning = QStringLiteral("No system keychain (built without QtKeychain): tokens are saved in %1 (readable only by you)").arg(file.fileName());
    } else {
        note = QStringLiteral("Tokens are kept in the system keychain.");
    }
    if (file.exists()) {
        if (!file.open(QIODevice::ReadOnly)) {
            *error = QStringLiteral("Cannot read %1: %2").arg(file.fileName(), file.errorString());
            return false;
        }
        QJsonObject saved = QJsonDocument::fromJson(file.readAll()).object();
        const bool omitted = saved.value(QLatin1String("secretsOmitted")).toBool();
        const bool tokensInFile = !omitted && hasTokens(saved);
        // A file that holds tokens (written when the keychain failed, or by a version of this
        // window before it had one) is made the owner's alone now, not at the next save.
        if (tokensInFile)
            file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        if (Keychain::built()) {
            const Keychain::Result secrets = Keychain::read(storagePath());
            if (secrets.status == Keychain::Result::Ok) {
                saved = withSecrets(saved, parseSecrets(secrets.data));
            } else if (secrets.status == Keychain::Result::Failed) {
                unreadSecrets = true;
                store = TokenStore::File;
                note = QStringLiteral("The system keychain could not be read (%1): tokens kept there are not loaded; new ones are saved in %2, readable only by you.")
                           .arg(secrets.error, file.fileName());
                warning = QStringLiteral("System keychain unavailable (%1): tokens are saved in %2 (readable only by you)").arg(secrets.error, file.fileName());
            } else if (omitted) {
                // QtKeychain reads a locked keychain (gnome-keyring, no one to unlock it) as a
                // missing entry too: save() looks again before it writes the entry.
                unreadSecrets = true;
                warning = QStringLiteral("The saved tokens are not in the system keychain (locked, or removed): unlock it, or enter them again in Settings…");
            }
            if (tokensInFile) {
                // The tokens stay in the file until a save can move them to the keychain.
                store = TokenStore::File;
                note = QStringLiteral("Tokens are saved in %1, readable only by you, not in the system keychain; the next save moves them there if it can.")
                           .arg(file.fileName());
                if (warning.isEmpty())
                    warning = QStringLiteral("Tokens are saved in %1 (readable only by you), not in the system keychain").arg(file.fileName());
            }
        }
        if (!center->fromJson(JsonConfig(QJsonDocument(saved)))) {
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

bool Workspace::save(QString* error)
{
    const Center* center = Center::getInstance();
    JsonConfig document = center->toJson();
    if (Keychain::built()) {
        const JsonConfig omitted = center->toJson(Center::Secrets::Omit);
        QJsonObject full = object(document);
        QString why;
        if (unreadSecrets) {
            // What open() could not read is kept where the user has no token in memory now.
            const Keychain::Result older = Keychain::read(storagePath());
            if (older.status == Keychain::Result::Ok)
                full = withSecrets(full, parseSecrets(older.data));
            if (older.status == Keychain::Result::Failed)
                why = older.error;
            else
                unreadSecrets = false;
        }
        if (!unreadSecrets) {
            const QByteArray secrets = QJsonDocument(secretsOf(full, object(omitted))).toJson(QJsonDocument::Compact);
            const Keychain::Result written = Keychain::write(storagePath(), secrets);
            if (written.status == Keychain::Result::Ok) {
                document = omitted;
                store = TokenStore::Keychain;
                note = QStringLiteral("Tokens are kept in the system keychain.");
                warning.clear();
            } else {
                why = written.error;
            }
        }
        if (!why.isEmpty()) {
            // Never lose a token: it goes to the file, and the user is told.
            store = TokenStore::File;
            note = QStringLiteral("The system keychain failed (%1): tokens are saved in %2, readable only by you.").arg(why, storagePath());
            warning = QStringLiteral("System keychain unavailable (%1): tokens are saved in %2 (readable only by you)").arg(why, storagePath());
        }
    }
    QDir().mkpath(QFileInfo(storagePath()).path());
    QSaveFile file(storagePath());
    // 0600 whether or not the tokens are in it: the conversations are the user's own too.
    if (!file.open(QIODevice::WriteOnly) || !file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner)
        || file.write(document.toString(QJsonDocument::Indented).toUtf8()) < 0 || !file.commit()) {
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
