// SPDX-License-Identifier: MIT
//
// Internal (not installed): the core's log as Qt logging categories (in Log.cpp, SPEC §I.5.1).
// visindigo.agent.http, .stream, .mcp and .run are QLoggingCategory objects; the core is told
// each category's lowest enabled level whenever Qt's filter rules change (QT_LOGGING_RULES,
// QLoggingCategory::setFilterRules, an installed filter), so a level that is off costs the
// core one cached check per log site and nothing here.
#ifndef VISINDIGO_AGENT_LOG_P_H
#define VISINDIGO_AGENT_LOG_P_H

namespace Visindigo::Agent::Internal {

// Installs the bridge once per process (the Center's constructor calls it); every later call
// returns at once.
void useQtLogging();

} // namespace Visindigo::Agent::Internal

#endif // VISINDIGO_AGENT_LOG_P_H
