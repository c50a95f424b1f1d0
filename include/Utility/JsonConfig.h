// SPDX-License-Identifier: MIT
//
/// \class Visindigo::Utility::JsonConfig
/// The Qt-side JSON holder the Agent API passes around.
///
/// A JsonConfig holds one JSON document whose root is an object or an array (a
/// default-constructed JsonConfig holds an empty object). Values inside it are
/// addressed by dot paths:
///
///     "a.b.0.c"   →  root["a"]["b"][0]["c"]
///     ""          →  the root itself
///
/// Path rules (the same for every member):
/// * Segments are split at every '.'; a segment is used literally (so "a..b" has an
///   empty middle segment, and keys that contain '.' cannot be addressed).
/// * On an object, every segment is a key ("0" is the key "0").
/// * On an array, a segment indexes the array only when it is all ASCII digits;
///   any other segment (or an index past the end) does not exist.
/// * On a string, number, bool or null, no further segment exists.
///
/// Getters never fail: a missing path, or a value of another type, reads as the
/// type's empty value according to Qt's own QJsonValue conversions (toInteger(),
/// toDouble(), toBool(), toString(), toObject(), toArray()). `ok`, when given, is
/// set to whether the path exists (contains(key)), as the native module does — it
/// does not say whether the value had the requested type; use the is*() predicates
/// for that.
///
/// Setters create what is missing: an intermediate that does not exist (or is not a
/// container) becomes an array when the NEXT segment is numeric, otherwise an object;
/// an existing object takes any segment as a key; an existing array that meets a
/// non-numeric segment is replaced by an object. Setting an array index past the end
/// pads the array with nulls. To keep every input harmless, a set whose path has
/// more than MaxPathDepth segments, or that would pad an array with more than
/// MaxArrayPadding nulls, is ignored. setValue("", v) replaces the root when v is an
/// object or an array and is ignored otherwise (the root is always a container).
///
/// Implementation choice: the class holds the root as a QJsonValue (a handle to Qt's
/// implicitly shared JSON container, so copies are O(1) and independent, copy-on-write)
/// and, next to it, an optional shared "source": the UTF-8 text the document was built
/// from, kept while the document is unmodified and the text is known to be valid JSON
/// (checked by a single-pass validator that accepts exactly what QJsonDocument accepts).
/// While a source is held the QJsonValue tree is built lazily, on the first structured
/// access (getters, keys, predicates, setters…), once per source (std::call_once: const
/// access from several threads stays safe, and copies share the parse); any mutation
/// first takes the parsed root and drops the source. Whole-document writes of an unparsed
/// document (toUtf8/toString in Compact format) return the text itself when it is already
/// compact, strict JSON — its object keys then keep the text's order instead of Qt's
/// sorted order (the JSON is the same). A set/remove rebuilds only the containers on the
/// modified path: each is taken out of its parent while it is modified, so it is
/// detached (copied, one level deep) only when another JsonConfig really shares it. The
/// object layout is part of the ABI: a future data member needs a new class version.
///
/// JsonConfig is reentrant, not thread-safe: distinct objects (even copies sharing
/// data) may be used from different threads; one object needs external locking for
/// writes. Const members may be called on one object from several threads at once
/// (the lazy parse is guarded).
#ifndef VISINDIGO_UTILITY_JSONCONFIG_H
#define VISINDIGO_UTILITY_JSONCONFIG_H

#include "../Agent/Export.h"

#include <QtCore/QByteArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonValue>
#include <QtCore/QList>
#include <QtCore/QString>
#include <QtCore/QStringList>
#include <QtCore/QVariant>

#include <memory>

namespace Visindigo::Utility {

class VISINDIGO_AGENT_EXPORT JsonConfig
{
public:
    // ---- construction -------------------------------------------------------------

    /// Parses jsonStr; on a parse error (or a non-container document) the result is
    /// an empty object, and the error is in *error when error is not null.
    static JsonConfig fromJson(const QString& jsonStr, QJsonParseError* error = nullptr);

