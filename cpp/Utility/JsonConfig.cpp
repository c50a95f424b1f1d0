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

#include "../Internal/Utf16.h"

#include <QtCore/QHash>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonObject>
#include <QtCore/QMetaType>
#include <QtCore/QStringView>
#include <QtCore/QVarLengthArray>

#include <QtCore/QtEndian>
#include <QtCore/qalgorithms.h>

#include <cstdint>
#include <cstring>
#include <mutex>
#include <system_error>
#include <thread>
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

// Qt's parser drops a raw U+FEFF at the start of a string value ("\xEF\xBB\xBFx" reads as
// "x") though it keeps one anywhere else and keeps the escape; the core reads the text as
// written. So a quote followed by a raw U+FEFF is given to Qt with the character escaped:
// after an opening quote that keeps it, inside a string (after an escaped quote) it reads
// the same either way.
QByteArray withLeadingBomsEscaped(const QByteArray& text)
{
    static const QByteArray quoteBom = QByteArrayLiteral("\"\xEF\xBB\xBF");
    if (!text.contains(quoteBom))
        return text;
    QByteArray escaped = text;
    return escaped.replace(quoteBom, QByteArrayLiteral("\"\\uFEFF"));
}

QJsonValue parseUtf8(const QByteArray& text, QJsonParseError* error)
{
    QJsonParseError parseError;
    const QByteArray escaped = withLeadingBomsEscaped(text);
    const QJsonDocument document = QJsonDocument::fromJson(escaped, &parseError);
    // The escapes change no verdict, but the error and its offset are Qt's reading of the
    // text as given (the fuzz target fuzz/cpp/jsonconfig.cpp found them reported for the
    // escaped text, an offset three bytes late per escape before it).
    if (parseError.error != QJsonParseError::NoError && escaped.size() != text.size())
        QJsonDocument::fromJson(text, &parseError);
    if (error)
        *error = parseError;
    if (parseError.error != QJsonParseError::NoError)
        return emptyObject();
    return rootOf(document);
}

// ---- the validator ---------------------------------------------------------------------
//
// One pass over the text, no DOM: does QJsonDocument::fromJson accept it? It follows
// Qt 6's parser (qjsonparser.cpp) rule for rule, so that a document it accepts is one Qt
// parses without error, and one it rejects is handed to Qt for the exact error:
// * the root, after optional whitespace (space, tab, LF, CR), is an object or an array
//   (anything else — a scalar, a byte order mark — is left to Qt: Unhandled);
// * nesting: at most 1024 open containers;
// * strings: valid UTF-8 (no overlong forms, no encoded surrogates, nothing past
//   U+10FFFF); raw control characters are accepted, as Qt does; "\u" takes exactly four
//   hex digits (lone surrogates accepted); any other escaped byte stands for itself;
// * numbers are scanned as Qt scans them ("-"? then "0" or digits, then "." digits*,
//   then [eE][+-]?digits*) and judged by Qt's own conversion (QByteArray::toLongLong /
//   toDouble) unless they are plain RFC 8259 numbers without exponent, which always
//   convert;
// * literals true/false/null; "," between members/elements, no trailing ",".
// On the way it notes whether the text is compact (no whitespace outside strings) and
// strict (RFC 8259: no raw control characters, only the standard escapes, surrogate
// escapes only as pairs, numbers in RFC form).
//
// It reads UTF-8 bytes or UTF-16 units (a QString, judged as its toUtf8() image would be:
// every rule above concerns ASCII characters only, and Qt's conversion writes valid UTF-8
// for any QString, so in UTF-16 a non-ASCII unit needs no check at all).
struct Verdict
{
    enum Result { Valid, Invalid, Unhandled } result = Unhandled;
    bool compact = true;
    bool strict = true;
};

constexpr int MaxNesting = 1024; // Qt's nestingLimit

