// SPDX-License-Identifier: MIT
//
// Center: the global ViCenter plus the Dialog wrappers of the dialogs registered in it.
#include <Agent/Center.h>

#include "Dialog_p.h"
#include "Function_p.h"
#include "Handles.h"
#include "Log_p.h"
#include "Strings.h"

#include <Agent/Function.h>

#include <QtCore/QHash>
#include <QtCore/QMutex>
#include <QtCore/QMutexLocker>
#include <QtCore/QPointer>
#include <QtCore/QThread>

namespace Visindigo::Agent {

using Visindigo::Utility::JsonConfig;
using namespace Internal;

class CenterPrivate
{
public:
    const ViCenter* center = vi_center_global();

    // The wrappers of the dialogs registered in the core, by id. QPointer: a wrapper
    // deleted behind the Center's back reads as gone instead of dangling.
    mutable QMutex mutex;
    QHash<QString, QPointer<Dialog>> dialogs;

    // Deletes a wrapper that is no longer registered. Outside the mutex (its destroyed()
    // signal may call back into the Center). A wrapper living on another thread is deleted
    // there (deleteLater), so that none of its signals is being emitted meanwhile.
    static void destroy(const QList<QPointer<Dialog>>& wrappers)
    {
        for (const QPointer<Dialog>& wrapper : wrappers) {
            Dialog* dialog = wrapper.data();
            if (!dialog)
                continue;
            if (dialog->thread() == QThread::currentThread() || !dialog->thread()->isRunning())
                delete dialog;
            else
                dialog->deleteLater();
        }
    }

