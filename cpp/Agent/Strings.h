// SPDX-License-Identifier: MIT
//
// Internal (not installed): converting strings and JSON between Qt and the C ABI.
//
//   validUtf16(qstring)        the string with every lone surrogate as U+FFFD (the same
//                              string, shared, when there is none)
//   Utf8 u(qstring);           u.data() / u.size() — UTF-8 bytes for a (data, len) argument
//   toUtf8(qstring)            the same bytes as a QByteArray (lone surrogates → U+FFFD)
//   toQString(ViStr)           a borrowed view → QString (copied)
//   takeQString(ViString*)     an owned string → QString; frees it (NULL → "")
//   takeUtf8(ViString*)        an owned string → QByteArray; frees it (NULL → empty)
//   takeJson(ViString*)        owned JSON text → JsonConfig; frees it (NULL/bad → {})
//   takeStringList(ViString*)  owned JSON array of strings → QStringList; frees it
//   takeStringMap(ViString*)   owned JSON object of strings → QMap; frees it
//   stringListJson(list)       QStringList → compact JSON array text (UTF-8)
//   stringMapJson(map)         QMap<QString,QString> → compact JSON object text (UTF-8)
//   objectJson(json, &out)     a JsonConfig whose root is an object → its compact UTF-8
//                              text in out, true; any other root → false
//   ownedJson(call)            helper for "status + ViString** out" calls, see below
//   compactJson(doc)           QJsonDocument → compact UTF-8 text the C ABI accepts
//   valueJson(value)           any QJsonValue (scalars too) → compact UTF-8 text
//
// Every JSON text going to the C ABI is made by compactJson/valueJson: Qt writes a lone
// surrogate of a QString as a "\ud800" escape, which strict parsers (serde_json) reject;
// those escapes are replaced by "\ufffd", as QString::toUtf8() does for plain strings.
//
// Every function here is header-only and internal to libVisindigoAgent.
#ifndef VISINDIGO_AGENT_INTERNAL_STRINGS_H
#define VISINDIGO_AGENT_INTERNAL_STRINGS_H

#include <Utility/JsonConfig.h>
#include <visindigo_agent.h>

#include <QtCore/QByteArray>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QMap>
#include <QtCore/QString>
#include <QtCore/QStringList>

