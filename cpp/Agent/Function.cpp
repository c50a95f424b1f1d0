// SPDX-License-Identifier: MIT
#include <Agent/Function.h>

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
