// SPDX-License-Identifier: MIT
//
// Internal (not installed): the bridge between a host Function and the core (in Function.cpp).
//
// A registered Function is owned by a FunctionOwner kept in a process-wide
// table keyed by the Function pointer (the ViFunction's user_data, so getFunction() can
// cast it back). The core's destroy callback drops the table's reference; a call in
// flight holds its own, so a Function removed while its call waits in a queue is deleted
// only after that call.
//
// A call is routed through the calling dialog's event-callback user_data (its `context`), so
// the Function runs on the dialog's thread in order with its signals (Dialog_p.h, dispatch).
#ifndef VISINDIGO_AGENT_FUNCTION_P_H
#define VISINDIGO_AGENT_FUNCTION_P_H

#include <visindigo_agent.h>

namespace Visindigo::Agent {

class Function;

namespace Internal {

// Wraps a Function (taking ownership) into a ViFunction ready to be registered; on
// failure the Function is deleted and nullptr returned.
ViFunction* makeFunction(Function* function);

} // namespace Internal

} // namespace Visindigo::Agent

#endif // VISINDIGO_AGENT_FUNCTION_P_H
