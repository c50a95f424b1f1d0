// SPDX-License-Identifier: MIT
//
// libFuzzer target for the hand-written JSON validator and lazy parser of
// cpp/Utility/JsonConfig.cpp (issue 14), differential against QJsonDocument:
// * every input reads as Qt reads it — the same error and offset, the same content, valid
//   text kept as the source, the same "strict" verdict from UTF-8 and UTF-16
//   (cpp-tests/JsonConfigReference.h, the check tst_jsonconfig makes on its corpus);
// * a valid document writes (toUtf8) text that Qt reads back to the same values, lone
//   surrogates aside, which toUtf8 writes as U+FFFD on purpose (and up to a string's leading
//   U+FEFF, which Qt drops);
// * every top-level key a dot path can address reads through getValue() as Qt has it;
// * a change to a copy leaves the original as it was (copy-on-write of the shared source).
// Built with clang's -fsanitize=fuzzer,address,undefined by tools/fuzz.sh.
#include "../../cpp-tests/JsonConfigReference.h"

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using Visindigo::Utility::JsonConfig;

namespace {

bool loneSurrogate(const QString& s)
{
    for (qsizetype i = 0; i < s.size(); ++i) {
        if (s[i].isHighSurrogate() && i + 1 < s.size() && s[i + 1].isLowSurrogate())
            ++i;
        else if (s[i].isSurrogate())
            return true;
    }
    return false;
}

// Whether any string or key holds a lone surrogate (toUtf8 writes those as U+FFFD).
bool hasLoneSurrogate(const QJsonValue& value)
{
    if (value.isString())
        return loneSurrogate(value.toString());
    if (value.isArray()) {
        for (const QJsonValue& element : value.toArray())
            if (hasLoneSurrogate(element))
                return true;
    }
    if (value.isObject()) {
        const QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it)
            if (loneSurrogate(it.key()) || hasLoneSurrogate(it.value()))
                return true;
    }
    return false;
}

[[noreturn]] void mismatch(const char* what, const QByteArray& input)
{
    std::fprintf(stderr, "jsonconfig: %s (input %s)\n", what, input.left(300).toPercentEncoding().constData());
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const QByteArray input(reinterpret_cast<const char*>(data), qsizetype(size));
    const QString problem = JsonConfigReference::disagreement(input);
    if (!problem.isEmpty())
        mismatch(problem.toUtf8().constData(), input);

    QJsonParseError error;
    const JsonConfig config = JsonConfig::fromUtf8(input, &error);
    if (error.error != QJsonParseError::NoError)
        return 0;

    // What it writes, Qt reads back (with U+FFFD where a lone surrogate was).
    const QByteArray written = config.toUtf8();
    QJsonParseError again;
    const QJsonDocument reread = QJsonDocument::fromJson(written, &again);
    if (again.error != QJsonParseError::NoError)
        mismatch("toUtf8() wrote text Qt rejects", input);
    const bool surrogates = hasLoneSurrogate(config.root());
    const QJsonValue rereadRoot = reread.isArray() ? QJsonValue(reread.array()) : QJsonValue(reread.object());
    // Qt drops a string's leading raw U+FEFF (JsonConfigReference.h).
    if (!surrogates && rereadRoot != config.root() && !JsonConfigReference::sameUpToKeptBoms(config.root(), rereadRoot))
        mismatch("toUtf8() changed the values", input);

    // Addressable top-level keys read as Qt has them.
    if (config.root().isObject()) {
        const QJsonObject object = config.root().toObject();
        for (auto it = object.begin(); it != object.end(); ++it) {
            if (it.key().isEmpty() || it.key().contains(QLatin1Char('.')))
                continue;
            if (config.getValue(it.key()) != it.value())
                mismatch("getValue() differs from Qt's value", input);
        }
    }

    // A copy's change stays in the copy.
    const QJsonValue before = config.root();
    JsonConfig copy = config;
    copy.setString(QStringLiteral("fuzz.changed"), QStringLiteral("x"));
    if (config.root() != before || config.toUtf8() != written)
        mismatch("a change to a copy reached the original", input);
    return 0;
}