namespace Visindigo::Agent::Internal {

namespace Detail {
// Whether any code unit is a surrogate. No early exit, so the compiler vectorises it: this
// is the whole cost of validUtf16 for ordinary text.
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
} // namespace Detail

// The string with every lone surrogate replaced by U+FFFD — what a round trip through the
// core's UTF-8 gives. Without one (the usual case) the string itself, shared, after one
// scan.
inline QString validUtf16(const QString& s)
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

// A QString's UTF-8 bytes with every lone surrogate as U+FFFD (QString::toUtf8() would
// write '?'), the same replacement the JSON helpers below make.
inline QByteArray toUtf8(const QString& s)
{
    const qsizetype n = s.size();
    const QChar* c = s.constData();
    for (qsizetype i = 0; i < n; ++i) {
        if (!c[i].isSurrogate())
            continue;
        if (c[i].isHighSurrogate() && i + 1 < n && c[i + 1].isLowSurrogate()) {
            ++i;
            continue;
        }
        // A lone surrogate: fix a copy.
        QString fixed = s;
        QChar* f = fixed.data();
        for (qsizetype k = i; k < n; ++k) {
            if (!f[k].isSurrogate())
                continue;
            if (f[k].isHighSurrogate() && k + 1 < n && f[k + 1].isLowSurrogate())
                ++k;
            else
                f[k] = QChar(QChar::ReplacementCharacter);
        }
        return fixed.toUtf8();
    }
    return s.toUtf8();
}

// UTF-8 bytes of a QString (see toUtf8), alive as long as the holder.
class Utf8
{
public:
    explicit Utf8(const QString& s) : m_bytes(Internal::toUtf8(s)) {}
    explicit Utf8(QByteArray bytes) : m_bytes(std::move(bytes)) {}
    const char* data() const { return m_bytes.constData(); }
    size_t size() const { return size_t(m_bytes.size()); }
    const QByteArray& bytes() const { return m_bytes; }

private:
    QByteArray m_bytes;
};

inline QString toQString(ViStr v)
{
    if (!v.data || v.len == 0)
        return QString();
    return QString::fromUtf8(v.data, qsizetype(v.len));
}

inline QByteArray takeUtf8(ViString* s)
{
    if (!s)
        return QByteArray();
    const ViStr v = vi_string_view(s);
    QByteArray out = (v.data && v.len) ? QByteArray(v.data, qsizetype(v.len)) : QByteArray();
    vi_string_free(s);
    return out;
}

inline QString takeQString(ViString* s)
{
    if (!s)
        return QString();
    const QString out = toQString(vi_string_view(s));
    vi_string_free(s);
    return out;
}

inline QStringList takeStringList(ViString* s)
{
    const QJsonArray array = QJsonDocument::fromJson(takeUtf8(s)).array();
    QStringList out;
    out.reserve(array.size());
    for (const QJsonValue& v : array)
        out.append(v.toString());
    return out;
}

inline QMap<QString, QString> takeStringMap(ViString* s)
{
    const QJsonObject object = QJsonDocument::fromJson(takeUtf8(s)).object();
    QMap<QString, QString> out;
    for (auto it = object.begin(); it != object.end(); ++it)
        out.insert(it.key(), it.value().toString());
    return out;
}

namespace Detail {
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

// The code unit of a "\uXXXX" escape starting at i (text[i] == '\\'), or -1.
inline int escapedUnit(const QByteArray& text, qsizetype i)
{
    if (i + 6 > text.size() || text[i + 1] != 'u')
        return -1;
    int unit = 0;
    for (qsizetype k = i + 2; k < i + 6; ++k) {
        const int h = hexValue(text[k]);
        if (h < 0)
            return -1;
        unit = unit * 16 + h;
    }
    return unit;
}
} // namespace Detail

// Replaces escapes of lone surrogates in JSON text by "\ufffd".
inline QByteArray replaceLoneSurrogateEscapes(QByteArray text)
{
    if (!text.contains("\\u"))
        return text;
    for (qsizetype i = 0; i + 1 < text.size(); ++i) {
        if (text[i] != '\\')
            continue;
        const int unit = Detail::escapedUnit(text, i);
        if (unit < 0) {
            ++i; // skip the escaped character ("\\", "\"", …)
            continue;
        }
        if (unit >= 0xD800 && unit <= 0xDBFF) {
            const int next = (i + 6 < text.size() && text[i + 6] == '\\') ? Detail::escapedUnit(text, i + 6) : -1;
            if (next >= 0xDC00 && next <= 0xDFFF) {
                i += 11; // a valid pair
                continue;
            }
            text.replace(i, 6, "\\ufffd");
        } else if (unit >= 0xDC00 && unit <= 0xDFFF) {
            text.replace(i, 6, "\\ufffd");
        }
        i += 5;
    }
    return text;
}

// ---- JsonConfig beyond its native API ----------------------------------------------------
// The only place the Agent layer reaches past the native JsonConfig members. Our own
// JsonConfig (VISINDIGO_AGENT_OWN_JSONCONFIG) has fast extensions for these; a host's own
// Visindigo JsonConfig gets the same results through its native API.

// A JsonConfig of UTF-8 JSON text.
inline Visindigo::Utility::JsonConfig jsonFromUtf8(const QByteArray& text)
{
#if VISINDIGO_AGENT_OWN_JSONCONFIG
    return Visindigo::Utility::JsonConfig::fromUtf8(text);
#else
    return Visindigo::Utility::JsonConfig(QString::fromUtf8(text));
#endif
}

// The document's root value (Undefined for an empty document).
inline QJsonValue jsonRoot(const Visindigo::Utility::JsonConfig& json)
{
#if VISINDIGO_AGENT_OWN_JSONCONFIG
    return json.root();
#else
    Visindigo::Utility::JsonConfig copy = json; // the native toString() is not const
    const QJsonDocument doc = QJsonDocument::fromJson(copy.toString(QJsonDocument::Compact).toUtf8());
    return doc.isArray() ? QJsonValue(doc.array()) : doc.isObject() ? QJsonValue(doc.object()) : QJsonValue();
#endif
}

// A JsonConfig holding an object or array value.
inline Visindigo::Utility::JsonConfig jsonFromValue(const QJsonValue& value)
{
#if VISINDIGO_AGENT_OWN_JSONCONFIG
    return Visindigo::Utility::JsonConfig::fromValue(value);
#else
    return Visindigo::Utility::JsonConfig(value.isArray() ? QJsonDocument(value.toArray()) : QJsonDocument(value.toObject()));
#endif
}

// The document's compact UTF-8 text for the core (lone surrogates as U+FFFD).
inline QByteArray jsonToUtf8(const Visindigo::Utility::JsonConfig& json)
{
#if VISINDIGO_AGENT_OWN_JSONCONFIG
    return replaceLoneSurrogateEscapes(json.toUtf8(QJsonDocument::Compact));
#else
    Visindigo::Utility::JsonConfig copy = json;
    return replaceLoneSurrogateEscapes(copy.toString(QJsonDocument::Compact).toUtf8());
#endif
}

// The strict JSON text the document was read from, when it still holds it ("" otherwise):
// it can go to the core as is, with no Qt tree built or written.
inline QByteArray jsonSourceText(const Visindigo::Utility::JsonConfig& json)
{
#if VISINDIGO_AGENT_OWN_JSONCONFIG
    bool strict = false;
    QByteArray source = json.sourceUtf8(&strict);
    return strict ? source : QByteArray();
#else
    Q_UNUSED(json);
    return QByteArray();
#endif
}

inline Visindigo::Utility::JsonConfig takeJson(ViString* s)
{
    return jsonFromUtf8(takeUtf8(s));
}

inline QByteArray compactJson(const QJsonDocument& doc)
{
    return replaceLoneSurrogateEscapes(doc.toJson(QJsonDocument::Compact));
}

// The JSON text of any value (a bare scalar included): wrap it in an array, then drop
// the brackets.
inline QByteArray valueJson(const QJsonValue& value)
{
    const QByteArray text = compactJson(QJsonDocument(QJsonArray{value}));
    return text.mid(1, text.size() - 2);
}

inline QByteArray stringListJson(const QStringList& list)
{
    return compactJson(QJsonDocument(QJsonArray::fromStringList(list)));
}

inline QByteArray stringMapJson(const QMap<QString, QString>& map)
{
    QJsonObject object;
    for (auto it = map.begin(); it != map.end(); ++it)
        object.insert(it.key(), it.value());
    return compactJson(QJsonDocument(object));
}

inline bool objectJson(const Visindigo::Utility::JsonConfig& json, QByteArray* out)
{
    const QJsonValue root = jsonRoot(json);
    if (!root.isObject())
        return false;
    *out = compactJson(QJsonDocument(root.toObject()));
    return true;
}

// For calls of the form `ViStatus f(..., ViString** out)`: runs the call with a local
// out-pointer and returns it (NULL on failure; the take* helpers accept NULL).
//     takeJson(ownedJson([&](ViString** o) { return vi_model_to_json(d, o); }))
template<typename F>
inline ViString* ownedJson(F&& call)
{
    ViString* out = nullptr;
    if (call(&out) != VI_STATUS_OK) {
        vi_string_free(out);
        return nullptr;
    }
    return out;
}

} // namespace Visindigo::Agent::Internal

#endif // VISINDIGO_AGENT_INTERNAL_STRINGS_H
