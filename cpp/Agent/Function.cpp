// SPDX-License-Identifier: MIT
//
// Function: the base class's default invokeAsync, and the bridge that lets the core call a
// host Function (Function_p.h says how).
#include <Agent/Function.h>

#include "Dialog_p.h"
#include "Function_p.h"
#include "Strings.h"

#include <QtCore/QHash>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QMutexLocker>

#include <exception>
#include <memory>
#include <utility>

namespace Visindigo::Agent {

Function::~Function() = default;

void Function::invokeAsync(const Visindigo::Utility::JsonConfig& arguments,
                           std::function<void(const Visindigo::Utility::JsonConfig&)> callback)
{
    const Visindigo::Utility::JsonConfig result = invoke(arguments);
    if (callback)
        callback(result);
}

} // namespace Visindigo::Agent

namespace Visindigo::Agent::Internal {

using Visindigo::Utility::JsonConfig;

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