    /// An empty object.
    JsonConfig();
    /// From a QVariant holding a JsonConfig, QJsonObject, QJsonArray, QJsonDocument,
    /// QJsonValue (object or array), QVariantMap, QVariantHash, QVariantList,
    /// QStringList, or a QString / QByteArray of JSON text. Anything else (or JSON
    /// text that does not parse) gives an empty object.
    JsonConfig(const QVariant& variant);
    /// Parses JSON text (errors give an empty object; use fromJson() or parse() to
    /// see the error).
    JsonConfig(const QString& jsonStr);
    /// The document's object or array; a null document gives an empty object.
    JsonConfig(const QJsonDocument& json);
    /// A copy (shares the document until either side changes; O(1)).
    JsonConfig(const JsonConfig& other);
    /// Takes other's document; other holds an empty object.
    JsonConfig(JsonConfig&& other) noexcept;
    /// Releases the document.
    ~JsonConfig();
    /// Becomes a copy of other (O(1), shared until changed).
    JsonConfig& operator=(const JsonConfig& other);
    /// Takes other's document; other holds an empty object.
    JsonConfig& operator=(JsonConfig&& other) noexcept;

    /// Exchanges the two documents.
    void swap(JsonConfig& other) noexcept
    {
        m_root.swap(other.m_root);
        m_source.swap(other.m_source);
    }

    // ---- whole document -----------------------------------------------------------

    /// Object keys at key, sorted as QJsonObject sorts them; for an array, its indexes
    /// "0", "1", … (as the native module does); otherwise an empty list.
    QStringList keys(const QString& key = QString()) const;
    /// Removes the value at key (an array element is removed, the following ones move
    /// up). Returns whether something was removed. The root cannot be removed
    /// (remove("") returns false; use clear()).
    bool remove(const QString& key);
    /// Replaces the whole document with the parsed text. On error the JsonConfig is
    /// left as an empty object and the error is returned.
    QJsonParseError parse(const QString& jsonStr);
    /// The document as JSON text (UTF-8 decoded).
    QString toString(QJsonDocument::JsonFormat format = QJsonDocument::Indented) const;

    // ---- getters: (key = "" → root, ok → whether key exists) ------------------------

    /// The value at key; QJsonValue::Undefined when missing.
    QJsonValue getValue(const QString& key = QString(), bool* ok = nullptr) const;
    /// A number with an integral value within qint64, else 0 (QJsonValue::toInteger).
    qint64 getInt(const QString& key = QString(), bool* ok = nullptr) const;
    /// The string at key; anything else gives "".
    QString getString(const QString& key = QString(), bool* ok = nullptr) const;
    /// The boolean at key; anything else gives false.
    bool getBool(const QString& key = QString(), bool* ok = nullptr) const;
    /// The number at key; anything else gives 0.0.
    double getDouble(const QString& key = QString(), bool* ok = nullptr) const;
    /// The object at key (shared, not copied); anything else gives an empty object.
    JsonConfig getObject(const QString& key = QString(), bool* ok = nullptr) const;
    /// The array at key, one JsonConfig per element: an object or array element keeps
    /// its content, any other element becomes an empty object. Not an array → empty list.
    QList<JsonConfig> getArray(const QString& key = QString(), bool* ok = nullptr) const;
    /// Array elements converted one by one (a wrongly-typed element reads as ""/0/0.0
    /// and keeps its position). Not an array → empty list.
    QStringList getStringList(const QString& key = QString(), bool* ok = nullptr) const;
    /// Array elements as integers, converted like getStringList() converts strings.
    QList<qint64> getIntArray(const QString& key = QString(), bool* ok = nullptr) const;
    /// Array elements as numbers, converted like getStringList() converts strings.
    QList<double> getDoubleArray(const QString& key = QString(), bool* ok = nullptr) const;

    /// Whether key exists (contains("") is always true: the root always exists).
    bool contains(const QString& key) const;
    /// Back to an empty object.
    void clear();

    // ---- setters (create intermediates; see the rules at the top) ------------------

    /// Stores value at key.
    void setValue(const QString& key, const QJsonValue& value);
    /// Stores an integer at key.
    void setInt(const QString& key, qint64 value);
    /// Stores a string at key.
    void setString(const QString& key, const QString& value);
    /// Stores a boolean at key.
    void setBool(const QString& key, bool value);
    /// Stores a number at key.
    void setDouble(const QString& key, double value);
    /// Stores value's root (object or array) at key.
    void setObject(const QString& key, const JsonConfig& value);
    /// An array of the elements' roots.
    void setArray(const QString& key, const QList<JsonConfig>& value);
    /// An array of strings (same as setStringList).
    void setArray(const QString& key, const QStringList& value);
    /// Stores an array of strings at key.
    void setStringList(const QString& key, const QStringList& value);
    /// Stores an array of integers at key.
    void setIntArray(const QString& key, const QList<qint64>& value);
    /// Stores an array of numbers at key.
    void setDoubleArray(const QString& key, const QList<double>& value);

