// SPDX-License-Identifier: MIT
//
// Dialog: one reference to a core dialog, and the event bridge that brings the core's events
// onto the Dialog's thread (Dialog_p.h says how).
#include <Agent/Dialog.h>

#include "Dialog_p.h"
#include "Function_p.h"
#include "Network_p.h"
#include "Handles.h"
#include "Strings.h"

#include <Agent/Function.h>

#include <QtCore/QMetaObject>
#include <QtCore/QMutexLocker>
#include <QtCore/QStringDecoder>
#include <QtCore/QThread>

#include <algorithm>
#include <exception>
#include <utility>

namespace Visindigo::Agent::Internal {

using Visindigo::Utility::JsonConfig;

// ---- delivery ------------------------------------------------------------------------------

namespace {

void drain(const GuardPtr& guard);

// Whether an event for `dialog` is delivered at once rather than queued: on the dialog's
// thread with nothing waiting, as with no queue at all. Called with the guard's mutex held.
bool deliversAtOnce(const DialogGuard& guard, const Dialog* dialog)
{
    return !guard.posted && guard.queue.isEmpty() && QThread::currentThread() == dialog->thread();
}

// Claims the drain unless one is queued or running: true when the caller must post it, with
// postDrain() once it has released the guard's mutex (called with it held). Posting under the
// mutex woke the dialog's thread only for it to block on that mutex and be woken a second
// time — which, with every core busy, waits for a scheduler slice (BENCHMARKS.md, "eighth
// session").
bool claimDrain(DialogGuard& guard)
{
    if (guard.posted)
        return false;
    guard.posted = true;
    return true;
}

// Posts the drain claimed by claimDrain(), unless the dialog is gone; without the mutex.
void postDrain(const GuardPtr& guard)
{
    QMutexLocker posting(&guard->posting);
    if (Dialog* dialog = guard->dialog)
        QMetaObject::invokeMethod(dialog, [guard]() { drain(guard); }, Qt::QueuedConnection);
}

void emitText(Dialog* dialog, DeliveryQueue::Kind kind, const QString& text)
{
    if (kind == DeliveryQueue::Delta)
        Q_EMIT dialog->streamDelta(text);
    else
        Q_EMIT dialog->streamReasoning(text);
}

// Gives the emptied buffers of a delivered batch back to the producer, so a long stream fills
// the same allocation again instead of regrowing one per drain. A buffer grown past a burst
// (over 1 Mi UTF-16 units) is released instead.
void recycle(const GuardPtr& guard, DeliveryQueue& batch)
{
    if (batch.texts.capacity() > (1 << 20))
        return;
    batch.items.clear();
    batch.texts.resize(0); // keeps the capacity
    QMutexLocker lock(&guard->mutex);
    if (guard->queue.isEmpty() && guard->queue.texts.capacity() < batch.texts.capacity())
        std::swap(guard->queue, batch);
}

// On the dialog's thread: delivers what was queued when it started, one signal per event.
void drain(const GuardPtr& guard)
{
    DeliveryQueue batch;
    {
        QMutexLocker lock(&guard->mutex);
        std::swap(batch, guard->queue);
    }
    const size_t n = batch.items.size();
    bool released = false; // `posted` handed back before the last delivery
    qsizetype offset = 0;
    // Every text of the batch is emitted through this one string, filled in place: when no
    // slot kept a copy of the last one, its allocation takes the next text, instead of a
    // malloc and a free per delta (~40 % of a delta's cost on this thread, issue 34). When a
    // slot kept a copy, the next text gets a string of its own, and the copy keeps its text.
    QString text;
    for (size_t i = 0; i < n; ++i) {
        if (i + 1 == n) {
            // Before the last delivery: when nothing else waits, let events raised by its
            // slots on this thread be delivered at once again (as with no queue at all).
            QMutexLocker lock(&guard->mutex);
            if (guard->queue.isEmpty()) {
                guard->posted = false;
                released = true;
            }
        }
        // Only this thread destroys the dialog (and nulls the pointer), so reading it here
        // without the mutex is race-free; a slot may have deleted it meanwhile.
        Dialog* dialog = guard->dialog;
        if (!dialog)
            return;
        const DeliveryQueue::Item item = batch.items[i];
        if (item.kind == DeliveryQueue::Task) {
            std::function<void(Dialog*)> task = std::move(batch.tasks.front());
            batch.tasks.pop_front();
            task(dialog);
        } else {
            if (text.isDetached())
                text.resize(qsizetype(item.length));
            else
                text = QString(qsizetype(item.length), Qt::Uninitialized); // not a copy of the kept one
            std::copy_n(batch.texts.constData() + offset, item.length, text.data());
            offset += qsizetype(item.length);
            emitText(dialog, item.kind, text);
        }
    }
    recycle(guard, batch);
    if (released)
        return;
    QMutexLocker lock(&guard->mutex);
    if (!guard->dialog)
        return;
    guard->posted = false;
    const bool post = !guard->queue.isEmpty() && claimDrain(*guard);
    lock.unlock();
    if (post)
        postDrain(guard);
}

} // namespace

bool dispatch(const GuardPtr& guard, std::function<void(Dialog*)> task)
{
    QMutexLocker lock(&guard->mutex);
    Dialog* dialog = guard->dialog;
    if (!dialog)
        return false;
    if (deliversAtOnce(*guard, dialog)) {
        // On the dialog's thread with nothing queued: deliver now. Only this thread may
        // destroy the dialog, so it stays valid without the lock (which must not be held
        // while user slots run: they may append messages themselves).
        lock.unlock();
        task(dialog);
        return true;
    }
    guard->queue.items.push_back({DeliveryQueue::Task, 0});
    guard->queue.tasks.push_back(std::move(task));
    const bool post = claimDrain(*guard);
    lock.unlock();
    if (post)
        postDrain(guard);
    return true;
}

namespace {

// Appends a streamed piece of text to `queue`, packed (see Dialog_p.h). Called with the
// guard's mutex held.
void packText(DeliveryQueue& queue, DeliveryQueue::Kind kind, ViStr text)
{
    QString& texts = queue.texts;
    const qsizetype before = texts.size();
    if (text.data && text.len) {
        // Decoded straight into the buffer (UTF-16 never needs more units than UTF-8 bytes).
        const qsizetype needed = before + qsizetype(text.len);
        if (texts.capacity() < needed)
            texts.reserve(std::max(needed, 2 * texts.capacity()));
        texts.resize(needed);
        QChar* out = texts.data() + before;
        const auto* in = reinterpret_cast<const uchar*>(text.data);
        const auto* inEnd = in + text.len;
        // ASCII, nearly every delta of a stream, widens byte by byte; the decoder's setup per
        // delta cost more than the conversion (issue 34).
        while (in != inEnd && *in < 0x80)
            *out++ = QChar(*in++);
        if (in != inEnd) {
            // ConvertInitialBom: a U+FEFF at the start of a delta is text, not a byte order mark.
            QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless | QStringDecoder::Flag::ConvertInitialBom);
            out = decoder.appendToBuffer(out, QByteArrayView(in, inEnd - in));
        }
        texts.truncate(out - texts.constData());
    }
    // Written in place, field by field: an Item built on the stack and copied in as one
    // 8-byte word stalled on store forwarding (two 4-byte stores, then an 8-byte load), two
    // thirds of this function's time (perf, issue 34).
    DeliveryQueue::Item& item = queue.items.emplace_back();
    item.kind = kind;
    item.length = quint32(texts.size() - before);
}

// A streamed piece of text: emitted at once on the dialog's thread with nothing waiting,
// queued otherwise.
void dispatchText(const GuardPtr& guard, DeliveryQueue::Kind kind, ViStr text)
{
    QMutexLocker lock(&guard->mutex);
    Dialog* dialog = guard->dialog;
    if (!dialog)
        return;
    if (deliversAtOnce(*guard, dialog)) {
        lock.unlock();
        emitText(dialog, kind, toQString(text));
        return;
    }
    packText(guard->queue, kind, text);
    const bool post = claimDrain(*guard);
    lock.unlock();
    if (post)
        postDrain(guard);
}

std::function<void(Dialog*)> taskFor(const ViEvent& event)
{
    switch (event.kind) {
    case VI_EVENT_KIND_MESSAGE_APPENDED: {
        const qint32 index = qint32(event.index);
        return [index](Dialog* d) { Q_EMIT d->messageAppended(index); };
    }
    case VI_EVENT_KIND_STREAM_BEGAN:
        return [](Dialog* d) { Q_EMIT d->streamBegan(); };
    case VI_EVENT_KIND_STREAM_DELTA:
    case VI_EVENT_KIND_STREAM_REASONING:
        break; // packed, see onEvent
    case VI_EVENT_KIND_STREAM_ENDED: {
        QString text = toQString(event.text);
        return [text](Dialog* d) { Q_EMIT d->streamEnded(text); };
    }
    case VI_EVENT_KIND_RUN_FAILED: {
        QString text = toQString(event.text);
        return [text](Dialog* d) { Q_EMIT d->runFailed(text); };
    }
    case VI_EVENT_KIND_MODEL_FALLBACK: {
        QString from = toQString(event.from_model_id);
        QString to = toQString(event.to_model_id);
        QString reason = toQString(event.text);
        return [from, to, reason](Dialog* d) { Q_EMIT d->modelFallback(from, to, reason); };
    }
    case VI_EVENT_KIND_MCP_FAILED: {
        QString server = toQString(event.server_name);
        QString text = toQString(event.text);
        return [server, text](Dialog* d) { Q_EMIT d->mcpFailed(server, text); };
    }
    case VI_EVENT_KIND_MCP_PROGRESS: {
        QString server = toQString(event.server_name);
        QString tool = toQString(event.tool_name);
        QString message = toQString(event.text);
        const double progress = event.progress;
        const double total = event.total;
        return [server, tool, progress, total, message](Dialog* d) {
            Q_EMIT d->mcpProgress(server, tool, progress, total, message);
        };
    }
    case VI_EVENT_KIND_MCP_ELICITATION_REQUESTED: {
        QString id = toQString(event.call_id);
        QString server = toQString(event.server_name);
        QString message = toQString(event.text);
        const JsonConfig schema = jsonFromUtf8(QByteArray(event.json.data, qsizetype(event.json.len)));
        return [id, server, message, schema](Dialog* d) { Q_EMIT d->mcpElicitationRequested(id, server, message, schema); };
    }
    case VI_EVENT_KIND_MCP_URL_ELICITATION_REQUESTED: {
        QString id = toQString(event.call_id);
        QString server = toQString(event.server_name);
        QString message = toQString(event.text);
        const QUrl url(toQString(event.url));
        return [id, server, message, url](Dialog* d) { Q_EMIT d->mcpUrlElicitationRequested(id, server, message, url); };
    }
    case VI_EVENT_KIND_RETRYING: {
        const qint32 attempt = event.attempt;
        const qint32 delayMs = event.delay_ms;
        QString reason = toQString(event.text);
        return [attempt, delayMs, reason](Dialog* d) { Q_EMIT d->retrying(attempt, delayMs, reason); };
    }
    case VI_EVENT_KIND_RUN_FINISHED:
        return [](Dialog* d) { Q_EMIT d->runFinished(); };
    case VI_EVENT_KIND_USAGE_UPDATED: {
        const JsonConfig usage = jsonFromUtf8(QByteArray(event.json.data, qsizetype(event.json.len)));
        return [usage](Dialog* d) { Q_EMIT d->usageUpdated(usage); };
    }
    case VI_EVENT_KIND_CONTEXT_TRIMMED: {
        const qint32 leftOut = event.messages_left_out;
        const qint32 estimated = event.estimated_tokens;
        return [leftOut, estimated](Dialog* d) { Q_EMIT d->contextTrimmed(leftOut, estimated); };
    }
    case VI_EVENT_KIND_MESSAGES_RESET:
        return [](Dialog* d) { Q_EMIT d->messagesReset(); };
    case VI_EVENT_KIND_TOOL_APPROVAL_REQUESTED:
    case VI_EVENT_KIND_TOOL_CALL_STARTED:
    case VI_EVENT_KIND_TOOL_CALL_FINISHED: {
        const ViEventKind kind = event.kind;
        QString callId = toQString(event.call_id);
        QString tool = toQString(event.tool_name);
        QString text = toQString(event.text);
        return [kind, callId, tool, text](Dialog* d) {
            if (kind == VI_EVENT_KIND_TOOL_APPROVAL_REQUESTED)
                Q_EMIT d->toolApprovalRequested(callId, tool, text);
            else if (kind == VI_EVENT_KIND_TOOL_CALL_STARTED)
                Q_EMIT d->toolCallStarted(callId, tool, text);
            else
                Q_EMIT d->toolCallFinished(callId, tool, text);
        };
    }
    }
    return {}; // an event kind this layer does not know: ignored
}

// The packed kind of a streamed text event; Task for the others.
DeliveryQueue::Kind kindOf(const ViEvent& event)
{
    switch (event.kind) {
    case VI_EVENT_KIND_STREAM_DELTA:
        return DeliveryQueue::Delta;
    case VI_EVENT_KIND_STREAM_REASONING:
        return DeliveryQueue::Reasoning;
    default:
        return DeliveryQueue::Task;
    }
}

// One event through the ordinary route (dispatch / dispatchText).
void deliverOne(const GuardPtr& guard, const ViEvent& event)
{
    const DeliveryQueue::Kind kind = kindOf(event);
    if (kind != DeliveryQueue::Task) {
        dispatchText(guard, kind, event.text);
        return;
    }
    std::function<void(Dialog*)> task = taskFor(event);
    if (task)
        dispatch(guard, std::move(task));
}

void onEvents(void* userData, const ViEvent* events, size_t count)
{
    // Must not unwind into the library.
    try {
        if (!userData || !events)
            return;
        const GuardPtr& guard = *static_cast<GuardPtr*>(userData);
        QMutexLocker lock(&guard->mutex);
        Dialog* dialog = guard->dialog;
        if (!dialog)
            return;
        if (deliversAtOnce(*guard, dialog)) {
            // On the dialog's thread with nothing waiting (a direct edit): one at a time, as
            // with no queue, since a slot may queue more or delete the dialog in between.
            lock.unlock();
            for (size_t i = 0; i < count; ++i)
                deliverOne(guard, events[i]);
            return;
        }
        // Otherwise the whole batch (typically every chunk of one network read) is queued
        // under one lock, behind one drain.
        try {
            for (size_t i = 0; i < count; ++i) {
                const DeliveryQueue::Kind kind = kindOf(events[i]);
                if (kind != DeliveryQueue::Task) {
                    packText(guard->queue, kind, events[i].text);
                    continue;
                }
                std::function<void(Dialog*)> task = taskFor(events[i]);
                if (!task)
                    continue;
                guard->queue.items.push_back({DeliveryQueue::Task, 0});
                guard->queue.tasks.push_back(std::move(task));
            }
        } catch (...) {
            // Out of memory part-way: what was queued is still delivered.
        }
        const bool post = !guard->queue.isEmpty() && claimDrain(*guard);
        lock.unlock();
        if (post)
            postDrain(guard);
    } catch (...) {
    }
}

void destroyGuard(void* userData)
{
    delete static_cast<GuardPtr*>(userData);
}

} // namespace

