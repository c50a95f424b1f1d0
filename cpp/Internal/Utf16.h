// SPDX-License-Identifier: MIT
//
// Internal (not installed): the one rule for UTF-16 that the Rust core cannot take.
//
// A QString may hold a lone surrogate; UTF-8 cannot, and the core (serde_json) rejects the
// "\ud800"-style escape Qt writes for one. Everywhere a string or JSON text leaves Qt for the
// core, each lone surrogate becomes U+FFFD (what QString::toUtf8() does with '?' instead),
// and a valid pair is kept:
//
//   withoutLoneSurrogates(s)      the string, lone surrogates as U+FFFD (s itself, shared,
//                                 when it has none: one vectorised scan)
//   utf8(s)                       its UTF-8 bytes under the same rule
//   repairSurrogateEscapes(json)  in JSON text, in place: each "\uXXXX" escape of a lone
//                                 surrogate becomes "\ufffd"; an escaped high surrogate
//                                 followed by an escaped low one is a pair and stays
//
// Used by the Agent layer (Strings.h) and by our JsonConfig alike; header-only, so the Agent
// layer keeps it when it is built against a host's own JsonConfig. One test table:
// cpp-tests/tst_utf16.cpp.
#ifndef VISINDIGO_AGENT_INTERNAL_UTF16_H
#define VISINDIGO_AGENT_INTERNAL_UTF16_H

#include <QtCore/QByteArray>
#include <QtCore/QString>

#include <cstring>

namespace Visindigo::Internal::Utf16 {

namespace Detail {
// Whether any code unit is a surrogate. No early exit, so the compiler vectorises it: this
// is the whole cost of withoutLoneSurrogates for ordinary text.
inline bool anySurrogate(const char16_t* c, qsizetype n)
{
    unsigned found = 0;
    for (qsizetype i = 0; i < n; ++i)
        found |= unsigned((c[i] & 0xF800) == 0xD800);
    return found != 0;
}

// The index of the first lone surrogate at or after `from`, or -1.
inline qsizetype firstLoneSurrogate(const char16_t* c, qsizetype n, qsizetype from)
{
    for (qsizetype i = from; i < n; ++i) {
        if ((c[i] & 0xF800) != 0xD800)
            continue;
        if (c[i] < 0xDC00 && i + 1 < n && (c[i + 1] & 0xFC00) == 0xDC00) {
            ++i; // a valid pair
            continue;
        }
        return i;
    }
    return -1;
}

inline int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

// The code unit of a "\uXXXX" escape at data[i] (data[i] == '\\'), or -1.
inline int escapedUnit(const char* data, qsizetype size, qsizetype i)
{
    if (i + 6 > size || data[i + 1] != 'u')
        return -1;
    int unit = 0;
    for (qsizetype k = i + 2; k < i + 6; ++k) {
        const int h = hexValue(data[k]);
        if (h < 0)
            return -1;
        unit = unit * 16 + h;
    }
    return unit;
}
} // namespace Detail

inline QString withoutLoneSurrogates(const QString& s)
{
    const auto* c = reinterpret_cast<const char16_t*>(s.constData());
    const qsizetype n = s.size();
    if (!Detail::anySurrogate(c, n))
        return s;
    qsizetype i = Detail::firstLoneSurrogate(c, n, 0);
    if (i < 0)
        return s;
    QString fixed = s;
    QChar* f = fixed.data();
    while (i >= 0) {
        f[i] = QChar(QChar::ReplacementCharacter);
        i = Detail::firstLoneSurrogate(c, n, i + 1);
    }
    return fixed;
}

inline QByteArray utf8(const QString& s)
{
    return withoutLoneSurrogates(s).toUtf8();
}

// Escapes only occur inside strings, and every other escape is skipped whole (an escaped
// backslash included), so text that merely looks like an escape is left alone.
inline void repairSurrogateEscapes(QByteArray& json)
{
    if (!json.contains("\\u"))
        return;
    const qsizetype size = json.size();
    for (qsizetype i = 0; i + 1 < size; ++i) {
        if (json.at(i) != '\\')
            continue;
        const int unit = Detail::escapedUnit(json.constData(), size, i);
        if (unit < 0) {
            ++i; // the escaped character, whatever it is
            continue;
        }
        if (unit >= 0xD800 && unit <= 0xDBFF && i + 6 < size && json.at(i + 6) == '\\') {
            const int next = Detail::escapedUnit(json.constData(), size, i + 6);
            if (next >= 0xDC00 && next <= 0xDFFF) {
                i += 11; // a valid pair
                continue;
            }
        }
        if (unit >= 0xD800 && unit <= 0xDFFF)
            std::memcpy(json.data() + i + 2, "fffd", 4); // detaches once, when shared
        i += 5;
    }
}

} // namespace Visindigo::Internal::Utf16

#endif // VISINDIGO_AGENT_INTERNAL_UTF16_H
