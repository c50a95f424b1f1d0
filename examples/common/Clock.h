// SPDX-License-Identifier: MIT
//
// The examples' built-in tool: the current local time, so that tool calls are visible.
#ifndef VI_EXAMPLES_CLOCK_H
#define VI_EXAMPLES_CLOCK_H

#include <Agent/Function.h>
#include <Utility/JsonConfig.h>

#include <QtCore/QDateTime>

class Clock : public Visindigo::Agent::Function
{
public:
    QString getId() const override { return QStringLiteral("get_current_time"); }
    QString getName() const override { return QStringLiteral("Clock"); }
    QString getDescription() const override
    {
        return QStringLiteral("Returns the current local date and time in ISO 8601.");
    }
    Visindigo::Utility::JsonConfig getParameterSchema() const override
    {
        return Visindigo::Utility::JsonConfig(QStringLiteral(R"({"type":"object","properties":{}})"));
    }
    Visindigo::Utility::JsonConfig invoke(const Visindigo::Utility::JsonConfig&) override
    {
        Visindigo::Utility::JsonConfig result;
        result.setString(QStringLiteral("now"), QDateTime::currentDateTime().toString(Qt::ISODate));
        return result;
    }
};

#endif // VI_EXAMPLES_CLOCK_H
