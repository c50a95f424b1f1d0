// SPDX-License-Identifier: MIT
//
// Visindigo::Utility::JsonConfig — plain Qt code (see the header for the contract).
//
// Performance notes (this class is on the path of saving/loading multi-megabyte
// documents):
// * Reads walk the path on shared handles: no container is copied, and a
//   QStringView per segment means no QString is allocated per segment either.
// * Writes (set*/remove) walk the path once, taking each container on the path out
//   of its parent (the parent's slot is set to null) before modifying it. A
//   container held by nobody else therefore has a reference count of one while it
//   is modified and is changed in place; one that is shared with another JsonConfig
//   is detached by Qt — a one-level copy, whose nested containers stay shared. The
//   modified containers are then put back bottom-up. Cost: O(depth × log(width)),
//   independent of the document size.
#include "Utility/JsonConfig.h"

#include <QtCore/QHash>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonObject>
#include <QtCore/QMetaType>
#include <QtCore/QStringView>
#include <QtCore/QVarLengthArray>

#include <cstring>
#include <utility>

namespace Visindigo::Utility {

namespace {

using Segments = QVarLengthArray<QStringView, 8>;

// The path split at every '.'. An empty key has no segment (the root).
Segments splitPath(QStringView key)
{
    Segments segments;
    if (key.isEmpty())
        return segments;
    qsizetype start = 0;
    for (;;) {
        const qsizetype dot = key.indexOf(u'.', start);
        if (dot < 0) {
            segments.append(key.mid(start));
            return segments;
        }
        segments.append(key.mid(start, dot - start));
        start = dot + 1;
    }
}

// The array index a segment stands for: all ASCII digits, at most 18 of them (so it
// cannot overflow). Anything else is -1 ("not an index").
qsizetype parseIndex(QStringView segment)
{
    if (segment.isEmpty() || segment.size() > 18)
        return -1;
    qint64 value = 0;
    for (const QChar c : segment) {
        const char16_t u = c.unicode();
        if (u < u'0' || u > u'9')
            return -1;
        value = value * 10 + (u - u'0');
    }
    return qsizetype(value);
}

QJsonValue emptyObject()
{
    return QJsonValue(QJsonObject());
}

// The root invariant: always an object or an array.
QJsonValue containerOrEmpty(const QJsonValue& value)
{
    return (value.isObject() || value.isArray()) ? value : emptyObject();
}

QJsonValue rootOf(const QJsonDocument& document)
{
    if (document.isArray())
        return QJsonValue(document.array());
    if (document.isObject())
        return QJsonValue(document.object());
    return emptyObject();
}

QJsonValue parseUtf8(const QByteArray& text, QJsonParseError* error)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(text, &parseError);
    if (error)
        *error = parseError;
    if (parseError.error != QJsonParseError::NoError)
        return emptyObject();
    return rootOf(document);
}

// Read-only walk. Returns whether the path exists; *out receives the value (shared).
bool lookup(const QJsonValue& root, QStringView key, QJsonValue* out)
{
    QJsonValue current = root;
    for (const QStringView segment : splitPath(key)) {
        if (current.isObject()) {
            const QJsonObject object = current.toObject();
            const auto it = object.constFind(segment);
            if (it == object.constEnd())
                return false;
            current = it.value();
        } else if (current.isArray()) {
            const QJsonArray array = current.toArray();
            const qsizetype index = parseIndex(segment);
            if (index < 0 || index >= array.size())
                return false;
            current = array.at(index);
        } else {
            return false;
        }
    }
    if (out)
        *out = std::move(current);
    return true;
}

QJsonValue valueAt(const QJsonValue& root, const QString& key, bool* ok)
{
    QJsonValue value(QJsonValue::Undefined);
    const bool found = lookup(root, key, &value);
    if (ok)
        *ok = found;
    return found ? value : QJsonValue(QJsonValue::Undefined);
}

// How a setter treats the container it meets for a segment.
enum class Slot { Object, Array };

Slot slotFor(const QJsonValue& node, qsizetype index)
{
    if (node.isObject())
        return Slot::Object;
    if (index >= 0)
        return Slot::Array; // an existing array, or a new one for a numeric segment
    return Slot::Object;    // a new object (replacing a scalar or an array)
}

// One container on a path being modified. Only one of object/array is used.
struct Frame
{
    QJsonObject object;
    QJsonArray array;
    QStringView segment;
    qsizetype index = -1;
    Slot slot = Slot::Object;

