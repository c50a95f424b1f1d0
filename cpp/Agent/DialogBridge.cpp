// SPDX-License-Identifier: MIT
//
// The thread bridge (see DialogBridge.h).
#include "DialogBridge.h"

#include "Strings.h"

#include <Agent/Function.h>

#include <QtCore/QHash>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
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

// Posts the drain unless one is queued or running. Called with the guard's mutex held and
// the dialog alive.
void schedule(const GuardPtr& guard, Dialog* dialog)
{
    if (guard->posted)
        return;
    guard->posted = true;
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
            const QString text(batch.texts.constData() + offset, qsizetype(item.length));
            offset += qsizetype(item.length);
            emitText(dialog, item.kind, text);
        }
    }
    recycle(guard, batch);
    if (released)
        return;
    QMutexLocker lock(&guard->mutex);
    Dialog* dialog = guard->dialog;
    if (!dialog)
        return;
    guard->posted = false;
    if (!guard->queue.isEmpty())
        schedule(guard, dialog);
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
    schedule(guard, dialog);
    return true;
}

namespace {

// Appends a streamed piece of text to `queue`, packed (see DialogBridge.h). Called with the
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
        QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
        QChar* end = decoder.appendToBuffer(texts.data() + before, QByteArrayView(text.data, qsizetype(text.len)));
        texts.truncate(end - texts.constData());
    }
    queue.items.push_back({kind, quint32(texts.size() - before)});
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
    schedule(guard, dialog);
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
        if (!guard->queue.isEmpty())
            schedule(guard, dialog);
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
        QMutexLocker lock(&guard->mutex);
        guard->dialog = nullptr;
    }
    if (handle)
        vi_dialog_set_event_callback(handle, nullptr, nullptr, nullptr);
}

// ---- host functions ------------------------------------------------------------------------

namespace {

// Owns one registered Function; deleted when the last reference (the table's, or a call
// in flight) goes.
struct FunctionOwner
{
    explicit FunctionOwner(Function* f) : function(f) {}
    ~FunctionOwner() { delete function; }
    FunctionOwner(const FunctionOwner&) = delete;
    FunctionOwner& operator=(const FunctionOwner&) = delete;
    Function* function;
};
using OwnerPtr = std::shared_ptr<FunctionOwner>;

struct FunctionTable
{
    struct Entry
    {
        OwnerPtr owner;
        int registrations = 0; // the same Function may be registered more than once
    };
    QMutex mutex;
    QHash<Function*, Entry> entries;
};

FunctionTable& functionTable()
{
    // Never destroyed: the global Center's functions are never released by the core,
    // and deleting them during static destruction would run application code too late.
    static FunctionTable* table = new FunctionTable;
    return *table;
}

OwnerPtr ownerOf(Function* function)
{
    FunctionTable& table = functionTable();
    QMutexLocker lock(&table.mutex);
    return table.entries.value(function).owner;
}

// The answer channel of one call: answered at most once; released unanswered (an error
// for the model) when the last copy of the callback goes without an answer.
class ReplyHolder
{
public:
    explicit ReplyHolder(ViToolReply* reply) : m_reply(reply) {}
    ~ReplyHolder() { vi_tool_reply_free(m_reply); }
    ReplyHolder(const ReplyHolder&) = delete;
    ReplyHolder& operator=(const ReplyHolder&) = delete;

    void complete(const QByteArray& json)
    {
        ViToolReply* reply = nullptr;
        {
            QMutexLocker lock(&m_mutex);
            reply = std::exchange(m_reply, nullptr);
        }
        if (reply)
            vi_tool_reply_complete(reply, json.constData(), size_t(json.size()));
    }

private:
    QMutex m_mutex;
    ViToolReply* m_reply;
};
using ReplyPtr = std::shared_ptr<ReplyHolder>;

QByteArray errorJson(const QString& message)
{
    return compactJson(QJsonDocument(QJsonObject{{QStringLiteral("error"), message}}));
}

void callFunction(const OwnerPtr& owner, const ReplyPtr& reply, const QByteArray& arguments)
{
    try {
        std::function<void(const JsonConfig&)> callback = [reply](const JsonConfig& result) {
            reply->complete(jsonToUtf8(result));
        };
        owner->function->invokeAsync(jsonFromUtf8(arguments), std::move(callback));
    } catch (const std::exception& e) {
        reply->complete(errorJson(QString::fromUtf8(e.what())));
    } catch (...) {
        reply->complete(errorJson(QStringLiteral("unknown exception")));
    }
}

void onInvoke(void* userData, void* context, const char* arguments, size_t len, ViToolReply* reply)
{
    // Must not unwind into the library; the reply is answered or released on every path.
    ReplyPtr holder;
    try {
        holder = std::make_shared<ReplyHolder>(reply);
    } catch (...) {
        vi_tool_reply_free(reply);
        return;
    }
    try {
        OwnerPtr owner = ownerOf(static_cast<Function*>(userData));
        if (!owner) {
            holder->complete(errorJson(QStringLiteral("the function is gone")));
            return;
        }
        QByteArray args = (arguments && len) ? QByteArray(arguments, qsizetype(len)) : QByteArray("{}");
        if (!context) {
            // No dialog callback to route through: call on this thread.
            callFunction(owner, holder, args);
            return;
        }
        const GuardPtr guard = *static_cast<GuardPtr*>(context);
        // When the dialog is gone the task (and with it the last holder) is dropped: the
        // reply is released unanswered.
        dispatch(guard, [owner, holder, args](Dialog*) { callFunction(owner, holder, args); });
    } catch (const std::exception& e) {
        holder->complete(errorJson(QString::fromUtf8(e.what())));
    } catch (...) {
        holder->complete(errorJson(QStringLiteral("unknown exception")));
    }
}

void onFunctionDestroy(void* userData)
{
    try {
        Function* function = static_cast<Function*>(userData);
        OwnerPtr owner;
        {
            FunctionTable& table = functionTable();
            QMutexLocker lock(&table.mutex);
            auto it = table.entries.find(function);
            if (it == table.entries.end())
                return;
            if (--it->registrations > 0)
                return;
            owner = std::move(it->owner);
            table.entries.erase(it);
        }
        // `owner` goes here, outside the lock: the Function is deleted unless a call holds it.
    } catch (...) {
    }
}

} // namespace

ViFunction* makeFunction(Function* function)
{
    if (!function)
        return nullptr;
    Utf8 id(QString{});
    Utf8 name(QString{});
    Utf8 description(QString{});
    QByteArray schema;
    try {
        id = Utf8(function->getId());
        name = Utf8(function->getName());
        description = Utf8(function->getDescription());
        schema = jsonToUtf8(function->getParameterSchema());
        FunctionTable& table = functionTable();
        QMutexLocker lock(&table.mutex);
        FunctionTable::Entry& entry = table.entries[function];
        if (!entry.owner)
            entry.owner = std::make_shared<FunctionOwner>(function);
        ++entry.registrations;
    } catch (...) {
        delete function;
        return nullptr;
    }
    ViFunction* out = nullptr;
    // On failure vi_function_new calls onFunctionDestroy, which deletes the Function.
    if (vi_function_new(id.data(), id.size(), name.data(), name.size(), description.data(),
                        description.size(), schema.constData(), size_t(schema.size()), function,
                        &onInvoke, &onFunctionDestroy, &out)
        != VI_STATUS_OK)
        return nullptr;
    return out;
}

} // namespace Visindigo::Agent::Internal
