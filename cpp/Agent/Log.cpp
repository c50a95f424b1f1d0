// SPDX-License-Identifier: MIT
#include "Log_p.h"

#include <visindigo_agent.h>

#include <QtCore/QLoggingCategory>
#include <QtCore/QString>

#include <array>
#include <mutex>

namespace Visindigo::Agent::Internal {

namespace {

// Warnings and errors show by default; info and debug when a rule asks
// (QT_LOGGING_RULES="visindigo.agent.*.debug=true").
Q_LOGGING_CATEGORY(lcHttp, "visindigo.agent.http", QtWarningMsg)
Q_LOGGING_CATEGORY(lcStream, "visindigo.agent.stream", QtWarningMsg)
Q_LOGGING_CATEGORY(lcMcp, "visindigo.agent.mcp", QtWarningMsg)
Q_LOGGING_CATEGORY(lcRun, "visindigo.agent.run", QtWarningMsg)

using CategoryFunction = const QLoggingCategory& (*)();
const std::array<CategoryFunction, 4> kCategories = {lcHttp, lcStream, lcMcp, lcRun};

QLoggingCategory::CategoryFilter previousFilter = nullptr;

// The core's level for what Qt lets through of `category`: its lowest enabled message type.
uint32_t levelOf(const QLoggingCategory& category)
{
    if (category.isDebugEnabled())
        return VI_LOG_TRACE; // Qt has no trace level: debug shows the core's trace lines too
    if (category.isInfoEnabled())
        return VI_LOG_INFO;
    if (category.isWarningEnabled())
        return VI_LOG_WARNING;
    if (category.isCriticalEnabled())
        return VI_LOG_ERROR;
    return VI_LOG_OFF;
}

// Qt calls the filter for every category when the rules change and for each new one: after
// Qt's own rules have set ours, the core learns their levels.
void filter(QLoggingCategory* category)
{
    if (previousFilter)
        previousFilter(category);
    for (CategoryFunction ours : kCategories) {
        if (&ours() == category) {
            const QByteArray name(category->categoryName());
            vi_set_log_level(name.constData(), size_t(name.size()), levelOf(*category));
        }
    }
}

// A line from the core, on the thread that logged it. A category's level is a threshold (the
// one levelOf tells the core): a line shows when its severity is within it, whatever Qt says
// of its own message type — Qt's rules are per type, so "visindigo.agent.run.debug=true" alone
// would leave the category's info off and drop the core's info lines that debug asked for.
// QMessageLogger with the category's name logs without asking the category again.
void onLog(void*, uint32_t severity, ViStr category, ViStr message)
{
    const QByteArray name(category.data, qsizetype(category.len));
    for (CategoryFunction ours : kCategories) {
        const QLoggingCategory& c = ours();
        if (name != c.categoryName())
            continue;
        if (severity == VI_LOG_OFF || severity > levelOf(c))
            return;
        const QString text = QString::fromUtf8(message.data, qsizetype(message.len));
        const QMessageLogger logger(nullptr, 0, nullptr, c.categoryName());
        switch (severity) {
        case VI_LOG_ERROR:
            logger.critical().noquote() << text;
            break;
        case VI_LOG_WARNING:
            logger.warning().noquote() << text;
            break;
        case VI_LOG_INFO:
            logger.info().noquote() << text;
            break;
        default:
            logger.debug().noquote() << text;
            break;
        }
        return;
    }
}

} // namespace

void useQtLogging()
{
    static std::once_flag once;
    std::call_once(once, [] {
        vi_set_log_callback(onLog, nullptr, nullptr);
        // Made before the filter is installed: Qt calls it with its registry locked, where
        // making a category (registering it) would wait for that lock.
        for (CategoryFunction ours : kCategories)
            ours();
        // Applies the filter (and so the current rules) to every category at once.
        previousFilter = QLoggingCategory::installFilter(filter);
    });
}

} // namespace Visindigo::Agent::Internal