    // Takes the container out of `node` (which the caller then drops), so that this
    // frame holds the only reference the path had.
    void adopt(const QJsonValue& node)
    {
        if (slot == Slot::Object) {
            if (node.isObject())
                object = node.toObject();
        } else if (node.isArray()) {
            array = node.toArray();
        }
    }

    // Removes the child at this frame's segment from the container, returning it
    // (Undefined when absent). The slot is left holding null (or padding), so the
    // child's reference count drops by one.
    QJsonValue takeChild()
    {
        if (slot == Slot::Object) {
            auto it = object.find(segment);
            if (it == object.end())
                return QJsonValue(QJsonValue::Undefined);
            QJsonValue child = it.value();
            it.value() = QJsonValue();
            return child;
        }
        if (index < array.size()) {
            QJsonValue child = array.at(index);
            array.replace(index, QJsonValue());
            return child;
        }
        return QJsonValue(QJsonValue::Undefined);
    }

    // Stores `child` at this frame's segment and returns the container as a value.
    QJsonValue put(const QJsonValue& child)
    {
        if (slot == Slot::Object) {
            object.insert(segment, child);
            return QJsonValue(std::move(object));
        }
        while (array.size() < index)
            array.append(QJsonValue());
        if (index < array.size())
            array.replace(index, child);
        else
            array.append(child);
        return QJsonValue(std::move(array));
    }
};

using Frames = QVarLengthArray<Frame, 8>;

// Read-only pre-check of a set: depth and padding limits. Walks the existing part
// of the path; after the first missing segment every container is new (empty).
bool setIsAllowed(const QJsonValue& root, const Segments& segments)
{
    if (segments.size() > JsonConfig::MaxPathDepth)
        return false;
    QJsonValue node = root;
    bool exists = true;
    for (const QStringView segment : segments) {
        const qsizetype index = parseIndex(segment);
        const Slot slot = exists ? slotFor(node, index) : slotFor(QJsonValue(), index);
        if (slot == Slot::Object) {
            if (exists && node.isObject()) {
                const QJsonObject object = node.toObject();
                const auto it = object.constFind(segment);
                exists = it != object.constEnd();
                if (exists)
                    node = it.value();
            } else {
                exists = false;
            }
        } else {
            const qsizetype size = (exists && node.isArray()) ? node.toArray().size() : 0;
            if (index - size > JsonConfig::MaxArrayPadding)
                return false;
            if (exists && index < size)
                node = node.toArray().at(index);
            else
                exists = false;
        }
    }
    return true;
}

} // namespace

// ---- construction -------------------------------------------------------------------

JsonConfig JsonConfig::fromJson(const QString& jsonStr, QJsonParseError* error)
{
    return fromUtf8(jsonStr.toUtf8(), error);
}

JsonConfig JsonConfig::fromUtf8(const QByteArray& jsonUtf8, QJsonParseError* error)
{
    JsonConfig config;
    config.m_root = parseUtf8(jsonUtf8, error);
    return config;
}

JsonConfig JsonConfig::fromValue(const QJsonValue& value)
{
    JsonConfig config;
    config.m_root = containerOrEmpty(value);
    return config;
}

JsonConfig::JsonConfig()
    : m_root(emptyObject())
{
}