    // ---- predicates (false when key is missing) -------------------------------------

    /// An empty object or an empty array.
    bool isEmpty(const QString& key = QString()) const;
    /// An explicit JSON null.
    bool isNull(const QString& key = QString()) const;
    /// An object.
    bool isObject(const QString& key = QString()) const;
    /// An array.
    bool isArray(const QString& key = QString()) const;
    /// A string.
    bool isString(const QString& key = QString()) const;
    /// A boolean.
    bool isBool(const QString& key = QString()) const;
    /// A number whose value is integral and within qint64 (1.0 counts, 1.5 does not).
    bool isInt(const QString& key = QString()) const;
    /// Any number.
    bool isDouble(const QString& key = QString()) const;

    // =================================================================================
    // Extensions — NOT part of the native Visindigo API. Used by the rest of the Qt
    // layer; an application that may run against the native module must not use them.
    // =================================================================================

    /// Extension: the deepest key path a setter follows (a limit that keeps hostile keys
    /// harmless, see the setters).
    static constexpr qsizetype MaxPathDepth = 512;
    /// Extension: how far past an array's end a setter pads with nulls.
    static constexpr qsizetype MaxArrayPadding = qsizetype(1) << 20;

    /// Extension: resolves the ambiguity between the QString and QVariant constructors
    /// for a string literal. The text is UTF-8 JSON, parsed like JsonConfig(QString).
    JsonConfig(const char* jsonUtf8);
    /// Extension: the root value (always an object or an array). Shares, never copies.
    QJsonValue root() const;
    /// Extension: wraps an object or array value (shared, not copied); any other
    /// value gives an empty object.
    static JsonConfig fromValue(const QJsonValue& value);
    /// Extension: parses UTF-8 JSON text without a UTF-16 round trip (the form the C
    /// ABI exchanges). Same error behaviour as fromJson().
    static JsonConfig fromUtf8(const QByteArray& jsonUtf8, QJsonParseError* error = nullptr);
    /// Extension: the document as UTF-8 JSON text (compact by default), without the
    /// UTF-16 round trip of toString(). Unlike toString(), the text is always valid for
    /// strict parsers (serde_json): a lone UTF-16 surrogate in a key or string, which Qt
    /// writes as an escaped surrogate, is written as U+FFFD instead.
    QByteArray toUtf8(QJsonDocument::JsonFormat format = QJsonDocument::Compact) const;
    /// Extension: the UTF-8 text this document was parsed from, while the document is
    /// unmodified since (a null QByteArray otherwise, or when it was not built from text).
    /// The text is valid JSON as QJsonDocument reads it; *strict, when given, tells
    /// whether it is also strict RFC 8259 JSON without lone surrogate escapes (what
    /// serde_json accepts, duplicate keys aside).
    QByteArray sourceUtf8(bool* strict = nullptr) const;

private:
    struct Source; ///< the kept text and its lazily parsed root (JsonConfig.cpp)

    /// The root: m_root, or the source's lazily parsed one.
    const QJsonValue& rootRef() const;
    /// Before a mutation: takes the parsed root into m_root and drops the source.
    void dropSource();
    /// Replaces the document with parsed UTF-8 text (validator first, Qt for errors).
    void assignUtf8(const QByteArray& jsonUtf8, QJsonParseError* error);
    /// The same for UTF-16 text, as its toUtf8() image; large texts are checked on a
    /// second thread while this one converts.
    void assignText(const QString& json, QJsonParseError* error);
    /// Keeps valid text as the source; otherwise Qt's parser gives the result and error.
    void assignChecked(const QByteArray& jsonUtf8, bool valid, bool strict, bool compact, QJsonParseError* error);

    QJsonValue m_root; ///< the root when m_source is null
    std::shared_ptr<Source> m_source; ///< shared by copies; never modified once parsed
};

} // namespace Visindigo::Utility

#endif // VISINDIGO_UTILITY_JSONCONFIG_H
