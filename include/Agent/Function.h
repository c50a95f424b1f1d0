// SPDX-License-Identifier: MIT
//
/// \class Visindigo::Agent::Function
/// A tool the model may call, implemented by the application.
///
/// Subclass it and register an instance with Center::addFunction() or
/// Dialog::addFunction(); both take ownership (the library deletes the object once it is
/// unregistered and no run uses it any more — possibly on another thread, so a Function
/// must not rely on being destroyed on the thread that created it).
///
/// Threads: a call made by a dialog's run is delivered on that dialog's thread, in order
/// with the dialog's signals, through invokeAsync(). The default invokeAsync() calls
/// invoke() and hands its result to the callback at once. Override invokeAsync() to answer
/// later (from any thread): call the callback exactly once; further calls are ignored, and
/// dropping the callback without calling it answers the model with an error. A C++
/// exception thrown by invoke()/invokeAsync() becomes the result {"error":"<what()>"} and
/// the run goes on.
#ifndef VISINDIGO_AGENT_FUNCTION_H
#define VISINDIGO_AGENT_FUNCTION_H

#include "Export.h"
#include <Utility/JsonConfig.h>

#include <QtCore/QString>

#include <functional>

namespace Visindigo::Agent {

class VISINDIGO_AGENT_EXPORT Function
{
public:
    virtual ~Function();

    /// The tool name sent to the model; must match ^[a-zA-Z0-9_-]{1,64}$ to be offered.
    virtual QString getId() const = 0;
    /// A human-readable name (not sent to the model).
    virtual QString getName() const = 0;
    /// What the function does, sent to the model so that it knows when to call it.
    virtual QString getDescription() const = 0;
    /// A JSON Schema object describing the arguments.
    virtual Visindigo::Utility::JsonConfig getParameterSchema() const = 0;
    /// Runs the function synchronously and returns its result.
    virtual Visindigo::Utility::JsonConfig invoke(const Visindigo::Utility::JsonConfig& arguments) = 0;
    /// Runs the function and reports the result through callback (default: invoke() then
    /// the callback, synchronously).
    virtual void invokeAsync(const Visindigo::Utility::JsonConfig& arguments,
                             std::function<void(const Visindigo::Utility::JsonConfig&)> callback);
};

} // namespace Visindigo::Agent

#endif // VISINDIGO_AGENT_FUNCTION_H