template <typename Unit>
inline bool isJsonSpace(Unit c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

template <typename Unit>
inline int hexDigit(Unit c)
{
    if (c >= '0' && c <= '9')
        return int(c - '0');
    if (c >= 'a' && c <= 'f')
        return int(c - 'a' + 10);
    if (c >= 'A' && c <= 'F')
        return int(c - 'A' + 10);
    return -1;
}

// One non-ASCII character starting at p; advances p past it. UTF-8: one validly encoded
// character.
inline bool skipNonAscii(const uchar*& p, const uchar* end)
{
    const uchar b = *p;
    int extra;
    uchar lo = 0x80, hi = 0xbf; // the allowed range of the second byte
    if (b < 0xc2)
        return false; // a continuation byte, or an overlong 2-byte lead
    if (b < 0xe0) {
        extra = 1;
    } else if (b < 0xf0) {
        extra = 2;
        if (b == 0xe0)
            lo = 0xa0; // overlong
        else if (b == 0xed)
            hi = 0x9f; // surrogates
    } else if (b < 0xf5) {
        extra = 3;
        if (b == 0xf0)
            lo = 0x90; // overlong
        else if (b == 0xf4)
            hi = 0x8f; // past U+10FFFF
    } else {
        return false;
    }
    if (end - p <= extra)
        return false;
    if (p[1] < lo || p[1] > hi)
        return false;
    for (int i = 2; i <= extra; ++i) {
        if ((p[i] & 0xc0) != 0x80)
            return false;
    }
    p += extra + 1;
    return true;
}

// UTF-16: any unit (see above).
inline bool skipNonAscii(const char16_t*& p, const char16_t*)
{
    ++p;
    return true;
}

// Past a backslash and the byte it escapes (not 'u'); the bytes after it are read as usual.
inline bool skipEscape(const uchar*& p, const uchar*)
{
    p += 2;
    return true;
}

// UTF-16: as the UTF-8 image reads. An escaped non-ASCII character there is a lead byte
// followed by continuation bytes, which are rejected — except a lone surrogate, which
// Qt's conversion writes as '?'.
inline bool skipEscape(const char16_t*& p, const char16_t* end)
{
    const char16_t e = p[1];
    if (e >= 0x80) {
        const bool high = e >= 0xd800 && e <= 0xdbff;
        const bool low = e >= 0xdc00 && e <= 0xdfff;
        const bool paired = high && end - p > 2 && p[2] >= 0xdc00 && p[2] <= 0xdfff;
        if (!low && (!high || paired))
            return false;
    }
    p += 2;
    return true;
}

// The "\uXXXX" unit at p (p[0] == '\\', p[1] == 'u'), or -1.
template <typename Unit>
inline int unicodeEscape(const Unit* p, const Unit* end)
{
    if (end - p < 6)
        return -1;
    int unit = 0;
    for (int i = 2; i < 6; ++i) {
        const int h = hexDigit(p[i]);
        if (h < 0)
            return -1;
        unit = unit * 16 + h;
    }
    return unit;
}

// Advances p over the units of a string that need no attention — neither '"', '\\', a
// control character (< 0x20) nor (UTF-8 only) a non-ASCII byte — a 64-bit word (8 bytes or
// 4 UTF-16 units) at a time, and stops at the word holding the first one. A lane below 0x20
// shows as the borrow of (lane - 0x20) where the lane's top bit was clear: exact for the
// lowest such lane, the one that matters.
template <typename Unit>
inline void skipPlain(const Unit*& p, const Unit* end)
{
#if Q_BYTE_ORDER == Q_LITTLE_ENDIAN
    constexpr int Bits = 8 * sizeof(Unit);
    constexpr qsizetype Lanes = 8 / sizeof(Unit);
    constexpr quint64 Ones = sizeof(Unit) == 1 ? 0x0101010101010101ULL : 0x0001000100010001ULL;
    constexpr quint64 Highs = Ones << (Bits - 1);
    while (end - p >= Lanes) {
        quint64 w;
        std::memcpy(&w, p, 8);
        const quint64 quote = w ^ (Ones * '"');
        const quint64 backslash = w ^ (Ones * '\\');
        const quint64 nonAscii = sizeof(Unit) == 1 ? w : 0; // UTF-16 needs no check (see above)
        const quint64 special = (nonAscii | ((quote - Ones) & ~quote) | ((backslash - Ones) & ~backslash)
                                 | ((w - Ones * 0x20) & ~w))
            & Highs;
        if (special) {
            p += qCountTrailingZeroBits(special) / Bits;
            return;
        }
        p += Lanes;
    }
#else
    Q_UNUSED(p);
    Q_UNUSED(end);
#endif
}

// A string after its opening quote; p ends after the closing quote.
template <typename Unit>
inline bool skipString(const Unit*& p, const Unit* end, Verdict& v)
{
    for (;;) {
        skipPlain(p, end);
        if (p >= end)
            return false;
        const Unit c = *p;
        if (c == '"') {
            ++p;
            return true;
        }
        if (c == '\\') {
            if (end - p < 2)
                return false;
            const Unit e = p[1];
            if (e == 'u') {
                const int unit = unicodeEscape(p, end);
                if (unit < 0)
                    return false;
                p += 6;
                if (unit >= 0xd800 && unit <= 0xdbff) {
                    // Strict only as a pair; Qt accepts it either way.
                    const int next = (end - p >= 2 && p[0] == '\\' && p[1] == 'u') ? unicodeEscape(p, end) : -1;
                    if (next >= 0xdc00 && next <= 0xdfff)
                        p += 6;
                    else
                        v.strict = false;
                } else if (unit >= 0xdc00 && unit <= 0xdfff) {
                    v.strict = false;
                }
                continue;
            }
            switch (e) {
            case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
                break;
            default:
                v.strict = false; // Qt takes any other escaped byte as itself
            }
            if (!skipEscape(p, end))
                return false;
            continue;
        }
        if (c < 0x20) {
            v.strict = false;
            ++p;
            continue;
        }
        if (c < 0x80) {
            ++p; // only reached on big-endian hosts or at the end of the text
            continue;
        }
        if (!skipNonAscii(p, end))
            return false;
    }
}

template <typename Unit>
inline bool isDigit(Unit c)
{
    return c >= '0' && c <= '9';
}

// A number as Qt scans it, judged as Qt judges it.
template <typename Unit>
inline bool skipNumber(const Unit*& p, const Unit* end, Verdict& v)
{
    const Unit* start = p;
    bool rfc = true;     // RFC 8259 form so far
    bool exponent = false;
    bool isInt = true;   // Qt's notion: no exponent, fraction all zeros
    if (p < end && *p == '-')
        ++p;
    if (p < end && *p == '0') {
        ++p;
    } else {
        const Unit* digits = p;
        while (p < end && isDigit(*p))
            ++p;
        if (p == digits)
            rfc = false;
    }
    if (p < end && *p == '.') {
        ++p;
        const Unit* digits = p;
        while (p < end && isDigit(*p)) {
            isInt = isInt && *p == '0';
            ++p;
        }
        if (p == digits)
            rfc = false;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        exponent = true;
        isInt = false;
        ++p;
        if (p < end && (*p == '-' || *p == '+'))
            ++p;
        const Unit* digits = p;
        while (p < end && isDigit(*p))
            ++p;
        if (p == digits)
            rfc = false;
    }
    if (p >= end)
        return false; // Qt: TerminationByNumber
    if (!rfc)
        v.strict = false;
    // An RFC number without exponent and of modest length always converts.
    if (rfc && !exponent && p - start <= 300)
        return true;
    // The scanned characters are all ASCII.
    QByteArray number(p - start, Qt::Uninitialized);
    for (qsizetype i = 0; i < number.size(); ++i)
        number[i] = char(start[i]);
    bool ok = false;
    if (isInt) {
        number.toLongLong(&ok);
        if (ok)
            return true;
    }
    number.toDouble(&ok);
    return ok;
}

template <typename Unit>
inline bool skipLiteral(const Unit*& p, const Unit* end, const char* word, qsizetype size)
{
    // Qt needs one byte more than the word after its first letter; a valid document has
    // at least a closing bracket there anyway.
    if (end - p < size + 1)
        return false;
    for (qsizetype i = 0; i < size; ++i) {
        if (p[i] != Unit(word[i]))
            return false;
    }
    p += size;
    return true;
}

template <typename Unit>
Verdict validate(const Unit* p, const Unit* const end)
{
    Verdict v;

    auto skipSpace = [&] {
        if (p < end && isJsonSpace(*p)) {
            v.compact = false;
            do
                ++p;
            while (p < end && isJsonSpace(*p));
        }
    };

    skipSpace();
    if (p >= end || (*p != '{' && *p != '['))
        return v; // Unhandled: Qt decides (and gives its error)
    v.result = Verdict::Invalid;

    // The open containers: true = object.
    bool stack[MaxNesting];
    int depth = 0;

    for (;;) {
        // ---- a value at p
        skipSpace();
        if (p >= end)
            return v;
        switch (*p) {
        case '{':
            if (depth == MaxNesting)
                return v;
            stack[depth++] = true;
            ++p;
            skipSpace();
            if (p < end && *p == '}') {
                ++p;
                --depth;
                break;
            }
            if (p >= end || *p != '"')
                return v;
            ++p;
            if (!skipString(p, end, v))
                return v;
            skipSpace();
            if (p >= end || *p != ':')
                return v;
            ++p;
            continue; // the member's value
        case '[':
            if (depth == MaxNesting)
                return v;
            stack[depth++] = false;
            ++p;
            skipSpace();
            if (p < end && *p == ']') {
                ++p;
                --depth;
                break;
            }
            continue; // the first element
        case '"':
            ++p;
            if (!skipString(p, end, v))
                return v;
            break;
        case 't':
            if (!skipLiteral(p, end, "true", 4))
                return v;
            break;
        case 'f':
            if (!skipLiteral(p, end, "false", 5))
                return v;
            break;
        case 'n':
            if (!skipLiteral(p, end, "null", 4))
                return v;
            break;
        default:
            if (!skipNumber(p, end, v))
                return v;
            break;
        }

        // ---- after a value: close containers, or go on to the next member/element
        for (;;) {
            skipSpace();
            if (depth == 0) {
                if (p == end)
                    v.result = Verdict::Valid;
                return v;
            }
            if (p >= end)
                return v;
            const Unit c = *p++;
            if (stack[depth - 1]) {
                if (c == '}') {
                    --depth;
                    continue;
                }
                if (c != ',')
                    return v;
                skipSpace();
                if (p >= end || *p != '"')
                    return v;
                ++p;
                if (!skipString(p, end, v))
                    return v;
                skipSpace();
                if (p >= end || *p != ':')
                    return v;
                ++p;
                break; // the member's value
            }
            if (c == ']') {
                --depth;
                continue;
            }
            if (c != ',')
                return v;
            break; // the next element
        }
    }
}

Verdict validate(const QByteArray& text)
{
    const uchar* p = reinterpret_cast<const uchar*>(text.constData());
    return validate(p, p + text.size());
}

Verdict validate(QStringView text)
{
    const char16_t* p = text.utf16();
    return validate(p, p + text.size());
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

// The text a document was parsed from (valid JSON with a container root) and its root,
// parsed on first use.
struct JsonConfig::Source
{
    Source(QByteArray utf8, bool strict, bool compact) : text(std::move(utf8)), strict(strict), compact(compact) {}

    const QJsonValue& root()
    {
        std::call_once(once, [this] { parsed = parseUtf8(text, nullptr); });
        return parsed;
    }

    const QByteArray text;
    const bool strict;
    const bool compact;
    std::once_flag once;
    QJsonValue parsed; // written once, under `once`
};

const QJsonValue& JsonConfig::rootRef() const
{
    return m_source ? m_source->root() : m_root;
}

void JsonConfig::dropSource()
{
    if (m_source) {
        m_root = m_source->root();
        m_source.reset();
    }
}

void JsonConfig::assignUtf8(const QByteArray& jsonUtf8, QJsonParseError* error)
{
    const Verdict verdict = validate(jsonUtf8);
    assignChecked(jsonUtf8, verdict.result == Verdict::Valid, verdict.strict, verdict.compact, error);
}

namespace {

// From this many UTF-16 units on, the check gets a thread of its own: ~1 ms of conversion
// against the tens of microseconds a thread costs to start.
constexpr qsizetype ParallelCheckUnits = qsizetype(1) << 20;

// Joins a thread on every way out of a scope.
struct Joiner
{
    std::thread& thread;
    ~Joiner()
    {
        if (thread.joinable())
            thread.join();
    }
};

} // namespace

void JsonConfig::assignText(const QString& json, QJsonParseError* error)
{
    // Converting and checking are independent (the check reads the UTF-16 text), so a
    // large document uses two cores for them.
    Verdict verdict;
    QByteArray utf8;
    std::thread checker;
    if (json.size() >= ParallelCheckUnits) {
        try {
            checker = std::thread([&verdict, &json] { verdict = validate(QStringView(json)); });
        } catch (const std::system_error&) {
            // No thread to be had: checked below, on this one.
        }
    }
    const bool parallel = checker.joinable();
    {
        Joiner joiner{checker};
        utf8 = json.toUtf8();
    }
    if (!parallel)
        verdict = validate(QStringView(json));
    assignChecked(utf8, verdict.result == Verdict::Valid, verdict.strict, verdict.compact, error);
}

void JsonConfig::assignChecked(const QByteArray& jsonUtf8, bool valid, bool strict, bool compact, QJsonParseError* error)
{
    if (valid) {
        m_source = std::make_shared<Source>(jsonUtf8, strict, compact);
        m_root = QJsonValue();
        if (error) {
            error->offset = 0;
            error->error = QJsonParseError::NoError;
        }
        return;
    }
    // Invalid, or not for the validator: Qt's parser gives the result and the exact error.
    m_source.reset();
    m_root = parseUtf8(jsonUtf8, error);
}

QJsonValue JsonConfig::root() const
{
    return rootRef();
}

QByteArray JsonConfig::sourceUtf8(bool* strict) const
{
    if (strict)
        *strict = m_source && m_source->strict;
    return m_source ? m_source->text : QByteArray();
}

// ---- construction -------------------------------------------------------------------

JsonConfig JsonConfig::fromJson(const QString& jsonStr, QJsonParseError* error)
{
    JsonConfig config;
    config.assignText(jsonStr, error);
    return config;
}

JsonConfig JsonConfig::fromUtf8(const QByteArray& jsonUtf8, QJsonParseError* error)
{
    JsonConfig config;
    config.assignUtf8(jsonUtf8, error);
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
        *this = variant.value<JsonConfig>();
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
        assignText(variant.toString(), nullptr);
        return;
    case QMetaType::QByteArray:
        assignUtf8(variant.toByteArray(), nullptr);
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
{
    assignText(jsonStr, nullptr);
}

JsonConfig::JsonConfig(const char* jsonUtf8)
    : m_root(emptyObject())
{
    if (jsonUtf8)
        assignUtf8(QByteArray(jsonUtf8), nullptr);
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
    swap(other);
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
    if (!lookup(rootRef(), key, &value))
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
    if (segments.isEmpty() || !lookup(rootRef(), key, nullptr))
        return false;
    dropSource();

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
    assignText(jsonStr, &error);
    return error;
}

QByteArray JsonConfig::toUtf8(QJsonDocument::JsonFormat format) const
{
    // An unparsed document whose text is already what is asked for: the text itself.
    if (m_source && format == QJsonDocument::Compact && m_source->compact && m_source->strict)
        return m_source->text;
    const QJsonValue& root = rootRef();
    const QJsonDocument document = root.isArray() ? QJsonDocument(root.toArray())
                                                  : QJsonDocument(root.toObject());
    QByteArray json = document.toJson(format);
    // The core rejects Qt's escapes of lone surrogates (cpp/Internal/Utf16.h).
    Visindigo::Internal::Utf16::repairSurrogateEscapes(json);
    return json;
}

QString JsonConfig::toString(QJsonDocument::JsonFormat format) const
{
    return QString::fromUtf8(toUtf8(format));
}

// ---- getters ------------------------------------------------------------------------

QJsonValue JsonConfig::getValue(const QString& key, bool* ok) const
{
    return valueAt(rootRef(), key, ok);
}

qint64 JsonConfig::getInt(const QString& key, bool* ok) const
{
    return valueAt(rootRef(), key, ok).toInteger();
}

QString JsonConfig::getString(const QString& key, bool* ok) const
{
    return valueAt(rootRef(), key, ok).toString();
}

bool JsonConfig::getBool(const QString& key, bool* ok) const
{
    return valueAt(rootRef(), key, ok).toBool();
}

double JsonConfig::getDouble(const QString& key, bool* ok) const
{
    return valueAt(rootRef(), key, ok).toDouble();
}

JsonConfig JsonConfig::getObject(const QString& key, bool* ok) const
{
    const QJsonValue value = valueAt(rootRef(), key, ok);
    JsonConfig config;
    if (value.isObject())
        config.m_root = value;
    return config;
}

QList<JsonConfig> JsonConfig::getArray(const QString& key, bool* ok) const
{
    const QJsonArray array = valueAt(rootRef(), key, ok).toArray();
    QList<JsonConfig> list;
    list.reserve(array.size());
    for (const QJsonValue& element : array)
        list.append(fromValue(element));
    return list;
}

QStringList JsonConfig::getStringList(const QString& key, bool* ok) const
{
    const QJsonArray array = valueAt(rootRef(), key, ok).toArray();
    QStringList list;
    list.reserve(array.size());
    for (const QJsonValue& element : array)
        list.append(element.toString());
    return list;
}

QList<qint64> JsonConfig::getIntArray(const QString& key, bool* ok) const
{
    const QJsonArray array = valueAt(rootRef(), key, ok).toArray();
    QList<qint64> list;
    list.reserve(array.size());
    for (const QJsonValue& element : array)
        list.append(element.toInteger());
    return list;
}

QList<double> JsonConfig::getDoubleArray(const QString& key, bool* ok) const
{
    const QJsonArray array = valueAt(rootRef(), key, ok).toArray();
    QList<double> list;
    list.reserve(array.size());
    for (const QJsonValue& element : array)
        list.append(element.toDouble());
    return list;
}

bool JsonConfig::contains(const QString& key) const
{
    return lookup(rootRef(), key, nullptr);
}

void JsonConfig::clear()
{
    m_source.reset();
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
        if (value.isObject() || value.isArray()) {
            m_source.reset();
            m_root = value;
        }
        return;
    }
    if (!setIsAllowed(rootRef(), segments))
        return;
    dropSource();

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
    setValue(key, value.rootRef());
}

void JsonConfig::setArray(const QString& key, const QList<JsonConfig>& value)
{
    QJsonArray array;
    for (const JsonConfig& element : value)
        array.append(element.rootRef());
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
    if (!lookup(rootRef(), key, &value))
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
    return lookup(rootRef(), key, &value) && value.isNull();
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