GuardPtr attach(ViDialog* handle, Dialog* dialog)
{
    auto guard = std::make_shared<DialogGuard>();
    guard->dialog = dialog;
    auto* userData = new GuardPtr(guard);
    if (vi_dialog_set_event_callback(handle, &onEvents, userData, &destroyGuard) != VI_STATUS_OK)
        delete userData; // not registered (NULL handle): no destroy call will come
    return guard;
}

void detach(ViDialog* handle, const GuardPtr& guard)
{
    if (guard) {
        QMutexLocker posting(&guard->posting);
        QMutexLocker lock(&guard->mutex);
        guard->dialog = nullptr;
    }
    if (handle)
        vi_dialog_set_event_callback(handle, nullptr, nullptr, nullptr);
}

} // namespace Visindigo::Agent::Internal

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
    Internal::useQtNetworkConfiguration();
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

void Dialog::stop()
{
    vi_dialog_stop(d->handle);
}

Dialog& Dialog::setToolApproval(bool on)
{
    vi_dialog_set_tool_approval(d->handle, on);
    return *this;
}

bool Dialog::getToolApproval() const
{
    return vi_dialog_tool_approval(d->handle);
}

bool Dialog::approveToolCall(const QString& callId)
{
    const Utf8 id(callId);
    return vi_dialog_approve_tool_call(d->handle, id.data(), id.size()) == VI_STATUS_OK;
}

