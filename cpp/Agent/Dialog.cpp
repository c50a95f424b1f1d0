// SPDX-License-Identifier: MIT
//
// Dialog: one reference to a core dialog plus the event bridge (DialogBridge.h).
#include <Agent/Dialog.h>

#include "DialogBridge.h"
#include "Handles.h"
#include "Strings.h"

#include <Agent/Function.h>

#include <QtCore/QMutexLocker>

namespace Visindigo::Agent {

using Visindigo::Utility::JsonConfig;
using namespace Internal;

namespace {

ViDialog* newDialog()
{
    ViDialog* handle = nullptr;
    if (vi_dialog_new(nullptr, &handle) != VI_STATUS_OK)
        qFatal("Visindigo::Agent::Dialog: vi_dialog_new failed: %s", vi_last_error());
    return handle;
}

} // namespace

Dialog::Dialog()
    : Dialog(newDialog())
{
}

Dialog::Dialog(ViDialog* adopted)
    : QObject(nullptr)
    , d(std::make_unique<DialogPrivate>())
{
    d->handle = adopted;
    d->guard = attach(adopted, this);
}

Dialog::~Dialog()
{
    detach(d->handle, d->guard);
    vi_dialog_free(d->handle);
}

ViDialog* Dialog::handle() const
{
    return d->handle;
}

// ---- messages ---------------------------------------------------------------------------------

Dialog& Dialog::appendMessage(const Message& message)
{
    // Message holds its fields on the Qt side: hand the core a temporary copy.
    ViMessage* m = toHandle(message);
    vi_dialog_append_message(d->handle, m);
    vi_message_free(m);
    return *this;
}

Dialog& Dialog::appendMessage(Message::Role role, const QString& content)
{
    return appendMessage(Message(role, content));
}

Dialog& Dialog::clearMessages()
{
    vi_dialog_clear_messages(d->handle);
    return *this;
}

QList<Message> Dialog::getMessages() const
{
    const quint64 revision = vi_dialog_revision(d->handle);
    QMutexLocker lock(&d->cacheMutex);
    if (d->cacheValid && d->cacheRevision == revision)
        return d->cache; // O(1): the list is implicitly shared
    // Changed: when only appends happened since the cached snapshot the core gives just the
    // appended messages (first == the cached count); otherwise every message (first == 0).
    ViMessageList* list = nullptr;
    size_t first = 0;
    const quint64 since = d->cacheValid ? d->cacheRevision : 0;
    const size_t cached = d->cacheValid ? size_t(d->cache.size()) : 0;
    if (vi_dialog_messages_since(d->handle, since, cached, &list, &first) != VI_STATUS_OK)
        return {};
    const size_t count = vi_message_list_len(list);
    QList<Message> messages;
    if (first > 0)
        messages = std::move(d->cache); // first == the cached count
    else
        messages.reserve(qsizetype(count)); // (appends to the cache grow it geometrically)
    for (size_t i = 0; i < count; ++i)
        messages.append(adoptMessage(vi_message_list_take(list, i)));
    d->cacheRevision = vi_message_list_revision(list);
    vi_message_list_free(list);
    d->cache = messages;
    d->cacheValid = true;
    return messages;
}

Message Dialog::getLastMessage() const
{
    ViMessage* message = nullptr;
    if (vi_dialog_last_message(d->handle, &message) != VI_STATUS_OK)
        return Message();
    return adoptMessage(message);
}

qint32 Dialog::getMessageCount() const
{
    return qint32(vi_dialog_message_count(d->handle));
}

Dialog& Dialog::truncateTo(qint32 messageCount)
{
    vi_dialog_truncate_to(d->handle, messageCount);
    return *this;
}

qint32 Dialog::findLastAssistantMessage() const
{
    return qint32(vi_dialog_find_last_assistant_message(d->handle));
}

bool Dialog::copyTo(Dialog* target) const
{
    if (!target || target == this)
        return false;
    return vi_dialog_copy_to(d->handle, target->d->handle);
}

// ---- streaming primitives -----------------------------------------------------------------------

void Dialog::beginAssistantMessage()
{
    vi_dialog_begin_assistant_message(d->handle);
}

void Dialog::appendDelta(const QString& delta)
{
    const Utf8 text(delta);
    vi_dialog_append_delta(d->handle, text.data(), text.size());
}

void Dialog::endAssistantMessage()
{
    vi_dialog_end_assistant_message(d->handle);
}

bool Dialog::isStreaming() const
{
    return vi_dialog_is_streaming(d->handle);
}

QString Dialog::getStreamingContent() const
{
    return takeQString(ownedJson([&](ViString** o) { return vi_dialog_streaming_content(d->handle, o); }));
}

QString Dialog::getReasoningContent() const
{
    return takeQString(ownedJson([&](ViString** o) { return vi_dialog_reasoning_content(d->handle, o); }));
}

// ---- dialog-local entries -------------------------------------------------------------------------

Dialog& Dialog::addSkill(const Skill& skill)
{
    vi_dialog_add_skill(d->handle, Internal::handle(skill));
    return *this;
}

Dialog& Dialog::removeSkill(const QString& name)
{
    const Utf8 n(name);
    vi_dialog_remove_skill(d->handle, n.data(), n.size());
    return *this;
}

QList<Skill> Dialog::getSkills() const
{
    return skillsFromJson(ownedJson([&](ViString** o) { return vi_dialog_skills(d->handle, o); }));
}

Dialog& Dialog::addMCP(const MCP& mcp)
{
    vi_dialog_add_mcp(d->handle, Internal::handle(mcp));
    return *this;
}

Dialog& Dialog::removeMCP(const QString& name)
{
    const Utf8 n(name);
    vi_dialog_remove_mcp(d->handle, n.data(), n.size());
    return *this;
}

QList<MCP> Dialog::getMCPs() const
{
    return mcpsFromJson(ownedJson([&](ViString** o) { return vi_dialog_mcps(d->handle, o); }));
}

Dialog& Dialog::addFunction(Function* function)
{
    if (ViFunction* f = makeFunction(function))
        vi_dialog_add_function(d->handle, f); // takes ownership, also on failure
    return *this;
}

Dialog& Dialog::removeFunction(const QString& id)
{
    const Utf8 i(id);
    vi_dialog_remove_function(d->handle, i.data(), i.size());
    return *this;
}

Function* Dialog::getFunction(const QString& id) const
{
    const Utf8 i(id);
    void* userData = nullptr;
    if (vi_dialog_get_function(d->handle, i.data(), i.size(), &userData) != VI_STATUS_OK)
        return nullptr;
    return static_cast<Function*>(userData);
}

QStringList Dialog::getFunctionIds() const
{
    return takeStringList(ownedJson([&](ViString** o) { return vi_dialog_function_ids(d->handle, o); }));
}

Dialog& Dialog::addPrompt(const Prompt& prompt)
{
    vi_dialog_add_prompt(d->handle, Internal::handle(prompt));
    return *this;
}

Dialog& Dialog::removePrompt(const QString& name)
{
    const Utf8 n(name);
    vi_dialog_remove_prompt(d->handle, n.data(), n.size());
    return *this;
}

QList<Prompt> Dialog::getPrompts() const
{
    return promptsFromJson(ownedJson([&](ViString** o) { return vi_dialog_prompts(d->handle, o); }));
}

Dialog& Dialog::appendPrompt(const QString& name, const QMap<QString, QString>& variables)
{
    const Utf8 n(name);
    const QByteArray vars = stringMapJson(variables);
    vi_dialog_append_prompt(d->handle, n.data(), n.size(), vars.constData(), size_t(vars.size()), nullptr);
    return *this;
}

// ---- identity and model choice ----------------------------------------------------------------------

QString Dialog::getId() const
{
    return takeQString(ownedJson([&](ViString** o) { return vi_dialog_id(d->handle, o); }));
}

Dialog& Dialog::setBranchFromID(const QString& id)
{
    const Utf8 i(id);
    vi_dialog_set_branch_from_id(d->handle, i.data(), i.size());
    return *this;
}

QString Dialog::getBranchFromID() const
{
    return takeQString(ownedJson([&](ViString** o) { return vi_dialog_branch_from_id(d->handle, o); }));
}

Dialog& Dialog::setProviderId(const QString& id)
{
    const Utf8 i(id);
    vi_dialog_set_provider_id(d->handle, i.data(), i.size());
    return *this;
}

QString Dialog::getProviderId() const
{
    return takeQString(ownedJson([&](ViString** o) { return vi_dialog_provider_id(d->handle, o); }));
}

Dialog& Dialog::setModelId(const QString& id)
{
    const Utf8 i(id);
    vi_dialog_set_model_id(d->handle, i.data(), i.size());
    return *this;
}

QString Dialog::getModelId() const
{
    return takeQString(ownedJson([&](ViString** o) { return vi_dialog_model_id(d->handle, o); }));
}

Dialog& Dialog::setCapabilityRequirement(Model::Capabilities requirement)
{
    vi_dialog_set_capability_requirement(d->handle, uint32_t(requirement.toInt()));
    return *this;
}

Model::Capabilities Dialog::getCapabilityRequirement() const
{
    return Model::Capabilities::fromInt(int(vi_dialog_capability_requirement(d->handle)));
}

void Dialog::run()
{
    vi_dialog_run(d->handle);
}

JsonConfig Dialog::toJson() const
{
    return takeJson(ownedJson([&](ViString** o) { return vi_dialog_to_json(d->handle, o); }));
}

bool Dialog::fromJson(const JsonConfig& json)
{
    QByteArray text;
    if (!objectJson(json, &text))
        return false;
    bool idRead = false;
    if (vi_dialog_from_json(d->handle, text.constData(), size_t(text.size()), &idRead) != VI_STATUS_OK)
        return false;
    return idRead;
}

// ---- extensions -----------------------------------------------------------------------------------------

void Dialog::abort()
{
    vi_dialog_abort(d->handle);
}

JsonConfig Dialog::getLastUsage() const
{
    return takeJson(ownedJson([&](ViString** o) { return vi_dialog_last_usage(d->handle, o); }));
}

} // namespace Visindigo::Agent