JsonConfig::JsonConfig(const QVariant& variant)
    : m_root(emptyObject())
{
    const QMetaType type = variant.metaType();
    if (type == QMetaType::fromType<JsonConfig>()) {
        m_root = containerOrEmpty(variant.value<JsonConfig>().m_root);
        return;
    }
    switch (type.id()) {
    case QMetaType::QJsonObject:
        m_root = QJsonValue(variant.toJsonObject());
        return;
    case QMetaType::QJsonArray:
        m_root = QJsonValue(variant.toJsonArray());
        return;
    case QMetaType::QJsonDocument:
        m_root = rootOf(variant.toJsonDocument());
        return;
    case QMetaType::QJsonValue:
        m_root = containerOrEmpty(variant.toJsonValue());
        return;
    case QMetaType::QString:
        m_root = parseUtf8(variant.toString().toUtf8(), nullptr);
        return;
    case QMetaType::QByteArray:
        m_root = parseUtf8(variant.toByteArray(), nullptr);
        return;
    case QMetaType::QVariantMap:
    case QMetaType::QVariantHash:
    case QMetaType::QVariantList:
    case QMetaType::QStringList:
        m_root = rootOf(QJsonDocument::fromVariant(variant));
        return;
    default:
        return;
    }
}

JsonConfig::JsonConfig(const QString& jsonStr)
    : m_root(parseUtf8(jsonStr.toUtf8(), nullptr))
{
}

JsonConfig::JsonConfig(const char* jsonUtf8)
    : m_root(jsonUtf8 ? parseUtf8(QByteArray(jsonUtf8), nullptr) : emptyObject())
{
}

JsonConfig::JsonConfig(const QJsonDocument& json)
    : m_root(rootOf(json))
{
}

JsonConfig::JsonConfig(const JsonConfig& other) = default;

// The moved-from object is left holding an empty object (a valid JsonConfig).
JsonConfig::JsonConfig(JsonConfig&& other) noexcept
    : m_root(emptyObject())
{
    m_root.swap(other.m_root);
}

JsonConfig::~JsonConfig() = default;

JsonConfig& JsonConfig::operator=(const JsonConfig& other) = default;

JsonConfig& JsonConfig::operator=(JsonConfig&& other) noexcept
{
    JsonConfig moved(std::move(other));
    swap(moved);
    return *this;
}

// ---- whole document -----------------------------------------------------------------

QStringList JsonConfig::keys(const QString& key) const
{
    QJsonValue value;
    if (!lookup(m_root, key, &value))
        return {};
    if (value.isObject())
        return value.toObject().keys();
    if (value.isArray()) {
        const qsizetype size = value.toArray().size();
        QStringList indexes;
        indexes.reserve(size);
        for (qsizetype i = 0; i < size; ++i)
            indexes.append(QString::number(i));
        return indexes;
    }
    return {};
}

bool JsonConfig::remove(const QString& key)
{
    const Segments segments = splitPath(key);
    if (segments.isEmpty() || !lookup(m_root, key, nullptr))
        return false;

    // The path exists, so every container on it is an object, or an array indexed by
    // a valid index: the frames below never create anything.
    Frames frames;
    QJsonValue node = std::exchange(m_root, QJsonValue());
    for (qsizetype i = 0; i < segments.size(); ++i) {
        Frame& frame = frames.emplace_back();
        frame.segment = segments[i];
        frame.index = parseIndex(frame.segment);
        frame.slot = node.isArray() ? Slot::Array : Slot::Object;
        frame.adopt(node);
        node = QJsonValue();
        if (i + 1 < segments.size())
            node = frame.takeChild();
    }

    Frame& leaf = frames.back();
    if (leaf.slot == Slot::Object)
        leaf.object.remove(leaf.segment);
    else
        leaf.array.removeAt(leaf.index);
    QJsonValue rebuilt = leaf.slot == Slot::Object ? QJsonValue(std::move(leaf.object))
                                                   : QJsonValue(std::move(leaf.array));
    for (qsizetype i = frames.size() - 2; i >= 0; --i)
        rebuilt = frames[i].put(rebuilt);
    m_root = std::move(rebuilt);
    return true;
}

QJsonParseError JsonConfig::parse(const QString& jsonStr)
{
    QJsonParseError error;
    m_root = parseUtf8(jsonStr.toUtf8(), &error);
    return error;
}