    // Wraps a reference the core gave out for a registered dialog and records it under
    // its id, replacing (and returning in `replaced`) another wrapper of that id.
    Dialog* adopt(ViDialog* handle, QList<QPointer<Dialog>>* replaced)
    {
        if (!handle)
            return nullptr;
        auto* dialog = new Dialog(handle);
        const QString id = dialog->getId();
        QMutexLocker lock(&mutex);
        QPointer<Dialog> old = dialogs.value(id);
        if (old && old != dialog)
            replaced->append(old);
        dialogs.insert(id, dialog);
        return dialog;
    }
};

Center* Center::getInstance()
{
    static Center instance;
    return &instance;
}

// The core's dialog list events, re-emitted as the Center's signals on its own thread (queued
// also from it: the wrapper of a new dialog is adopted only after the core call returns).
static void onCenterEvents(void* userData, const ViCenterEvent* events, size_t count)
{
    auto* center = static_cast<Center*>(userData);
    for (size_t i = 0; i < count; ++i) {
        const QString id = toQString(events[i].dialog_id);
        switch (events[i].kind) {
        case VI_CENTER_EVENT_KIND_DIALOG_ADDED:
            QMetaObject::invokeMethod(center, [center, id] { Q_EMIT center->dialogAdded(id); }, Qt::QueuedConnection);
            break;
        case VI_CENTER_EVENT_KIND_DIALOG_REMOVED:
            QMetaObject::invokeMethod(center, [center, id] { Q_EMIT center->dialogRemoved(id); }, Qt::QueuedConnection);
            break;
        case VI_CENTER_EVENT_KIND_DIALOGS_RESET:
            QMetaObject::invokeMethod(center, [center] { Q_EMIT center->dialogsReset(); }, Qt::QueuedConnection);
            break;
        case VI_CENTER_EVENT_KIND_MCP_NOTIFICATION: {
            const QString server = toQString(events[i].server_name);
            const QString method = toQString(events[i].method);
            const QByteArray text(events[i].params_json.data, qsizetype(events[i].params_json.len));
            const JsonConfig params = text == "null" ? JsonConfig() : jsonFromUtf8(text);
            QMetaObject::invokeMethod(
                center, [center, server, method, params] { Q_EMIT center->mcpNotification(server, method, params); },
                Qt::QueuedConnection);
            break;
        }
        case VI_CENTER_EVENT_KIND_MCP_AUTHORIZATION_REQUIRED: {
            const QString server = toQString(events[i].server_name);
            const QUrl url(toQString(events[i].url), QUrl::StrictMode);
            QMetaObject::invokeMethod(
                center, [center, server, url] { Q_EMIT center->mcpAuthorizationRequired(server, url); }, Qt::QueuedConnection);
            break;
        }
        case VI_CENTER_EVENT_KIND_MCP_TOKENS_CHANGED: {
            const QString server = toQString(events[i].server_name);
            const JsonConfig tokens = jsonFromUtf8(QByteArray(events[i].tokens_json.data, qsizetype(events[i].tokens_json.len)));
            QMetaObject::invokeMethod(
                center, [center, server, tokens] { Q_EMIT center->mcpTokensChanged(server, tokens); }, Qt::QueuedConnection);
            break;
        }
        }
    }
}

Center::Center()
    : QObject(nullptr)
    , d(std::make_unique<CenterPrivate>())
{
    vi_center_set_event_callback(d->center, onCenterEvents, this, nullptr);
    Internal::useQtLogging();
}

Center::~Center()
{
    vi_center_set_event_callback(d->center, nullptr, nullptr, nullptr);
    QList<QPointer<Dialog>> wrappers;
    {
        QMutexLocker lock(&d->mutex);
        wrappers = d->dialogs.values();
        d->dialogs.clear();
    }
    for (const QPointer<Dialog>& wrapper : wrappers)
        delete wrapper.data(); // process exit: no event loop to defer to
}

// ---- models --------------------------------------------------------------------------------------

Center& Center::addModel(const Model& model)
{
    vi_center_add_model(d->center, Internal::handle(model));
    return *this;
}

Center& Center::removeModel(const QString& id)
{
    const Utf8 i(id);
    vi_center_remove_model(d->center, i.data(), i.size());
    return *this;
}

Model Center::getModel(const QString& id) const
{
    const Utf8 i(id);
    ViModel* model = nullptr;
    if (vi_center_get_model(d->center, i.data(), i.size(), &model) != VI_STATUS_OK)
        return Model();
    return adoptModel(model);
}

QList<Model> Center::getModels() const
{
    return modelsFromJson(ownedJson([&](ViString** o) { return vi_center_models(d->center, o); }));
}

QStringList Center::getModelIds() const
{
    return takeStringList(ownedJson([&](ViString** o) { return vi_center_model_ids(d->center, o); }));
}

// ---- providers -------------------------------------------------------------------------------------

Center& Center::addProvider(const Provider& provider)
{
    vi_center_add_provider(d->center, Internal::handle(provider));
    return *this;
}

Center& Center::removeProvider(const QString& id)
{
    const Utf8 i(id);
    vi_center_remove_provider(d->center, i.data(), i.size());
    return *this;
}

Provider Center::getProvider(const QString& id) const
{
    const Utf8 i(id);
    ViProvider* provider = nullptr;
    if (vi_center_get_provider(d->center, i.data(), i.size(), &provider) != VI_STATUS_OK)
        return Provider();
    return adoptProvider(provider);
}

QList<Provider> Center::getProviders() const
{
    return providersFromJson(ownedJson([&](ViString** o) { return vi_center_providers(d->center, o); }));
}

// ---- skills ------------------------------------------------------------------------------------------

Center& Center::addSkill(const Skill& skill)
{
    vi_center_add_skill(d->center, Internal::handle(skill));
    return *this;
}

Center& Center::removeSkill(const QString& name)
{
    const Utf8 n(name);
    vi_center_remove_skill(d->center, n.data(), n.size());
    return *this;
}

Skill Center::getSkill(const QString& name) const
{
    const Utf8 n(name);
    ViSkill* skill = nullptr;
    if (vi_center_get_skill(d->center, n.data(), n.size(), &skill) != VI_STATUS_OK)
        return Skill();
    return adoptSkill(skill);
}

QList<Skill> Center::getSkills() const
{
    return skillsFromJson(ownedJson([&](ViString** o) { return vi_center_skills(d->center, o); }));
}

// ---- MCP servers -----------------------------------------------------------------------------------

Center& Center::addMCP(const MCP& mcp)
{
    vi_center_add_mcp(d->center, Internal::handle(mcp));
    return *this;
}

Center& Center::removeMCP(const QString& name)
{
    const Utf8 n(name);
    vi_center_remove_mcp(d->center, n.data(), n.size());
    return *this;
}

MCP Center::getMCP(const QString& name) const
{
    const Utf8 n(name);
    ViMcp* mcp = nullptr;
    if (vi_center_get_mcp(d->center, n.data(), n.size(), &mcp) != VI_STATUS_OK)
        return MCP();
    return adoptMcp(mcp);
}

QList<MCP> Center::getMCPs() const
{
    return mcpsFromJson(ownedJson([&](ViString** o) { return vi_center_mcps(d->center, o); }));
}

JsonConfig Center::getMCPServerInfo(const QString& serverName) const
{
    const Utf8 n(serverName);
    return takeJson(ownedJson([&](ViString** o) { return vi_center_mcp_server_info(d->center, n.data(), n.size(), o); }));
}

// ---- functions -------------------------------------------------------------------------------------

Center& Center::addFunction(Function* function)
{
    if (ViFunction* f = makeFunction(function))
        vi_center_add_function(d->center, f); // takes ownership, also on failure
    return *this;
}

Center& Center::removeFunction(const QString& id)
{
    const Utf8 i(id);
    vi_center_remove_function(d->center, i.data(), i.size());
    return *this;
}

Function* Center::getFunction(const QString& id) const
{
    const Utf8 i(id);
    void* userData = nullptr;
    if (vi_center_get_function(d->center, i.data(), i.size(), &userData) != VI_STATUS_OK)
        return nullptr;
    return static_cast<Function*>(userData);
}

QStringList Center::getFunctionIds() const
{
    return takeStringList(ownedJson([&](ViString** o) { return vi_center_function_ids(d->center, o); }));
}

// ---- prompts ---------------------------------------------------------------------------------------

Center& Center::addPrompt(const Prompt& prompt)
{
    vi_center_add_prompt(d->center, Internal::handle(prompt));
    return *this;
}

Center& Center::removePrompt(const QString& name)
{
    const Utf8 n(name);
    vi_center_remove_prompt(d->center, n.data(), n.size());
    return *this;
}

Prompt Center::getPrompt(const QString& name) const
{
    const Utf8 n(name);
    ViPrompt* prompt = nullptr;
    if (vi_center_get_prompt(d->center, n.data(), n.size(), &prompt) != VI_STATUS_OK)
        return Prompt();
    return adoptPrompt(prompt);
}

QList<Prompt> Center::getPrompts() const
{
    return promptsFromJson(ownedJson([&](ViString** o) { return vi_center_prompts(d->center, o); }));
}

Center& Center::setDefaultProvider(const QString& id)
{
    const Utf8 i(id);
    vi_center_set_default_provider(d->center, i.data(), i.size());
    return *this;
}

QString Center::getDefaultProvider() const
{
    return takeQString(ownedJson([&](ViString** o) { return vi_center_default_provider(d->center, o); }));
}

// ---- dialogs ---------------------------------------------------------------------------------------

Dialog* Center::createDialog()
{
    ViDialog* handle = nullptr;
    if (vi_center_create_dialog(d->center, &handle) != VI_STATUS_OK)
        return nullptr;
    QList<QPointer<Dialog>> replaced;
    Dialog* dialog = d->adopt(handle, &replaced);
    CenterPrivate::destroy(replaced);
    return dialog;
}

Dialog* Center::restoreDialog(const JsonConfig& json)
{
    QByteArray text;
    if (!objectJson(json, &text))
        return nullptr;
    ViDialog* handle = nullptr;
    if (vi_center_restore_dialog(d->center, text.constData(), size_t(text.size()), &handle) != VI_STATUS_OK)
        return nullptr;
    QList<QPointer<Dialog>> replaced;
    Dialog* dialog = d->adopt(handle, &replaced);
    CenterPrivate::destroy(replaced);
    return dialog;
}

namespace {

// One requestMCP() in flight: where and what to call back.
struct McpRequest
{
    QPointer<QObject> context;
    std::function<void(const JsonConfig&, const QString&)> callback;

