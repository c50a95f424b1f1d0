// SPDX-License-Identifier: MIT
//
// Shared helpers of the benchmark executables (not installed, not tests).
// Every executable prints one JSON object per measurement on stdout:
//   {"case": "...", "impl": "ours|qt|...", "seconds": s, ...extra}
// benches/run.py collects them and computes medians and ratios.
#ifndef VISINDIGO_AGENT_BENCH_COMMON_H
#define VISINDIGO_AGENT_BENCH_COMMON_H

#include <QtCore/QByteArray>
#include <QtCore/QFile>
#include <QtCore/QString>

#include <chrono>
#include <cstdio>
#include <string>

namespace bench {

inline double now()
{
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

inline long long wallNs()
{
    using namespace std::chrono;
    return duration_cast<nanoseconds>(system_clock::now().time_since_epoch()).count();
}

// Peak resident set of this process in KiB (VmHWM).
inline long long peakRssKiB()
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    const QList<QByteArray> lines = f.readAll().split('\n');
    for (const QByteArray& line : lines)
        if (line.startsWith("VmHWM:"))
            return line.mid(6).trimmed().split(' ').value(0).toLongLong();
    return -1;
}

// Keeps the optimiser from dropping a computed value.
template <typename T>
inline void keep(const T& value)
{
    asm volatile("" : : "g"(&value) : "memory");
}

inline void report(const char* caseName, const char* impl, double seconds, const std::string& extra = {})
{
    std::printf("{\"case\":\"%s\",\"impl\":\"%s\",\"seconds\":%.9f%s%s}\n", caseName, impl, seconds,
                extra.empty() ? "" : ",", extra.c_str());
    std::fflush(stdout);
}

} // namespace bench

#endif
