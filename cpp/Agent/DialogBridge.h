// SPDX-License-Identifier: MIT
//
// Internal (not installed): the thread bridge between the Rust core's callbacks and the
// Qt objects (Dialog signals, Function calls).
//
// Every Dialog registers ONE event callback whose user_data is a heap
// `std::shared_ptr<DialogGuard>` (released by the core through the destroy callback). The
// guard says whether the Dialog still exists and how many of its deliveries are queued but
// not yet run. dispatch() is the single route to a Dialog's thread:
//   * the Dialog is gone (its destructor nulled the pointer) → the task is dropped;
//   * the caller is on the Dialog's thread and nothing is queued → the task runs at once;
//   * otherwise the task is posted (QueuedConnection) to the Dialog, and `pending` counts it
//     until it runs, so a later event raised on the Dialog's own thread cannot overtake it.
// The post happens under the guard's mutex; the Dialog destructor takes the same mutex to
// null the pointer, so nothing is posted to a Dialog being destroyed, and the posts that
// are already queued are discarded with the QObject.
//
// Host functions: a registered Function is owned by a FunctionOwner kept in a process-wide
// table keyed by the Function pointer (the ViFunction's user_data, so getFunction() can
// cast it back). The core's destroy callback drops the table's reference; a call in
// flight holds its own, so a Function removed while its call waits in a queue is deleted
// only after that call.
#ifndef VISINDIGO_AGENT_INTERNAL_DIALOGBRIDGE_H
#define VISINDIGO_AGENT_INTERNAL_DIALOGBRIDGE_H

#include <Agent/Dialog.h>
#include <visindigo_agent.h>

#include <QtCore/QList>
#include <QtCore/QMutex>

#include <functional>
#include <memory>

namespace Visindigo::Agent {

class Function;

namespace Internal {

struct DialogGuard
{
    QMutex mutex;
    Dialog* dialog = nullptr; // guarded by mutex; nulled first thing by ~Dialog
    qint64 pending = 0;       // deliveries posted and not yet run; guarded by mutex
};
using GuardPtr = std::shared_ptr<DialogGuard>;

// Runs task(dialog) on the dialog's thread, in order with every other delivery of that
// dialog. Returns false (dropping the task) when the dialog is gone.
bool dispatch(const GuardPtr& guard, std::function<void(Dialog*)> task);

// Installs the event callback of `handle` for `dialog`; returns the guard.
GuardPtr attach(ViDialog* handle, Dialog* dialog);
// The destructor's half: after it no task reaches `dialog`; then clears the callback.
void detach(ViDialog* handle, const GuardPtr& guard);

// Wraps a Function (taking ownership) into a ViFunction ready to be registered; on
// failure the Function is deleted and nullptr returned.
ViFunction* makeFunction(Function* function);

} // namespace Internal

class DialogPrivate
{
public:
    ViDialog* handle = nullptr;
    Internal::GuardPtr guard;

    // getMessages() cache: valid while vi_dialog_revision() == cacheRevision.
    mutable QMutex cacheMutex;
    mutable QList<Message> cache;
    mutable quint64 cacheRevision = 0;
    mutable bool cacheValid = false;
};

} // namespace Visindigo::Agent

#endif // VISINDIGO_AGENT_INTERNAL_DIALOGBRIDGE_H
