// SPDX-License-Identifier: MIT
//
// The reference JsonConfig is held to: QJsonDocument. disagreement(text) says how JsonConfig's
// reading of `text` differs from Qt's ("" when it does not) — the error and its offset, the
// content, whether valid text is kept as the lazily parsed source, and the "strict" verdict
// of UTF-8 and UTF-16 input alike. Shared by tst_jsonconfig (corpus and mutations) and the
// libFuzzer target fuzz/cpp/jsonconfig.cpp, so both hold the same line.
#ifndef VI_TESTS_JSONCONFIG_REFERENCE_H
#define VI_TESTS_JSONCONFIG_REFERENCE_H

#include <Utility/JsonConfig.h>

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QString>

namespace JsonConfigReference {

using Visindigo::Utility::JsonConfig;

// The one place JsonConfig reads differently from Qt, on purpose: QJsonDocument drops a raw
// U+FEFF that starts a string or key (one: a second one is kept); JsonConfig keeps it. Whether
// `ours` is `qt` with such a character in front of some strings and keys. Two keys that Qt
// read as one (then their values cannot be compared) count as the same.
inline bool sameUpToKeptBoms(const QJsonValue& ours, const QJsonValue& qt)
{
    const QChar bom(0xFEFF);
    if (ours.isString() && qt.isString())
        return ours == qt || ours.toString() == bom + qt.toString();
    if (ours.isArray() && qt.isArray()) {
        const QJsonArray a = ours.toArray();
        const QJsonArray b = qt.toArray();
        if (a.size() != b.size())
            return false;
        for (qsizetype i = 0; i < a.size(); ++i)
            if (!sameUpToKeptBoms(a[i], b[i]))
                return false;
        return true;
    }
    if (ours.isObject() && qt.isObject()) {
        const QJsonObject a = ours.toObject();
        const QJsonObject b = qt.toObject();
        if (a.size() != b.size())
            return a.size() > b.size(); // keys Qt merged
        for (auto it = a.begin(); it != a.end(); ++it) {
            const QString key = b.contains(it.key()) ? it.key() : it.key().startsWith(bom) ? it.key().mid(1) : QString();
            if (!b.contains(key) || !sameUpToKeptBoms(it.value(), b.value(key)))
                return false;
        }
        return true;
    }
    return ours == qt;
}

// Whether `config` (read with `ourError`) holds what QJsonDocument makes of `text`: same
// error and offset, the same content when valid (up to a string's leading raw U+FEFF, see
// above), and the text kept as source iff Qt accepts it (for a container root without a
// byte order mark: what the validator handles).
inline QString disagreementWith(const QByteArray& text, const JsonConfig& config, const QJsonParseError& ourError)
{
    QJsonParseError qtError;
    const QJsonDocument document = QJsonDocument::fromJson(text, &qtError);
    if (ourError.error != qtError.error)
        return QStringLiteral("error %1 vs Qt %2").arg(ourError.error).arg(qtError.error);
    if (qtError.error != QJsonParseError::NoError) {
        if (ourError.offset != qtError.offset)
            return QStringLiteral("offset %1 vs Qt %2").arg(ourError.offset).arg(qtError.offset);
        if (!config.sourceUtf8().isNull())
            return QStringLiteral("source kept for invalid text");
        return {};
    }
    const QJsonValue qtRoot = document.isArray() ? QJsonValue(document.array()) : QJsonValue(document.object());
    if (config.root() != qtRoot
        && !(text.contains(QByteArrayLiteral("\"\xEF\xBB\xBF")) && sameUpToKeptBoms(config.root(), qtRoot)))
        return QStringLiteral("content differs");
    qsizetype i = 0;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
        ++i;
    const bool handled = i < text.size() && (text[i] == '{' || text[i] == '[');
    if (handled && config.sourceUtf8() != text)
        return QStringLiteral("valid text not kept as source (validator rejected what Qt accepts)");
    return {};
}

// The same for UTF-16 text, read by parse(QString): the reference is Qt's reading of its
// toUtf8() image (what the native JsonConfig::parse does).
inline QString disagreementOfText(const QString& text)
{
    JsonConfig config;
    const QJsonParseError ourError = config.parse(text);
    const QByteArray image = text.toUtf8();
    QString problem = disagreementWith(image, config, ourError);
    bool strict = false;
    bool strictAsUtf8 = false;
    config.sourceUtf8(&strict);
    JsonConfig::fromUtf8(image).sourceUtf8(&strictAsUtf8);
    if (problem.isEmpty() && strict != strictAsUtf8)
        problem = QStringLiteral("strict %1, as UTF-8 %2").arg(strict).arg(strictAsUtf8);
    return problem.isEmpty() ? problem : QStringLiteral("as UTF-16: ") + problem;
}

// Whether JsonConfig reads `text` exactly as QJsonDocument does, as UTF-8 bytes
// (fromUtf8) and as the QString decoded from them (parse).
inline QString disagreement(const QByteArray& text)
{
    QJsonParseError ourError;
    const JsonConfig config = JsonConfig::fromUtf8(text, &ourError);
    const QString problem = disagreementWith(text, config, ourError);
    return problem.isEmpty() ? disagreementOfText(QString::fromUtf8(text)) : problem;
}

} // namespace JsonConfigReference

#endif // VI_TESTS_JSONCONFIG_REFERENCE_H