    void answer(const JsonConfig& result, const QString& error)
    {
        if (!context)
            return; // the context is gone: nobody to tell
        QMetaObject::invokeMethod(
            context.data(), [cb = callback, result, error] { cb(result, error); }, Qt::QueuedConnection);
    }
};

void onMcpResult(void* userData, ViStr resultJson, ViStr error)
{
    auto* request = static_cast<McpRequest*>(userData);
    const QByteArray text(resultJson.data, qsizetype(resultJson.len));
    request->answer(text.isEmpty() ? JsonConfig() : jsonFromUtf8(text), toQString(error));
}

void deleteMcpRequest(void* userData)
{
    delete static_cast<McpRequest*>(userData);
}

} // namespace

void Center::requestMCP(const QString& serverName, const QString& method, const JsonConfig& params, QObject* context,
                        std::function<void(const JsonConfig& result, const QString& error)> callback)
{
    if (!callback)
        return;
    QObject* target = context ? context : this;
    auto* request = new McpRequest{target, callback};
    // The core checks that the params are an object (and says so through the callback).
    const QByteArray text = jsonRoot(params).isUndefined() ? QByteArray() : jsonToUtf8(params);
    const Utf8 server(serverName);
    const Utf8 m(method);
    const ViStatus status = vi_center_request_mcp(d->center, server.data(), server.size(), m.data(), m.size(),
                                                  text.constData(), size_t(text.size()), onMcpResult, request,
                                                  deleteMcpRequest);
    if (status != VI_STATUS_OK) {
        // Refused before it started (the core released `request`): say why on the context.
        const QString why = QString::fromUtf8(vi_last_error());
        QMetaObject::invokeMethod(target, [cb = std::move(callback), why] { cb(JsonConfig(), why); }, Qt::QueuedConnection);
    }
}

JsonConfig Center::saveDialog(const Dialog* dialog) const
{
    if (!dialog)
        return JsonConfig();
    return dialog->toJson();
}

void Center::removeDialog(const QString& id)
{
    const Utf8 i(id);
    vi_center_remove_dialog(d->center, i.data(), i.size());
    QList<QPointer<Dialog>> removed;
    {
        QMutexLocker lock(&d->mutex);
        if (QPointer<Dialog> wrapper = d->dialogs.take(id))
            removed.append(wrapper);
    }
    CenterPrivate::destroy(removed);
}

Dialog* Center::getDialog(const QString& id) const
{
    {
        QMutexLocker lock(&d->mutex);
        auto it = d->dialogs.constFind(id);
        if (it != d->dialogs.constEnd() && !it->isNull())
            return it->data();
    }
    // Registered in the core without a wrapper yet (e.g. through the C ABI): wrap it now.
    const Utf8 i(id);
    ViDialog* handle = nullptr;
    if (vi_center_get_dialog(d->center, i.data(), i.size(), &handle) != VI_STATUS_OK)
        return nullptr;
    QMutexLocker lock(&d->mutex);
    auto it = d->dialogs.constFind(id);
    if (it != d->dialogs.constEnd() && !it->isNull()) {
        vi_dialog_free(handle); // another thread wrapped it meanwhile
        return it->data();
    }
    auto* dialog = new Dialog(handle);
    d->dialogs.insert(id, dialog);
    return dialog;
}

QStringList Center::getDialogIds() const
{
    return takeStringList(ownedJson([&](ViString** o) { return vi_center_dialog_ids(d->center, o); }));
}

Dialog* Center::cloneDialog(const QString& dialogId)
{
    const Utf8 i(dialogId);
    ViDialog* handle = nullptr;
    if (vi_center_clone_dialog(d->center, i.data(), i.size(), &handle) != VI_STATUS_OK)
        return nullptr;
    QList<QPointer<Dialog>> replaced;
    Dialog* dialog = d->adopt(handle, &replaced);
    CenterPrivate::destroy(replaced);
    return dialog;
}

Dialog* Center::regenerate(const QString& dialogId)
{
    const Utf8 i(dialogId);
    ViDialog* handle = nullptr;
    if (vi_center_branch_for_regenerate(d->center, i.data(), i.size(), &handle) != VI_STATUS_OK)
        return nullptr;
    QList<QPointer<Dialog>> replaced;
    Dialog* dialog = d->adopt(handle, &replaced); // the callback is attached before the run
    CenterPrivate::destroy(replaced);
    if (dialog)
        dialog->run();
    return dialog;
}

// ---- JSON ------------------------------------------------------------------------------------------

JsonConfig Center::toJson() const
{
    return takeJson(ownedJson([&](ViString** o) { return vi_center_to_json(d->center, o); }));
}

JsonConfig Center::toJson(Secrets secrets) const
{
    return takeJson(ownedJson([&](ViString** o) { return vi_center_to_json_with(d->center, uint32_t(secrets), o); }));
}

bool Center::fromJson(const JsonConfig& json)
{
    bool replaced = false;
    ViStatus status = VI_STATUS_OK;
    // A document still holding the strict JSON text it was parsed from (e.g. a saved
    // toJson() read back with parse()) goes to the core as is: no Qt tree is built or
    // written. Should the core refuse that text (serde_json is stricter than Qt on
    // corner cases, e.g. nesting deeper than 128), the document is written by Qt as
    // for any other JsonConfig.
    const QByteArray source = Internal::jsonSourceText(json);
    bool sent = false;
    if (!source.isEmpty()) {
        qsizetype i = 0;
        while (i < source.size() && (source[i] == ' ' || source[i] == '\t' || source[i] == '\n' || source[i] == '\r'))
            ++i;
        if (i < source.size() && source[i] == '{') {
            status = vi_center_from_json(d->center, source.constData(), size_t(source.size()), &replaced);
            sent = status == VI_STATUS_OK;
        }
    }
    if (!sent) {
        QByteArray text;
        if (!objectJson(json, &text))
            return false;
        status = vi_center_from_json(d->center, text.constData(), size_t(text.size()), &replaced);
    }
    if (status != VI_STATUS_OK || !replaced)
        return false;

    // The old dialogs are gone from the core; wrap the restored ones.
    QHash<QString, QPointer<Dialog>> fresh;
    const QStringList ids =
        takeStringList(ownedJson([&](ViString** o) { return vi_center_dialog_ids(d->center, o); }));
    for (const QString& id : ids) {
        const Utf8 i(id);
        ViDialog* handle = nullptr;
        if (vi_center_get_dialog(d->center, i.data(), i.size(), &handle) == VI_STATUS_OK)
            fresh.insert(id, new Dialog(handle));
    }
    QList<QPointer<Dialog>> old;
    {
        QMutexLocker lock(&d->mutex);
        old = d->dialogs.values();
        d->dialogs = std::move(fresh);
    }
    CenterPrivate::destroy(old);
    return true;
}

} // namespace Visindigo::Agent