namespace {

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

// Qt writes a lone UTF-16 surrogate (a QString may hold one) as a backslash-u escape of
// the surrogate (U+D800..U+DFFF), and every valid pair as raw UTF-8; strict parsers
// (serde_json on the Rust side) reject such escapes. Rewrites each of them as the escape of
// U+FFFD, in place (same length). Escapes only occur inside strings, and an escaped
// backslash is skipped as a pair, so text that merely looks like an escape is left alone.
void replaceSurrogateEscapes(QByteArray& json)
{
    if (!json.contains("\\ud") && !json.contains("\\uD"))
        return;
    char* data = json.data();
    const qsizetype size = json.size();
    for (qsizetype i = 0; i + 1 < size; ++i) {
        if (data[i] != '\\')
            continue;
        if (data[i + 1] == 'u' && i + 5 < size) {
            const int h0 = hexValue(data[i + 2]);
            const int h1 = hexValue(data[i + 3]);
            if (h0 == 0xd && h1 >= 0x8 && hexValue(data[i + 4]) >= 0 && hexValue(data[i + 5]) >= 0)
                std::memcpy(data + i + 2, "fffd", 4);
            i += 5;
        } else {
            ++i; // the escaped character, whatever it is (an escaped backslash included)
        }
    }
}

} // namespace

QByteArray JsonConfig::toUtf8(QJsonDocument::JsonFormat format) const
{
    const QJsonDocument document = m_root.isArray() ? QJsonDocument(m_root.toArray())
                                                    : QJsonDocument(m_root.toObject());
    QByteArray json = document.toJson(format);
    replaceSurrogateEscapes(json);
    return json;
}

QString JsonConfig::toString(QJsonDocument::JsonFormat format) const
{
    return QString::fromUtf8(toUtf8(format));
}

// ---- getters ------------------------------------------------------------------------

QJsonValue JsonConfig::getValue(const QString& key, bool* ok) const
{
    return valueAt(m_root, key, ok);
}

qint64 JsonConfig::getInt(const QString& key, bool* ok) const
{
    return valueAt(m_root, key, ok).toInteger();
}

QString JsonConfig::getString(const QString& key, bool* ok) const
{
    return valueAt(m_root, key, ok).toString();
}

bool JsonConfig::getBool(const QString& key, bool* ok) const
{
    return valueAt(m_root, key, ok).toBool();
}

double JsonConfig::getDouble(const QString& key, bool* ok) const
{
    return valueAt(m_root, key, ok).toDouble();
}

JsonConfig JsonConfig::getObject(const QString& key, bool* ok) const
{
    const QJsonValue value = valueAt(m_root, key, ok);
    JsonConfig config;
    if (value.isObject())
        config.m_root = value;
    return config;
}

QList<JsonConfig> JsonConfig::getArray(const QString& key, bool* ok) const
{
    const QJsonArray array = valueAt(m_root, key, ok).toArray();
    QList<JsonConfig> list;
    list.reserve(array.size());
    for (const QJsonValue& element : array)
        list.append(fromValue(element));
    return list;
}

QStringList JsonConfig::getStringList(const QString& key, bool* ok) const
{
    const QJsonArray array = valueAt(m_root, key, ok).toArray();
    QStringList list;
    list.reserve(array.size());
    for (const QJsonValue& element : array)
        list.append(element.toString());
    return list;
}

QList<qint64> JsonConfig::getIntArray(const QString& key, bool* ok) const
{
    const QJsonArray array = valueAt(m_root, key, ok).toArray();
    QList<qint64> list;
    list.reserve(array.size());
    for (const QJsonValue& element : array)
        list.append(element.toInteger());
    return list;
}

QList<double> JsonConfig::getDoubleArray(const QString& key, bool* ok) const
{
    const QJsonArray array = valueAt(m_root, key, ok).toArray();
    QList<double> list;
    list.reserve(array.size());
    for (const QJsonValue& element : array)
        list.append(element.toDouble());
    return list;
}

bool JsonConfig::contains(const QString& key) const
{
    return lookup(m_root, key, nullptr);
}

void JsonConfig::clear()
{
    m_root = emptyObject();
}

// ---- setters ------------------------------------------------------------------------

