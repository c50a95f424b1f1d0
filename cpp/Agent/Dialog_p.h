// SPDX-License-Identifier: MIT
//
// Internal (not installed): Dialog's private class and its event bridge (in Dialog.cpp),
// which carries the Rust core's callbacks onto the Dialog's thread.
//
// Every Dialog registers ONE event callback whose user_data is a heap
// `std::shared_ptr<DialogGuard>` (released by the core through the destroy callback). The
// guard says whether the Dialog still exists and holds the deliveries that wait for the
// Dialog's thread, in order. The core calls back with batches (every chunk of one network
// read, or the events of one edit); each batch takes the guard's mutex once:
//   * the Dialog is gone (its destructor nulled the pointer) → the delivery is dropped;
//   * the caller is on the Dialog's thread and nothing waits → it is delivered at once;
//   * otherwise it is appended to the guard's queue, so a later event raised on the
//     Dialog's own thread cannot overtake it. The first delivery into an idle queue posts
//     ONE drain (QueuedConnection) to the Dialog; the drain takes the whole queue and emits
//     it, one signal per event (one streamDelta per chunk, SPEC §D.1.4), then posts itself
//     again if more arrived meanwhile (so a fast network never starves the event loop).
// Streamed texts (deltas, reasoning) are packed: their UTF-16 text goes into one buffer
// and each costs one 8-byte entry, so a long stream waiting for a busy thread holds about
// the answer's text, not one heap event per chunk (and the producer pays a memcpy per delta
// and a mutex per batch instead of an event allocation and an event-loop wake-up). A drained
// batch hands its emptied buffers back, so a long stream does not regrow them per drain.
// The post happens under the guard's mutex; the Dialog destructor takes the same mutex to
// null the pointer, so nothing is posted to a Dialog being destroyed, and a drain that is
// already queued is discarded with the QObject (or finds the pointer null and stops).
//
#ifndef VISINDIGO_AGENT_DIALOG_P_H
#define VISINDIGO_AGENT_DIALOG_P_H

#include <Agent/Dialog.h>
#include <visindigo_agent.h>

#include <QtCore/QList>
#include <QtCore/QMutex>

#include <deque>
#include <functional>
#include <memory>
#include <vector>

namespace Visindigo::Agent {

namespace Internal {

// What waits for a Dialog's thread (guarded by DialogGuard::mutex).
struct DeliveryQueue
{
    enum Kind : quint32 { Task, Delta, Reasoning };
    struct Item
    {
        Kind kind;
        quint32 length; // Delta/Reasoning: UTF-16 code units taken from `texts`
    };
    std::vector<Item> items;
    QString texts;                                // Delta/Reasoning texts, back to back
    std::deque<std::function<void(Dialog*)>> tasks; // one per Task item
    bool isEmpty() const { return items.empty(); }
};

struct DialogGuard
{
    QMutex mutex;
    // Held while a drain is posted outside `mutex`; ~Dialog takes both to null `dialog`, so
    // either one makes reading it safe.
    QMutex posting;
    Dialog* dialog = nullptr; // guarded by mutex (and posting); nulled first thing by ~Dialog
    DeliveryQueue queue;      // guarded by mutex
    bool posted = false;      // a drain is queued or running; guarded by mutex
};
using GuardPtr = std::shared_ptr<DialogGuard>;

// Runs task(dialog) on the dialog's thread, in order with every other delivery of that
// dialog. Returns false (dropping the task) when the dialog is gone.
bool dispatch(const GuardPtr& guard, std::function<void(Dialog*)> task);

// Installs the event callback of `handle` for `dialog`; returns the guard.
GuardPtr attach(ViDialog* handle, Dialog* dialog);
// The destructor's half: after it no task reaches `dialog`; then clears the callback.
void detach(ViDialog* handle, const GuardPtr& guard);

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

#endif // VISINDIGO_AGENT_DIALOG_P_H
