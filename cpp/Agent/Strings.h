// SPDX-License-Identifier: MIT
//
// Internal (not installed): converting strings and JSON between Qt and the C ABI.
//
//   Utf8 u(qstring);           u.data() / u.size() — UTF-8 bytes for a (data, len) argument
//                              (lone surrogates as U+FFFD, cpp/Internal/Utf16.h)
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
// Every JSON text going to the C ABI is made by compactJson/valueJson/jsonToUtf8: Qt writes a
// lone surrogate of a QString as a "\ud800" escape, which strict parsers (serde_json) reject;
// Utf16::repairSurrogateEscapes makes those "\ufffd" (the one rule: cpp/Internal/Utf16.h).
//
// Every function here is header-only and internal to libVisindigoAgent.
#ifndef VISINDIGO_AGENT_INTERNAL_STRINGS_H
#define VISINDIGO_AGENT_INTERNAL_STRINGS_H

#include "../Internal/Utf16.h"

#include <Utility/JsonConfig.h>
#include <visindigo_agent.h>

#include <QtCore/QByteArray>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QMap>
#include <QtCore/QString>
#include <QtCore/QStringList>

#include <cstring>

namespace Visindigo::Agent::Internal {

// UTF-8 bytes of a QString (see toUtf8), alive as long as the holder.
class Utf8
{
public:
    explicit Utf8(const QString& s) : m_bytes(Visindigo::Internal::Utf16::utf8(s)) {}
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
    // QString::fromUtf8 drops a byte order mark at the start; the core's text keeps every
    // character (a U+FEFF a model wrote at the start of a delta, of a message).
    if (v.len >= 3 && std::memcmp(v.data, "\xEF\xBB\xBF", 3) == 0)
        return QChar(0xFEFF) + toQString(ViStr{v.data + 3, v.len - 3});
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
    return json.toUtf8(QJsonDocument::Compact); // repairs the escapes itself
#else
    Visindigo::Utility::JsonConfig copy = json;
    QByteArray text = copy.toString(QJsonDocument::Compact).toUtf8();
    Visindigo::Internal::Utf16::repairSurrogateEscapes(text);
    return text;
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
    QByteArray text = doc.toJson(QJsonDocument::Compact);
    Visindigo::Internal::Utf16::repairSurrogateEscapes(text);
    return text;
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