bool Dialog::rejectToolCall(const QString& callId, const QString& reason)
{
    const Utf8 id(callId);
    const Utf8 why(reason);
    return vi_dialog_reject_tool_call(d->handle, id.data(), id.size(), why.data(), why.size()) == VI_STATUS_OK;
}

bool Dialog::answerMCPElicitation(const QString& requestId, const QString& action, const JsonConfig& content)
{
    const Utf8 id(requestId);
    const Utf8 a(action);
    QByteArray text; // stays empty (no content) unless content is an object
    objectJson(content, &text);
    return vi_dialog_answer_mcp_elicitation(d->handle, id.data(), id.size(), a.data(), a.size(), text.constData(),
                                            size_t(text.size()))
           == VI_STATUS_OK;
}

Dialog& Dialog::setParallelToolCalls(bool on)
{
    vi_dialog_set_parallel_tool_calls(d->handle, on);
    return *this;
}

bool Dialog::getParallelToolCalls() const
{
    return vi_dialog_parallel_tool_calls(d->handle);
}

Dialog& Dialog::setMaxToolRounds(qint32 rounds)
{
    vi_dialog_set_max_tool_rounds(d->handle, rounds);
    return *this;
}

qint32 Dialog::getMaxToolRounds() const
{
    return vi_dialog_max_tool_rounds(d->handle);
}