void JsonConfig::setValue(const QString& key, const QJsonValue& newValue)
{
    // A handle of our own: `newValue` may live inside this very document (e.g.
    // setObject(k, *this) passes our m_root), which the walk below takes apart.
    const QJsonValue value = newValue;
    const Segments segments = splitPath(key);
    if (segments.isEmpty()) {
        if (value.isObject() || value.isArray())
            m_root = value;
        return;
    }
    if (!setIsAllowed(m_root, segments))
        return;

    Frames frames;
    QJsonValue node = std::exchange(m_root, QJsonValue());
    for (qsizetype i = 0; i < segments.size(); ++i) {
        Frame& frame = frames.emplace_back();
        frame.segment = segments[i];
        frame.index = parseIndex(frame.segment);
        frame.slot = slotFor(node, frame.index);
        frame.adopt(node);
        node = QJsonValue();
        if (i + 1 < segments.size())
            node = frame.takeChild();
    }

    QJsonValue rebuilt = value;
    for (qsizetype i = frames.size() - 1; i >= 0; --i)
        rebuilt = frames[i].put(rebuilt);
    m_root = std::move(rebuilt);
}

void JsonConfig::setInt(const QString& key, qint64 value)
{
    setValue(key, QJsonValue(value));
}

void JsonConfig::setString(const QString& key, const QString& value)
{
    setValue(key, QJsonValue(value));
}

void JsonConfig::setBool(const QString& key, bool value)
{
    setValue(key, QJsonValue(value));
}

void JsonConfig::setDouble(const QString& key, double value)
{
    setValue(key, QJsonValue(value));
}

void JsonConfig::setObject(const QString& key, const JsonConfig& value)
{
    setValue(key, value.m_root);
}

void JsonConfig::setArray(const QString& key, const QList<JsonConfig>& value)
{
    QJsonArray array;
    for (const JsonConfig& element : value)
        array.append(element.m_root);
    setValue(key, QJsonValue(std::move(array)));
}

void JsonConfig::setArray(const QString& key, const QStringList& value)
{
    setValue(key, QJsonValue(QJsonArray::fromStringList(value)));
}

void JsonConfig::setStringList(const QString& key, const QStringList& value)
{
    setArray(key, value);
}

void JsonConfig::setIntArray(const QString& key, const QList<qint64>& value)
{
    QJsonArray array;
    for (const qint64 element : value)
        array.append(QJsonValue(element));
    setValue(key, QJsonValue(std::move(array)));
}

void JsonConfig::setDoubleArray(const QString& key, const QList<double>& value)
{
    QJsonArray array;
    for (const double element : value)
        array.append(QJsonValue(element));
    setValue(key, QJsonValue(std::move(array)));
}

// ---- predicates ---------------------------------------------------------------------

bool JsonConfig::isEmpty(const QString& key) const
{
    QJsonValue value;
    if (!lookup(m_root, key, &value))
        return false;
    if (value.isObject())
        return value.toObject().isEmpty();
    if (value.isArray())
        return value.toArray().isEmpty();
    return false;
}

bool JsonConfig::isNull(const QString& key) const
{
    QJsonValue value(QJsonValue::Undefined);
    return lookup(m_root, key, &value) && value.isNull();
}

bool JsonConfig::isObject(const QString& key) const
{
    return getValue(key).isObject();
}

bool JsonConfig::isArray(const QString& key) const
{
    return getValue(key).isArray();
}

bool JsonConfig::isString(const QString& key) const
{
    return getValue(key).isString();
}

bool JsonConfig::isBool(const QString& key) const
{
    return getValue(key).isBool();
}

bool JsonConfig::isInt(const QString& key) const
{
    const QJsonValue value = getValue(key);
    // toInteger() returns its default unless the number is integral and fits qint64:
    // two different defaults agree only when the value itself was returned.
    return value.isDouble() && value.toInteger(0) == value.toInteger(1);
}

bool JsonConfig::isDouble(const QString& key) const
{
    return getValue(key).isDouble();
}

} // namespace Visindigo::Utility