Dialog& Dialog::setContextPolicy(ContextPolicy policy)
{
    vi_dialog_set_context_policy(d->handle, uint32_t(policy));
    return *this;
}

Dialog::ContextPolicy Dialog::getContextPolicy() const
{
    return ContextPolicy(vi_dialog_context_policy(d->handle));
}

Dialog& Dialog::setSummaryModel(const QString& providerId, const QString& modelId)
{
    const Utf8 p(providerId);
    const Utf8 m(modelId);
    vi_dialog_set_summary_model(d->handle, p.data(), p.size(), m.data(), m.size());
    return *this;
}

QString Dialog::getSummaryProviderId() const
{
    return takeQString(ownedJson([&](ViString** o) { return vi_dialog_summary_provider_id(d->handle, o); }));
}

QString Dialog::getSummaryModelId() const
{
    return takeQString(ownedJson([&](ViString** o) { return vi_dialog_summary_model_id(d->handle, o); }));
}

QString Dialog::getContextSummary() const
{
    return takeQString(ownedJson([&](ViString** o) { return vi_dialog_context_summary(d->handle, o, nullptr); }));
}

Dialog& Dialog::setResponseSchema(const QString& name, const JsonConfig& schema)
{
    const Utf8 n(name);
    QByteArray text;
    if (!objectJson(schema, &text))
        text.clear(); // not an object: no schema
    vi_dialog_set_response_schema(d->handle, n.data(), n.size(), text.constData(), size_t(text.size()));
    return *this;
}

namespace {

// {"name","schema"}, or an empty object when none is set.
JsonConfig responseSchemaOf(ViDialog* handle)
{
    return takeJson(ownedJson([&](ViString** o) { return vi_dialog_response_schema(handle, o); }));
}

} // namespace

JsonConfig Dialog::getResponseSchema() const
{
    return responseSchemaOf(d->handle).getObject(QStringLiteral("schema"));
}

QString Dialog::getResponseSchemaName() const
{
    return responseSchemaOf(d->handle).getString(QStringLiteral("name"));
}

} // namespace Visindigo::Agent
