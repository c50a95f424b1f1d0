// SPDX-License-Identifier: MIT
//
// Visindigo::Utility::JsonConfig — every public member, the dot-path rules, the limits
// that keep hostile input harmless, and the cost of a set on a large document.
#include <Utility/JsonConfig.h>
#include <Agent/Message.h>

#include "JsonConfigReference.h"

#include <QtCore/QElapsedTimer>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QMetaType>
#include <QtCore/QRandomGenerator>
#include <QtCore/QThread>
#include <QtCore/QVariant>
#include <QtTest/QTest>

#include <limits>
#include <type_traits>
#include <utility>

using Visindigo::Utility::JsonConfig;

// The class must be usable with Q_DECLARE_METATYPE (the header itself does not declare
// it, so that an application may).
Q_DECLARE_METATYPE(Visindigo::Utility::JsonConfig)

static_assert(std::is_default_constructible_v<JsonConfig>);
static_assert(std::is_copy_constructible_v<JsonConfig> && std::is_copy_assignable_v<JsonConfig>);
static_assert(std::is_nothrow_move_constructible_v<JsonConfig>);
static_assert(std::is_nothrow_move_assignable_v<JsonConfig>);

namespace {

QString compact(const JsonConfig& config)
{
    return config.toString(QJsonDocument::Compact);
}

JsonConfig sample()
{
    return JsonConfig::fromJson(QStringLiteral(R"({
        "name": "visindigo",
        "version": 17,
        "ratio": 0.5,
        "enabled": true,
        "nothing": null,
        "tags": ["a", "b", "c"],
        "numbers": [1, 2, 3],
        "doubles": [0.5, 1, 2.25],
        "mixed": ["x", 1, true, null, {"k": "v"}, [1]],
        "models": [
            {"id": "m0", "params": {"temperature": 0.7}},
            {"id": "m1", "params": {"temperature": 1.2, "stop": ["\n", "END"]}}
        ],
        "nested": {"deep": {"deeper": {"value": "found"}}},
        "0": "zero-key",
        "emptyObject": {},
        "emptyArray": []
    })"));
}

} // namespace

class TestJsonConfig : public QObject
{
    Q_OBJECT

private slots:
    // ---- construction ----------------------------------------------------------------
    void defaultConstructedIsAnEmptyObject();
    void constructFromJsonText();
    void constructFromMalformedTextGivesEmptyObject();
    void constructFromStringLiteral();
    void constructFromDocument();
    void constructFromVariant_data();
    void constructFromVariant();
    void fromJsonReportsErrors();
    void fromJsonAcceptsArrayRoot();
    void copyIsIndependent();
    void assignmentIsIndependent();
    void moveLeavesAValidEmptyObject();
    void selfAssignment();
    void metaTypeRoundTrip();

    // ---- parse / toString ----------------------------------------------------------
    void parseReplacesContent();
    void parseErrorLeavesEmptyObject_data();
    void parseErrorLeavesEmptyObject();
    void toStringRoundTrip_data();
    void toStringRoundTrip();
    void integersAreWrittenAsIntegers();
    void unicodeRoundTrip();

    // ---- getters ---------------------------------------------------------------------
    void gettersReadValuesAndSetOk();
    void gettersOnMissingKeysReturnDefaults();
    void gettersOnWrongTypesReturnEmptyValues();
    void emptyKeyIsTheRoot();
    void getIntConversions_data();
    void getIntConversions();
    void getObjectSharesAndIsIndependent();
    void getArrayElements();
    void listGetters();

    // ---- dot paths -------------------------------------------------------------------
    void dotPathsIntoNestedArrays();
    void numericSegmentOnObjectIsAKey();
    void invalidArraySegments_data();
    void invalidArraySegments();
    void emptySegmentsAreLiteralKeys();

    // ---- setters ---------------------------------------------------------------------
    void setterCreatesObjectIntermediates();
    void setterCreatesArrayIntermediates();
    void setterPadsArraysWithNull();
    void setterReplacesWrongTypedIntermediates();
    void setterOverwritesExistingValues();
    void setValueOnEmptyKeyReplacesRoot();
    void typedSetters();
    void setObjectAndSetArray();
    void setIntoArrayRoot();
    void setterLimitsIgnoreHostileKeys();

    // ---- keys / contains / remove / clear ----------------------------------------------
    void keysOfObjectsAndArrays();
    void containsFollowsPaths();
    void removeObjectKeysAndArrayElements();
    void removeMissingKeysReturnsFalse();
    void removeOnSharedCopyDoesNotAffectOriginal();
    void clearEmptiesTheDocument();

    // ---- predicates ------------------------------------------------------------------
    void predicates_data();
    void predicates();
    void predicatesOnMissingKeys();
    void isIntRange_data();
    void isIntRange();

    // ---- extensions ------------------------------------------------------------------
    void extensionRootAndFromValue();
    void extensionUtf8();
    void extensionUtf8WritesLoneSurrogatesAsReplacement();

    // ---- robustness and cost -----------------------------------------------------------
    void nothingCrashesOnOddKeys();
    void setOnLargeDocumentOnlyRebuildsThePath();

    // ---- the kept source text (lazy parse) ---------------------------------------------
    void sourceTextIsKeptUntilAMutation();
    void sourceTextCompactOutputOnlyWhenCompactAndStrict();
    void copiesShareTheSourceAndStayIndependent();
    void lazyParseUnderConcurrentConstReads();
    void validatorAgreesWithQtOnCorpus();
    void validatorAgreesWithQtOnNestingLimit();
    void validatorAgreesWithQtOnRandomMutations();
    void textIsCheckedAsItsUtf8Image();
    void largeTextIsCheckedWhileConverted();
    void aByteOrderMarkAtTheStartOfAStringIsKept();
};

// =======================================================================================
// construction

void TestJsonConfig::defaultConstructedIsAnEmptyObject()
{
    const JsonConfig config;
    QVERIFY(config.isObject());
    QVERIFY(config.isEmpty());
    QVERIFY(!config.isArray());
    QVERIFY(config.contains(QString()));
    QVERIFY(config.keys().isEmpty());
    QCOMPARE(compact(config), QStringLiteral("{}"));
    QVERIFY(config.getValue().isObject());
    QVERIFY(config.root().isObject());
}

void TestJsonConfig::constructFromJsonText()
{
    const JsonConfig config(QStringLiteral(R"({"a": {"b": [10, 20]}})"));
    QCOMPARE(config.getInt(QStringLiteral("a.b.1")), 20);
    QCOMPARE(config.keys(), QStringList{QStringLiteral("a")});
}

void TestJsonConfig::constructFromMalformedTextGivesEmptyObject()
{
    for (const QString& text : {QStringLiteral("{"), QStringLiteral("not json"), QString(),
                                QStringLiteral(R"({"a": 1,})"), QStringLiteral("[1, 2")}) {
        const JsonConfig config(text);
        QVERIFY2(config.isObject() && config.isEmpty(), qPrintable(text));
        QCOMPARE(compact(config), QStringLiteral("{}"));
    }
}

void TestJsonConfig::constructFromStringLiteral()
{
    const JsonConfig config(R"({"literal": "yes", "ü": "ß"})");
    QCOMPARE(config.getString(QStringLiteral("literal")), QStringLiteral("yes"));
    QCOMPARE(config.getString(QString::fromUtf8("ü")), QString::fromUtf8("ß"));
    const JsonConfig fromNull(static_cast<const char*>(nullptr));
    QVERIFY(fromNull.isObject() && fromNull.isEmpty());
}

void TestJsonConfig::constructFromDocument()
{
    QJsonObject object{{QStringLiteral("k"), 1}};
    const JsonConfig fromObject{QJsonDocument(object)};
    QCOMPARE(fromObject.getInt(QStringLiteral("k")), 1);

    const JsonConfig fromArray{QJsonDocument(QJsonArray{1, 2})};
    QVERIFY(fromArray.isArray());
    QCOMPARE(fromArray.getInt(QStringLiteral("1")), 2);

    const JsonConfig fromNull{QJsonDocument()};
    QVERIFY(fromNull.isObject() && fromNull.isEmpty());
}

void TestJsonConfig::constructFromVariant_data()
{
    QTest::addColumn<QVariant>("variant");
    QTest::addColumn<QString>("expected");

    QVariantMap map;
    map.insert(QStringLiteral("a"), 1);
    map.insert(QStringLiteral("b"), QVariantList{QStringLiteral("x"), true});
    QVariantHash hash;
    hash.insert(QStringLiteral("h"), 2.5);

    QTest::newRow("QVariantMap") << QVariant(map) << QStringLiteral(R"({"a":1,"b":["x",true]})");
    QTest::newRow("QVariantHash") << QVariant(hash) << QStringLiteral(R"({"h":2.5})");
    QTest::newRow("QVariantList") << QVariant(QVariantList{1, QStringLiteral("s")})
                                  << QStringLiteral(R"([1,"s"])");
    QTest::newRow("QStringList") << QVariant(QStringList{QStringLiteral("p"), QStringLiteral("q")})
                                 << QStringLiteral(R"(["p","q"])");
    QTest::newRow("QJsonObject") << QVariant(QJsonObject{{QStringLiteral("o"), 1}})
                                 << QStringLiteral(R"({"o":1})");
    QTest::newRow("QJsonArray") << QVariant(QJsonArray{1, 2}) << QStringLiteral("[1,2]");
    QTest::newRow("QJsonDocument")
        << QVariant(QJsonDocument(QJsonObject{{QStringLiteral("d"), true}}))
        << QStringLiteral(R"({"d":true})");
    QTest::newRow("QJsonValue object")
        << QVariant(QJsonValue(QJsonObject{{QStringLiteral("v"), 3}})) << QStringLiteral(R"({"v":3})");
    QTest::newRow("QJsonValue scalar") << QVariant(QJsonValue(3)) << QStringLiteral("{}");
    QTest::newRow("JSON text QString") << QVariant(QStringLiteral(R"({"t":[1]})"))
                                       << QStringLiteral(R"({"t":[1]})");
    QTest::newRow("JSON text QByteArray") << QVariant(QByteArray(R"([{"u":null}])"))
                                          << QStringLiteral(R"([{"u":null}])");
    QTest::newRow("malformed text") << QVariant(QStringLiteral("{oops")) << QStringLiteral("{}");
    QTest::newRow("JsonConfig") << QVariant::fromValue(JsonConfig(R"({"j":"c"})"))
                                << QStringLiteral(R"({"j":"c"})");
    QTest::newRow("int") << QVariant(42) << QStringLiteral("{}");
    QTest::newRow("invalid") << QVariant() << QStringLiteral("{}");
}

void TestJsonConfig::constructFromVariant()
{
    QFETCH(QVariant, variant);
    QFETCH(QString, expected);
    const JsonConfig config(variant);
    QCOMPARE(compact(config), expected);
    QVERIFY(config.isObject() || config.isArray());
}

void TestJsonConfig::fromJsonReportsErrors()
{
    QJsonParseError error;
    error.error = QJsonParseError::NoError;
    const JsonConfig bad = JsonConfig::fromJson(QStringLiteral(R"({"a": })"), &error);
    QVERIFY(error.error != QJsonParseError::NoError);
    QVERIFY(bad.isObject() && bad.isEmpty());

    const JsonConfig good = JsonConfig::fromJson(QStringLiteral(R"({"a": 1})"), &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(good.getInt(QStringLiteral("a")), 1);

    // No error pointer: must not crash.
    const JsonConfig quiet = JsonConfig::fromJson(QStringLiteral("]]"));
    QVERIFY(quiet.isEmpty());
}

void TestJsonConfig::fromJsonAcceptsArrayRoot()
{
    const JsonConfig config = JsonConfig::fromJson(QStringLiteral(R"([{"a": 1}, [2, 3], "s"])"));
    QVERIFY(config.isArray());
    QVERIFY(!config.isObject());
    QCOMPARE(config.getInt(QStringLiteral("0.a")), 1);
    QCOMPARE(config.getInt(QStringLiteral("1.1")), 3);
    QCOMPARE(config.getString(QStringLiteral("2")), QStringLiteral("s"));
    QCOMPARE(config.keys(), (QStringList{QStringLiteral("0"), QStringLiteral("1"), QStringLiteral("2")}));
    QCOMPARE(compact(config), QStringLiteral(R"([{"a":1},[2,3],"s"])"));
}

void TestJsonConfig::copyIsIndependent()
{
    JsonConfig original = sample();
    const QString before = compact(original);

    JsonConfig copy(original);
    copy.setString(QStringLiteral("name"), QStringLiteral("changed"));
    copy.setInt(QStringLiteral("models.1.params.stop.0"), 7);
    copy.remove(QStringLiteral("tags.0"));
    copy.setBool(QStringLiteral("new.path"), true);
    QCOMPARE(compact(original), before);

    original.setString(QStringLiteral("nested.deep.deeper.value"), QStringLiteral("moved"));
    QCOMPARE(copy.getString(QStringLiteral("nested.deep.deeper.value")), QStringLiteral("found"));
    QCOMPARE(copy.getString(QStringLiteral("name")), QStringLiteral("changed"));
    QCOMPARE(copy.getInt(QStringLiteral("models.1.params.stop.0")), 7);
    QCOMPARE(original.getString(QStringLiteral("models.1.params.stop.0")), QStringLiteral("\n"));
}

void TestJsonConfig::assignmentIsIndependent()
{
    JsonConfig a(R"({"x": {"y": 1}})");
    JsonConfig b;
    b = a;
    b.setInt(QStringLiteral("x.y"), 2);
    QCOMPARE(a.getInt(QStringLiteral("x.y")), 1);
    QCOMPARE(b.getInt(QStringLiteral("x.y")), 2);
    a.clear();
    QCOMPARE(b.getInt(QStringLiteral("x.y")), 2);
}

void TestJsonConfig::moveLeavesAValidEmptyObject()
{
    JsonConfig source(R"({"m": [1, 2]})");
    JsonConfig target(std::move(source));
    QCOMPARE(target.getIntArray(QStringLiteral("m")), (QList<qint64>{1, 2}));
    // The moved-from object is an empty object and stays fully usable.
    QVERIFY(source.isObject()); // NOLINT(bugprone-use-after-move)
    QVERIFY(source.isEmpty());
    source.setInt(QStringLiteral("again"), 1);
    QCOMPARE(source.getInt(QStringLiteral("again")), 1);

    JsonConfig other(R"(["old"])");
    other = std::move(target);
    QCOMPARE(other.getIntArray(QStringLiteral("m")), (QList<qint64>{1, 2}));
    QVERIFY(target.isObject() && target.isEmpty()); // NOLINT(bugprone-use-after-move)

    JsonConfig a(R"({"a":1})");
    JsonConfig b(R"({"b":2})");
    a.swap(b);
    QCOMPARE(compact(a), QStringLiteral(R"({"b":2})"));
    QCOMPARE(compact(b), QStringLiteral(R"({"a":1})"));
}

void TestJsonConfig::selfAssignment()
{
    JsonConfig config(R"({"s": [1, {"t": 2}]})");
    const QString before = compact(config);
    JsonConfig& alias = config;
    config = alias;
    QCOMPARE(compact(config), before);
    // Storing a document inside itself copies, it does not create a cycle.
    config.setObject(QStringLiteral("self"), config);
    QCOMPARE(config.getInt(QStringLiteral("self.s.1.t")), 2);
    QVERIFY(!config.contains(QStringLiteral("self.self")));
}

void TestJsonConfig::metaTypeRoundTrip()
{
    const JsonConfig config(R"({"meta": [true]})");
    const QVariant variant = QVariant::fromValue(config);
    QVERIFY(variant.isValid());
    QVERIFY(variant.metaType() == QMetaType::fromType<JsonConfig>());
    QVERIFY(variant.canConvert<JsonConfig>());
    QCOMPARE(compact(variant.value<JsonConfig>()), QStringLiteral(R"({"meta":[true]})"));
    QCOMPARE(compact(qvariant_cast<JsonConfig>(variant)), QStringLiteral(R"({"meta":[true]})"));
    QVERIFY(qMetaTypeId<JsonConfig>() > 0);
}

// =======================================================================================
// parse / toString

void TestJsonConfig::parseReplacesContent()
{
    JsonConfig config(R"({"old": 1})");
    const QJsonParseError error = config.parse(QStringLiteral(R"({"new": [1, 2]})"));
    QCOMPARE(error.error, QJsonParseError::NoError);
    QVERIFY(!config.contains(QStringLiteral("old")));
    QCOMPARE(config.getIntArray(QStringLiteral("new")), (QList<qint64>{1, 2}));

    QCOMPARE(config.parse(QStringLiteral("[true]")).error, QJsonParseError::NoError);
    QVERIFY(config.isArray());
    QCOMPARE(config.getBool(QStringLiteral("0")), true);
}

void TestJsonConfig::parseErrorLeavesEmptyObject_data()
{
    QTest::addColumn<QString>("text");
    QTest::newRow("empty") << QString();
    QTest::newRow("unterminated object") << QStringLiteral(R"({"a": 1)");
    QTest::newRow("unterminated string") << QStringLiteral(R"({"a": "b)");
    QTest::newRow("trailing comma") << QStringLiteral(R"([1,])");
    QTest::newRow("garbage after value") << QStringLiteral(R"({} x)");
    QTest::newRow("bare word") << QStringLiteral("nul");
    QTest::newRow("single quotes") << QStringLiteral("{'a': 1}");
    QTest::newRow("lone minus") << QStringLiteral("[-]");
    QTest::newRow("missing colon") << QStringLiteral(R"({"a" 1})");
    QTest::newRow("scalar root") << QStringLiteral("42");
    QTest::newRow("deep nesting") << QString(5000, u'[');
}

void TestJsonConfig::parseErrorLeavesEmptyObject()
{
    QFETCH(QString, text);
    JsonConfig config(R"({"previous": "content"})");
    const QJsonParseError error = config.parse(text);
    QVERIFY(error.error != QJsonParseError::NoError);
    QVERIFY(!error.errorString().isEmpty());
    QVERIFY(config.isObject());
    QVERIFY(config.isEmpty());
    QVERIFY(!config.contains(QStringLiteral("previous")));
}

void TestJsonConfig::toStringRoundTrip_data()
{
    QTest::addColumn<int>("format");
    QTest::newRow("Indented") << int(QJsonDocument::Indented);
    QTest::newRow("Compact") << int(QJsonDocument::Compact);
}

void TestJsonConfig::toStringRoundTrip()
{
    QFETCH(int, format);
    const JsonConfig original = sample();
    const QString text = original.toString(QJsonDocument::JsonFormat(format));
    JsonConfig parsed;
    QCOMPARE(parsed.parse(text).error, QJsonParseError::NoError);
    QCOMPARE(parsed.root(), original.root());
    QCOMPARE(parsed.toString(QJsonDocument::JsonFormat(format)), text);

    // The default format is Indented (multi-line), as in the native module.
    QVERIFY(original.toString().contains(u'\n'));
    QVERIFY(!original.toString(QJsonDocument::Compact).contains(u'\n'));

    // Array roots round-trip too.
    const JsonConfig array(R"([1, [2], {"3": 4}])");
    QCOMPARE(JsonConfig::fromJson(array.toString(QJsonDocument::JsonFormat(format))).root(), array.root());
}

void TestJsonConfig::integersAreWrittenAsIntegers()
{
    JsonConfig config;
    config.setInt(QStringLiteral("max_tokens"), 256);
    config.setInt(QStringLiteral("big"), std::numeric_limits<qint64>::max());
    config.setDouble(QStringLiteral("temperature"), 0.25);
    config.setIntArray(QStringLiteral("ids"), {1, -2});
    QCOMPARE(compact(config),
             QStringLiteral(R"({"big":9223372036854775807,"ids":[1,-2],"max_tokens":256,"temperature":0.25})"));
    QCOMPARE(config.getInt(QStringLiteral("big")), std::numeric_limits<qint64>::max());
}

void TestJsonConfig::unicodeRoundTrip()
{
    JsonConfig config;
    const QString key = QString::fromUtf8("ключ");
    const QString value = QString::fromUtf8("値 ✓ \xF0\x9F\x98\x80 \"quoted\" \\ back\nslash\t");
    config.setString(key, value);
    config.setString(QString::fromUtf8("emoji.\xF0\x9F\x98\x80"), QStringLiteral("x"));
    const JsonConfig parsed = JsonConfig::fromJson(config.toString());
    QCOMPARE(parsed.getString(key), value);
    QCOMPARE(parsed.getString(QString::fromUtf8("emoji.\xF0\x9F\x98\x80")), QStringLiteral("x"));
    QCOMPARE(JsonConfig::fromUtf8(config.toUtf8()).getString(key), value);
}

// =======================================================================================
// getters

void TestJsonConfig::gettersReadValuesAndSetOk()
{
    const JsonConfig config = sample();
    bool ok = false;

    QCOMPARE(config.getString(QStringLiteral("name"), &ok), QStringLiteral("visindigo"));
    QVERIFY(ok);
    ok = false;
    QCOMPARE(config.getInt(QStringLiteral("version"), &ok), 17);
    QVERIFY(ok);
    ok = false;
    QCOMPARE(config.getDouble(QStringLiteral("ratio"), &ok), 0.5);
    QVERIFY(ok);
    ok = false;
    QCOMPARE(config.getBool(QStringLiteral("enabled"), &ok), true);
    QVERIFY(ok);
    ok = false;
    QCOMPARE(config.getValue(QStringLiteral("nothing"), &ok), QJsonValue(QJsonValue::Null));
    QVERIFY(ok);
    ok = false;
    QCOMPARE(config.getStringList(QStringLiteral("tags"), &ok),
             (QStringList{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}));
    QVERIFY(ok);
    ok = false;
    QCOMPARE(config.getIntArray(QStringLiteral("numbers"), &ok), (QList<qint64>{1, 2, 3}));
    QVERIFY(ok);
    ok = false;
    QCOMPARE(config.getDoubleArray(QStringLiteral("doubles"), &ok), (QList<double>{0.5, 1.0, 2.25}));
    QVERIFY(ok);
    ok = false;
    QCOMPARE(config.getObject(QStringLiteral("nested.deep"), &ok).getString(QStringLiteral("deeper.value")),
             QStringLiteral("found"));
    QVERIFY(ok);
    ok = false;
    QCOMPARE(config.getArray(QStringLiteral("models"), &ok).size(), 2);
    QVERIFY(ok);
    ok = false;
    QCOMPARE(config.getDouble(QStringLiteral("models.1.params.temperature"), &ok), 1.2);
    QVERIFY(ok);
    ok = false;
    QCOMPARE(config.getValue(QStringLiteral("emptyArray"), &ok), QJsonValue(QJsonArray()));
    QVERIFY(ok);
}

void TestJsonConfig::gettersOnMissingKeysReturnDefaults()
{
    const JsonConfig config = sample();
    const QString missing = QStringLiteral("does.not.exist");
    bool ok = true;

    QCOMPARE(config.getValue(missing, &ok).type(), QJsonValue::Undefined);
    QVERIFY(!ok);
    ok = true;
    QCOMPARE(config.getInt(missing, &ok), 0);
    QVERIFY(!ok);
    ok = true;
    QCOMPARE(config.getString(missing, &ok), QString());
    QVERIFY(!ok);
    ok = true;
    QCOMPARE(config.getBool(missing, &ok), false);
    QVERIFY(!ok);
    ok = true;
    QCOMPARE(config.getDouble(missing, &ok), 0.0);
    QVERIFY(!ok);
    ok = true;
    const JsonConfig object = config.getObject(missing, &ok);
    QVERIFY(!ok);
    QVERIFY(object.isObject() && object.isEmpty());
    ok = true;
    QVERIFY(config.getArray(missing, &ok).isEmpty());
    QVERIFY(!ok);
    ok = true;
    QVERIFY(config.getStringList(missing, &ok).isEmpty());
    QVERIFY(!ok);
    ok = true;
    QVERIFY(config.getIntArray(missing, &ok).isEmpty());
    QVERIFY(!ok);
    ok = true;
    QVERIFY(config.getDoubleArray(missing, &ok).isEmpty());
    QVERIFY(!ok);

    // Past a scalar, past an array end, and a child of null are missing too.
    ok = true;
    config.getValue(QStringLiteral("name.length"), &ok);
    QVERIFY(!ok);
    ok = true;
    config.getValue(QStringLiteral("tags.3"), &ok);
    QVERIFY(!ok);
    ok = true;
    config.getValue(QStringLiteral("nothing.x"), &ok);
    QVERIFY(!ok);

    // Getters without an ok pointer.
    QCOMPARE(config.getInt(missing), 0);
    QCOMPARE(config.getString(missing), QString());
}

void TestJsonConfig::gettersOnWrongTypesReturnEmptyValues()
{
    const JsonConfig config = sample();
    bool ok = false;

    // ok says "the key exists", as in the native module, even when the type is wrong.
    QCOMPARE(config.getInt(QStringLiteral("name"), &ok), 0);
    QVERIFY(ok);
    QCOMPARE(config.getString(QStringLiteral("version")), QString());
    QCOMPARE(config.getBool(QStringLiteral("version")), false);
    QCOMPARE(config.getBool(QStringLiteral("name")), false);
    QCOMPARE(config.getDouble(QStringLiteral("name")), 0.0);
    QCOMPARE(config.getDouble(QStringLiteral("enabled")), 0.0);
    QCOMPARE(config.getInt(QStringLiteral("ratio")), 0); // not integral
    QCOMPARE(config.getInt(QStringLiteral("enabled")), 0);
    QCOMPARE(config.getString(QStringLiteral("nothing")), QString());
    QVERIFY(config.getObject(QStringLiteral("tags")).isEmpty());
    QVERIFY(config.getObject(QStringLiteral("tags")).isObject());
    QVERIFY(config.getObject(QStringLiteral("name")).isEmpty());
    QVERIFY(config.getArray(QStringLiteral("nested")).isEmpty());
    QVERIFY(config.getStringList(QStringLiteral("name")).isEmpty());
    QVERIFY(config.getIntArray(QStringLiteral("nested")).isEmpty());
    QVERIFY(config.getDoubleArray(QStringLiteral("version")).isEmpty());
    QCOMPARE(config.getString(QStringLiteral("tags")), QString());
}

void TestJsonConfig::emptyKeyIsTheRoot()
{
    const JsonConfig config(R"({"a": 1, "b": [2]})");
    bool ok = false;
    QCOMPARE(config.getValue(QString(), &ok), config.root());
    QVERIFY(ok);
    QCOMPARE(config.getValue(QStringLiteral("")), config.root());
    QCOMPARE(compact(config.getObject()), compact(config));
    QCOMPARE(config.keys(QString()), (QStringList{QStringLiteral("a"), QStringLiteral("b")}));
    QVERIFY(config.contains(QString()));
    QVERIFY(config.isObject());
    QVERIFY(!config.isEmpty());
    QCOMPARE(config.getInt(), 0);
    QCOMPARE(config.getString(), QString());

    const JsonConfig array(R"([1, 2])");
    QCOMPARE(array.getIntArray(), (QList<qint64>{1, 2}));
    QCOMPARE(array.getArray().size(), 2);
    QVERIFY(array.getObject().isObject()); // an array is not an object
    QVERIFY(array.getObject().isEmpty());
}

void TestJsonConfig::getIntConversions_data()
{
    QTest::addColumn<QString>("json");
    QTest::addColumn<qint64>("expected");
    QTest::newRow("integer") << QStringLiteral("42") << qint64(42);
    QTest::newRow("negative") << QStringLiteral("-7") << qint64(-7);
    QTest::newRow("integral double") << QStringLiteral("3.0") << qint64(3);
    QTest::newRow("exponent") << QStringLiteral("1e3") << qint64(1000);
    QTest::newRow("fraction") << QStringLiteral("3.5") << qint64(0);
    QTest::newRow("beyond qint32") << QStringLiteral("5000000000") << qint64(5000000000LL);
    QTest::newRow("qint64 max") << QStringLiteral("9223372036854775807")
                                << std::numeric_limits<qint64>::max();
    QTest::newRow("qint64 min") << QStringLiteral("-9223372036854775808")
                                << std::numeric_limits<qint64>::min();
    QTest::newRow("beyond qint64") << QStringLiteral("1e300") << qint64(0);
    QTest::newRow("string") << QStringLiteral(R"("12")") << qint64(0);
    QTest::newRow("bool") << QStringLiteral("true") << qint64(0);
    QTest::newRow("null") << QStringLiteral("null") << qint64(0);
}

void TestJsonConfig::getIntConversions()
{
    QFETCH(QString, json);
    QFETCH(qint64, expected);
    const JsonConfig config(QStringLiteral(R"({"v": %1})").arg(json));
    QVERIFY(config.contains(QStringLiteral("v")));
    QCOMPARE(config.getInt(QStringLiteral("v")), expected);
}

void TestJsonConfig::getObjectSharesAndIsIndependent()
{
    JsonConfig config = sample();
    JsonConfig params = config.getObject(QStringLiteral("models.0.params"));
    QCOMPARE(params.getDouble(QStringLiteral("temperature")), 0.7);
    params.setDouble(QStringLiteral("temperature"), 0.1);
    params.setInt(QStringLiteral("seed"), 9);
    QCOMPARE(config.getDouble(QStringLiteral("models.0.params.temperature")), 0.7);
    QVERIFY(!config.contains(QStringLiteral("models.0.params.seed")));

    config.setDouble(QStringLiteral("models.0.params.temperature"), 2.0);
    QCOMPARE(params.getDouble(QStringLiteral("temperature")), 0.1);
}

void TestJsonConfig::getArrayElements()
{
    const JsonConfig config = sample();
    const QList<JsonConfig> models = config.getArray(QStringLiteral("models"));
    QCOMPARE(models.size(), 2);
    QCOMPARE(models.at(0).getString(QStringLiteral("id")), QStringLiteral("m0"));
    QCOMPARE(models.at(1).getStringList(QStringLiteral("params.stop")),
             (QStringList{QStringLiteral("\n"), QStringLiteral("END")}));

    // Objects and arrays keep their content; any other element becomes an empty object.
    const QList<JsonConfig> mixed = config.getArray(QStringLiteral("mixed"));
    QCOMPARE(mixed.size(), 6);
    for (int i = 0; i < 4; ++i) {
        QVERIFY(mixed.at(i).isObject());
        QVERIFY(mixed.at(i).isEmpty());
    }
    QCOMPARE(mixed.at(4).getString(QStringLiteral("k")), QStringLiteral("v"));
    QVERIFY(mixed.at(5).isArray());
    QCOMPARE(mixed.at(5).getInt(QStringLiteral("0")), 1);

    // Elements are independent of the document.
    JsonConfig first = models.at(0);
    first.setString(QStringLiteral("id"), QStringLiteral("changed"));
    QCOMPARE(config.getString(QStringLiteral("models.0.id")), QStringLiteral("m0"));
    QVERIFY(config.getArray(QStringLiteral("emptyArray")).isEmpty());
}

void TestJsonConfig::listGetters()
{
    const JsonConfig config = sample();
    // Wrongly-typed elements read as the type's empty value and keep their position.
    QCOMPARE(config.getStringList(QStringLiteral("mixed")),
             (QStringList{QStringLiteral("x"), QString(), QString(), QString(), QString(), QString()}));
    QCOMPARE(config.getIntArray(QStringLiteral("mixed")), (QList<qint64>{0, 1, 0, 0, 0, 0}));
    QCOMPARE(config.getDoubleArray(QStringLiteral("mixed")), (QList<double>{0, 1, 0, 0, 0, 0}));
    QCOMPARE(config.getIntArray(QStringLiteral("doubles")), (QList<qint64>{0, 1, 0}));
    QCOMPARE(config.getDoubleArray(QStringLiteral("numbers")), (QList<double>{1, 2, 3}));
    QVERIFY(config.getStringList(QStringLiteral("emptyArray")).isEmpty());
}

// =======================================================================================
// dot paths

void TestJsonConfig::dotPathsIntoNestedArrays()
{
    const JsonConfig config(R"({"a": {"b": [{"c": 1}, {"c": [10, [20, {"d": "deep"}]]}]}})");
    QCOMPARE(config.getInt(QStringLiteral("a.b.0.c")), 1);
    QCOMPARE(config.getInt(QStringLiteral("a.b.1.c.0")), 10);
    QCOMPARE(config.getInt(QStringLiteral("a.b.1.c.1.0")), 20);
    QCOMPARE(config.getString(QStringLiteral("a.b.1.c.1.1.d")), QStringLiteral("deep"));
    QVERIFY(config.isArray(QStringLiteral("a.b.1.c.1")));
    QVERIFY(!config.contains(QStringLiteral("a.b.2")));
    QVERIFY(!config.contains(QStringLiteral("a.b.1.c.1.1.d.e")));
}

void TestJsonConfig::numericSegmentOnObjectIsAKey()
{
    const JsonConfig config = sample();
    QCOMPARE(config.getString(QStringLiteral("0")), QStringLiteral("zero-key"));

    JsonConfig object(R"({"o": {"1": "one"}})");
    QCOMPARE(object.getString(QStringLiteral("o.1")), QStringLiteral("one"));
    object.setString(QStringLiteral("o.5"), QStringLiteral("five"));
    QVERIFY(object.isObject(QStringLiteral("o"))); // not turned into an array
    QCOMPARE(object.keys(QStringLiteral("o")), (QStringList{QStringLiteral("1"), QStringLiteral("5")}));
}

void TestJsonConfig::invalidArraySegments_data()
{
    QTest::addColumn<QString>("key");
    QTest::newRow("negative") << QStringLiteral("list.-1");
    QTest::newRow("past the end") << QStringLiteral("list.3");
    QTest::newRow("huge") << QStringLiteral("list.99999999999999999999999");
    QTest::newRow("word") << QStringLiteral("list.first");
    QTest::newRow("plus sign") << QStringLiteral("list.+1");
    QTest::newRow("space") << QStringLiteral("list. 1");
    QTest::newRow("hex") << QStringLiteral("list.0x1");
    QTest::newRow("fraction") << QStringLiteral("list.1.5");
    QTest::newRow("empty") << QStringLiteral("list.");
    QTest::newRow("arabic-indic digit") << QString::fromUtf8("list.\xD9\xA1");
}

void TestJsonConfig::invalidArraySegments()
{
    QFETCH(QString, key);
    const JsonConfig config(R"({"list": ["a", "b", "c"]})");
    bool ok = true;
    QCOMPARE(config.getValue(key, &ok).type(), QJsonValue::Undefined);
    QVERIFY(!ok);
    QVERIFY(!config.contains(key));
}

void TestJsonConfig::emptySegmentsAreLiteralKeys()
{
    JsonConfig config;
    config.setInt(QStringLiteral("a..b"), 1);
    QCOMPARE(config.getInt(QStringLiteral("a..b")), 1);
    QCOMPARE(config.keys(QStringLiteral("a")), QStringList{QString()});
    config.setInt(QStringLiteral("t."), 2);
    QCOMPARE(config.getInt(QStringLiteral("t.")), 2);
    config.setInt(QStringLiteral(".lead"), 3);
    QCOMPARE(config.getInt(QStringLiteral(".lead")), 3);
    QCOMPARE(compact(config), QStringLiteral(R"({"":{"lead":3},"a":{"":{"b":1}},"t":{"":2}})"));
    // Leading zeros still index arrays.
    const JsonConfig array(R"({"l": [0, 1]})");
    QCOMPARE(array.getInt(QStringLiteral("l.01")), 1);
}

// =======================================================================================
// setters

void TestJsonConfig::setterCreatesObjectIntermediates()
{
    JsonConfig config;
    config.setString(QStringLiteral("a.b.c"), QStringLiteral("v"));
    QCOMPARE(compact(config), QStringLiteral(R"({"a":{"b":{"c":"v"}}})"));
    config.setInt(QStringLiteral("a.b.d"), 1);
    QCOMPARE(compact(config), QStringLiteral(R"({"a":{"b":{"c":"v","d":1}}})"));
}

void TestJsonConfig::setterCreatesArrayIntermediates()
{
    JsonConfig config;
    config.setString(QStringLiteral("list.0.name"), QStringLiteral("first"));
    QCOMPARE(compact(config), QStringLiteral(R"({"list":[{"name":"first"}]})"));
    config.setInt(QStringLiteral("list.1.0"), 5);
    QCOMPARE(compact(config), QStringLiteral(R"({"list":[{"name":"first"},[5]]})"));
    config.setBool(QStringLiteral("list.0.flags.0"), true);
    QCOMPARE(compact(config), QStringLiteral(R"({"list":[{"flags":[true],"name":"first"},[5]]})"));
}

void TestJsonConfig::setterPadsArraysWithNull()
{
    JsonConfig config;
    config.setInt(QStringLiteral("a.3"), 7);
    QCOMPARE(compact(config), QStringLiteral(R"({"a":[null,null,null,7]})"));
    QVERIFY(config.isNull(QStringLiteral("a.0")));
    config.setInt(QStringLiteral("a.5.x"), 1);
    QCOMPARE(compact(config), QStringLiteral(R"({"a":[null,null,null,7,null,{"x":1}]})"));
    config.setInt(QStringLiteral("a.4"), 4); // inside: replaced, not padded
    QCOMPARE(config.getIntArray(QStringLiteral("a")), (QList<qint64>{0, 0, 0, 7, 4, 0}));
    QCOMPARE(config.getArray(QStringLiteral("a")).size(), 6);
}

void TestJsonConfig::setterReplacesWrongTypedIntermediates()
{
    JsonConfig config(R"({"s": "scalar", "n": null, "arr": [1, 2], "num": 5})");
    config.setInt(QStringLiteral("s.x"), 1);          // scalar → object
    config.setInt(QStringLiteral("n.0"), 2);          // null → array (numeric next)
    config.setInt(QStringLiteral("arr.key"), 3);      // array + word → object
    config.setInt(QStringLiteral("num.1.deep"), 4);   // scalar → array → object
    QCOMPARE(compact(config),
             QStringLiteral(R"({"arr":{"key":3},"n":[2],"num":[null,{"deep":4}],"s":{"x":1}})"));
}

void TestJsonConfig::setterOverwritesExistingValues()
{
    JsonConfig config(R"({"a": {"b": [1, 2, 3]}, "c": "old"})");
    config.setString(QStringLiteral("c"), QStringLiteral("new"));
    config.setInt(QStringLiteral("a.b.1"), 20);
    config.setValue(QStringLiteral("a.b.2"), QJsonValue(QJsonObject{{QStringLiteral("z"), 1}}));
    QCOMPARE(compact(config), QStringLiteral(R"({"a":{"b":[1,20,{"z":1}]},"c":"new"})"));
    config.setValue(QStringLiteral("a"), QJsonValue(QJsonValue::Null));
    QCOMPARE(compact(config), QStringLiteral(R"({"a":null,"c":"new"})"));
    QVERIFY(config.isNull(QStringLiteral("a")));
}

void TestJsonConfig::setValueOnEmptyKeyReplacesRoot()
{
    JsonConfig config(R"({"a": 1})");
    config.setValue(QString(), QJsonValue(QJsonArray{1, 2}));
    QVERIFY(config.isArray());
    QCOMPARE(compact(config), QStringLiteral("[1,2]"));
    config.setValue(QString(), QJsonValue(QStringLiteral("scalar"))); // ignored
    QCOMPARE(compact(config), QStringLiteral("[1,2]"));
    config.setInt(QString(), 5); // ignored
    QCOMPARE(compact(config), QStringLiteral("[1,2]"));
    config.setObject(QString(), JsonConfig(R"({"b": 2})"));
    QCOMPARE(compact(config), QStringLiteral(R"({"b":2})"));
}

void TestJsonConfig::typedSetters()
{
    JsonConfig config;
    config.setInt(QStringLiteral("i"), -42);
    config.setString(QStringLiteral("s"), QStringLiteral("str"));
    config.setBool(QStringLiteral("b"), false);
    config.setDouble(QStringLiteral("d"), 1.5);
    config.setStringList(QStringLiteral("sl"), {QStringLiteral("x"), QStringLiteral("y")});
    config.setArray(QStringLiteral("sa"), QStringList{QStringLiteral("z")});
    config.setIntArray(QStringLiteral("ia"), {1, 2, 3});
    config.setDoubleArray(QStringLiteral("da"), {0.5, -1.25});
    config.setValue(QStringLiteral("v"), QJsonValue(QJsonValue::Null));

    QCOMPARE(config.getInt(QStringLiteral("i")), -42);
    QCOMPARE(config.getString(QStringLiteral("s")), QStringLiteral("str"));
    QCOMPARE(config.getBool(QStringLiteral("b"), nullptr), false);
    QVERIFY(config.isBool(QStringLiteral("b")));
    QCOMPARE(config.getDouble(QStringLiteral("d")), 1.5);
    QCOMPARE(config.getStringList(QStringLiteral("sl")), (QStringList{QStringLiteral("x"), QStringLiteral("y")}));
    QCOMPARE(config.getStringList(QStringLiteral("sa")), QStringList{QStringLiteral("z")});
    QCOMPARE(config.getIntArray(QStringLiteral("ia")), (QList<qint64>{1, 2, 3}));
    QCOMPARE(config.getDoubleArray(QStringLiteral("da")), (QList<double>{0.5, -1.25}));
    QVERIFY(config.isNull(QStringLiteral("v")));
    QCOMPARE(compact(config),
             QStringLiteral(R"({"b":false,"d":1.5,"da":[0.5,-1.25],"i":-42,"ia":[1,2,3],)"
                            R"("s":"str","sa":["z"],"sl":["x","y"],"v":null})"));
    // Empty lists store empty arrays.
    config.setIntArray(QStringLiteral("ia"), {});
    QVERIFY(config.isArray(QStringLiteral("ia")));
    QVERIFY(config.isEmpty(QStringLiteral("ia")));
}

void TestJsonConfig::setObjectAndSetArray()
{
    JsonConfig config;
    JsonConfig child(R"({"k": [1]})");
    config.setObject(QStringLiteral("child"), child);
    child.setInt(QStringLiteral("k.0"), 2); // later changes of the source do not leak in
    QCOMPARE(config.getInt(QStringLiteral("child.k.0")), 1);

    config.setArray(QStringLiteral("list"),
                    QList<JsonConfig>{JsonConfig(R"({"a": 1})"), JsonConfig(R"([2])"), JsonConfig()});
    QCOMPARE(compact(config.getObject(QStringLiteral("child"))), QStringLiteral(R"({"k":[1]})"));
    QCOMPARE(config.getValue(QStringLiteral("list")).toArray(),
             (QJsonArray{QJsonObject{{QStringLiteral("a"), 1}}, QJsonArray{2}, QJsonObject()}));
    config.setArray(QStringLiteral("list"), QList<JsonConfig>{});
    QVERIFY(config.isArray(QStringLiteral("list")));
    QVERIFY(config.isEmpty(QStringLiteral("list")));
}

void TestJsonConfig::setIntoArrayRoot()
{
    JsonConfig config(R"([{"a": 1}])");
    config.setInt(QStringLiteral("0.b"), 2);
    config.setInt(QStringLiteral("2"), 3);
    QCOMPARE(compact(config), QStringLiteral(R"([{"a":1,"b":2},null,3])"));
    // A word segment on an array root replaces it with an object, like any intermediate.
    config.setInt(QStringLiteral("word"), 4);
    QCOMPARE(compact(config), QStringLiteral(R"({"word":4})"));
}

void TestJsonConfig::setterLimitsIgnoreHostileKeys()
{
    JsonConfig config(R"({"keep": [1]})");
    const QString before = compact(config);

    // Padding beyond the limit is refused as a whole (no partial change).
    config.setInt(QStringLiteral("keep.%1").arg(JsonConfig::MaxArrayPadding + 2), 1);
    config.setInt(QStringLiteral("fresh.%1").arg(JsonConfig::MaxArrayPadding + 1), 1);
    config.setInt(QStringLiteral("a.b.999999999999999999"), 1);
    QCOMPARE(compact(config), before);

    // Exactly at the limit is allowed.
    config.setInt(QStringLiteral("pad.%1").arg(JsonConfig::MaxArrayPadding), 1);
    QCOMPARE(config.getValue(QStringLiteral("pad")).toArray().size(), JsonConfig::MaxArrayPadding + 1);
    config.remove(QStringLiteral("pad"));

    // Too deep a path is refused; the deepest allowed one works.
    QStringList deep(JsonConfig::MaxPathDepth + 1, QStringLiteral("d"));
    config.setInt(deep.join(u'.'), 1);
    QCOMPARE(compact(config), before);
    deep.removeLast();
    config.setInt(deep.join(u'.'), 1);
    QCOMPARE(config.getInt(deep.join(u'.')), 1);
    QVERIFY(config.remove(QStringLiteral("d")));
    QCOMPARE(compact(config), before);
}

// =======================================================================================
// keys / contains / remove / clear

void TestJsonConfig::keysOfObjectsAndArrays()
{
    const JsonConfig config(R"({"z": 1, "a": {"y": 1, "b": 2, "B": 3}, "arr": [5, 6], "s": "x"})");
    QCOMPARE(config.keys(), (QStringList{QStringLiteral("a"), QStringLiteral("arr"), QStringLiteral("s"),
                                         QStringLiteral("z")}));
    QCOMPARE(config.keys(QStringLiteral("a")),
             (QStringList{QStringLiteral("B"), QStringLiteral("b"), QStringLiteral("y")}));
    QCOMPARE(config.keys(QStringLiteral("arr")), (QStringList{QStringLiteral("0"), QStringLiteral("1")}));
    QVERIFY(config.keys(QStringLiteral("s")).isEmpty());
    QVERIFY(config.keys(QStringLiteral("missing")).isEmpty());
    QVERIFY(config.keys(QStringLiteral("a.y")).isEmpty());
}

void TestJsonConfig::containsFollowsPaths()
{
    const JsonConfig config = sample();
    QVERIFY(config.contains(QStringLiteral("name")));
    QVERIFY(config.contains(QStringLiteral("nothing"))); // a null value exists
    QVERIFY(config.contains(QStringLiteral("models.1.params.stop.1")));
    QVERIFY(config.contains(QStringLiteral("emptyObject")));
    QVERIFY(!config.contains(QStringLiteral("models.2")));
    QVERIFY(!config.contains(QStringLiteral("Name"))); // case-sensitive
    QVERIFY(!config.contains(QStringLiteral("name.x")));
}

void TestJsonConfig::removeObjectKeysAndArrayElements()
{
    JsonConfig config(R"({"a": {"b": 1, "c": [10, 20, 30]}, "d": 2})");
    QVERIFY(config.remove(QStringLiteral("a.b")));
    QCOMPARE(compact(config), QStringLiteral(R"({"a":{"c":[10,20,30]},"d":2})"));
    QVERIFY(config.remove(QStringLiteral("a.c.1")));
    QCOMPARE(compact(config), QStringLiteral(R"({"a":{"c":[10,30]},"d":2})"));
    QVERIFY(config.remove(QStringLiteral("d")));
    QVERIFY(config.remove(QStringLiteral("a.c")));
    QCOMPARE(compact(config), QStringLiteral(R"({"a":{}})"));

    JsonConfig array(R"([[1, 2], {"x": 1}])");
    QVERIFY(array.remove(QStringLiteral("0.0")));
    QVERIFY(array.remove(QStringLiteral("1.x")));
    QVERIFY(array.remove(QStringLiteral("0")));
    QCOMPARE(compact(array), QStringLiteral("[{}]"));
}

void TestJsonConfig::removeMissingKeysReturnsFalse()
{
    JsonConfig config(R"({"a": {"b": [1]}, "s": "x"})");
    const QString before = compact(config);
    QVERIFY(!config.remove(QStringLiteral("missing")));
    QVERIFY(!config.remove(QStringLiteral("a.x")));
    QVERIFY(!config.remove(QStringLiteral("a.b.1")));
    QVERIFY(!config.remove(QStringLiteral("a.b.word")));
    QVERIFY(!config.remove(QStringLiteral("s.x")));
    QVERIFY(!config.remove(QString())); // the root cannot be removed
    QCOMPARE(compact(config), before);
}

void TestJsonConfig::removeOnSharedCopyDoesNotAffectOriginal()
{
    const JsonConfig original(R"({"a": {"b": [1, 2]}})");
    JsonConfig copy = original;
    QVERIFY(copy.remove(QStringLiteral("a.b.0")));
    QCOMPARE(compact(original), QStringLiteral(R"({"a":{"b":[1,2]}})"));
    QCOMPARE(compact(copy), QStringLiteral(R"({"a":{"b":[2]}})"));
}

void TestJsonConfig::clearEmptiesTheDocument()
{
    JsonConfig config = sample();
    config.clear();
    QVERIFY(config.isObject());
    QVERIFY(config.isEmpty());
    QCOMPARE(compact(config), QStringLiteral("{}"));
    JsonConfig array(R"([1])");
    array.clear();
    QVERIFY(array.isObject() && array.isEmpty());
}

// =======================================================================================
// predicates

void TestJsonConfig::predicates_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<bool>("empty");
    QTest::addColumn<bool>("null");
    QTest::addColumn<bool>("object");
    QTest::addColumn<bool>("array");
    QTest::addColumn<bool>("string");
    QTest::addColumn<bool>("boolean");
    QTest::addColumn<bool>("integer");
    QTest::addColumn<bool>("number");
    //                                          empty  null   object array  string bool   int    double
    QTest::newRow("string") << QStringLiteral("name") << false << false << false << false << true << false << false << false;
    QTest::newRow("int") << QStringLiteral("version") << false << false << false << false << false << false << true << true;
    QTest::newRow("double") << QStringLiteral("ratio") << false << false << false << false << false << false << false << true;
    QTest::newRow("integral double") << QStringLiteral("doubles.1") << false << false << false << false << false << false
                                     << true << true;
    QTest::newRow("bool") << QStringLiteral("enabled") << false << false << false << false << false << true << false << false;
    QTest::newRow("null") << QStringLiteral("nothing") << false << true << false << false << false << false << false << false;
    QTest::newRow("object") << QStringLiteral("nested") << false << false << true << false << false << false << false << false;
    QTest::newRow("empty object") << QStringLiteral("emptyObject") << true << false << true << false << false << false
                                  << false << false;
    QTest::newRow("array") << QStringLiteral("tags") << false << false << false << true << false << false << false << false;
    QTest::newRow("empty array") << QStringLiteral("emptyArray") << true << false << false << true << false << false << false
                                 << false;
    QTest::newRow("empty string is not empty()") << QStringLiteral("s") << false << false << false << false << true << false
                                                 << false << false;
    QTest::newRow("root") << QStringLiteral("") << false << false << true << false << false << false << false << false;
}

void TestJsonConfig::predicates()
{
    QFETCH(QString, key);
    QFETCH(bool, empty);
    QFETCH(bool, null);
    QFETCH(bool, object);
    QFETCH(bool, array);
    QFETCH(bool, string);
    QFETCH(bool, boolean);
    QFETCH(bool, integer);
    QFETCH(bool, number);
    JsonConfig config = sample();
    config.setString(QStringLiteral("s"), QString());
    QCOMPARE(config.isEmpty(key), empty);
    QCOMPARE(config.isNull(key), null);
    QCOMPARE(config.isObject(key), object);
    QCOMPARE(config.isArray(key), array);
    QCOMPARE(config.isString(key), string);
    QCOMPARE(config.isBool(key), boolean);
    QCOMPARE(config.isInt(key), integer);
    QCOMPARE(config.isDouble(key), number);
}

void TestJsonConfig::predicatesOnMissingKeys()
{
    const JsonConfig config = sample();
    for (const QString& key : {QStringLiteral("missing"), QStringLiteral("nested.missing"),
                               QStringLiteral("tags.9"), QStringLiteral("nothing.x")}) {
        QVERIFY2(!config.isEmpty(key), qPrintable(key));
        QVERIFY2(!config.isNull(key), qPrintable(key));
        QVERIFY2(!config.isObject(key), qPrintable(key));
        QVERIFY2(!config.isArray(key), qPrintable(key));
        QVERIFY2(!config.isString(key), qPrintable(key));
        QVERIFY2(!config.isBool(key), qPrintable(key));
        QVERIFY2(!config.isInt(key), qPrintable(key));
        QVERIFY2(!config.isDouble(key), qPrintable(key));
    }
}

void TestJsonConfig::isIntRange_data()
{
    QTest::addColumn<QString>("json");
    QTest::addColumn<bool>("isInt");
    QTest::newRow("zero") << QStringLiteral("0") << true;
    QTest::newRow("negative zero") << QStringLiteral("-0.0") << true;
    QTest::newRow("qint64 max") << QStringLiteral("9223372036854775807") << true;
    QTest::newRow("qint64 min") << QStringLiteral("-9223372036854775808") << true;
    QTest::newRow("2^63") << QStringLiteral("9223372036854775808") << false;
    QTest::newRow("1e18") << QStringLiteral("1e18") << true;
    QTest::newRow("1e19") << QStringLiteral("1e19") << false;
    QTest::newRow("-1e300") << QStringLiteral("-1e300") << false;
    QTest::newRow("0.1") << QStringLiteral("0.1") << false;
    QTest::newRow("2.0") << QStringLiteral("2.0") << true;
    QTest::newRow("string number") << QStringLiteral(R"("2")") << false;
}

void TestJsonConfig::isIntRange()
{
    QFETCH(QString, json);
    QFETCH(bool, isInt);
    const JsonConfig config(QStringLiteral(R"([%1])").arg(json));
    QCOMPARE(config.isInt(QStringLiteral("0")), isInt);
}

// =======================================================================================
// extensions

void TestJsonConfig::extensionRootAndFromValue()
{
    const JsonConfig config(R"({"a": [1]})");
    QCOMPARE(config.root(), QJsonValue(QJsonObject{{QStringLiteral("a"), QJsonArray{1}}}));
    QCOMPARE(compact(JsonConfig::fromValue(QJsonValue(QJsonArray{1, 2}))), QStringLiteral("[1,2]"));
    QCOMPARE(compact(JsonConfig::fromValue(config.getValue(QStringLiteral("a")))), QStringLiteral("[1]"));
    QCOMPARE(compact(JsonConfig::fromValue(QJsonValue(5))), QStringLiteral("{}"));
    QCOMPARE(compact(JsonConfig::fromValue(QJsonValue(QJsonValue::Undefined))), QStringLiteral("{}"));
}

void TestJsonConfig::extensionUtf8()
{
    const JsonConfig config(R"({"b": "ü", "a": [1, 2.5]})");
    QCOMPARE(config.toUtf8(), QByteArray(R"({"a":[1,2.5],"b":"ü"})"));
    QCOMPARE(config.toUtf8(QJsonDocument::Indented), config.toString().toUtf8());
    QJsonParseError error;
    const JsonConfig parsed = JsonConfig::fromUtf8(config.toUtf8(), &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(parsed.root(), config.root());
    const JsonConfig bad = JsonConfig::fromUtf8(QByteArray("{\"a\": \xff}"), &error);
    QVERIFY(error.error != QJsonParseError::NoError);
    QVERIFY(bad.isEmpty());
    QVERIFY(JsonConfig::fromUtf8(QByteArray()).isEmpty());
}

void TestJsonConfig::extensionUtf8WritesLoneSurrogatesAsReplacement()
{
    const QString lone(QChar(0xD800));
    const QString lowLone(QChar(0xDFFF));
    const QString pair = QString::fromUtf8("\xF0\x9F\x98\x80");
    const QString backslashText = QStringLiteral("\\ud800 and \\\\uDC00"); // literal backslashes
    JsonConfig config;
    config.setString(lone, QStringLiteral("a") + lowLone + lone); // low before high: two lone halves
    config.setString(QStringLiteral("pair"), pair);
    QByteArray json = config.toUtf8();
    QVERIFY2(!json.contains("\\ud8"), json.constData());
    QVERIFY2(!json.contains("\\udf"), json.constData());
    QVERIFY2(json.contains("\\ufffd"), json.constData());

    // Text that only looks like an escape (escaped backslashes) is left alone.
    config.setString(QStringLiteral("text"), backslashText);
    json = config.toUtf8();
    const JsonConfig parsed = JsonConfig::fromUtf8(json);
    const QString replacement(QChar(0xFFFD));
    QCOMPARE(parsed.getString(replacement), QStringLiteral("a") + replacement + replacement);
    QCOMPARE(parsed.getString(QStringLiteral("pair")), pair);
    QCOMPARE(parsed.getString(QStringLiteral("text")), backslashText);
    QCOMPARE(JsonConfig::fromUtf8(config.toUtf8(QJsonDocument::Indented)).root(), parsed.root());

    // toString() stays Qt's own text (the native behaviour), escapes and all.
    QVERIFY(config.toString(QJsonDocument::Compact).contains(QStringLiteral("\\ud800")));
}

// =======================================================================================
// robustness and cost

void TestJsonConfig::nothingCrashesOnOddKeys()
{
    JsonConfig config = sample();
    const QStringList keys = {
        QStringLiteral("."), QStringLiteral(".."), QString(100000, u'.'),
        QStringLiteral("a").repeated(100000), QStringLiteral("x.").repeated(50000),
        QString::fromUtf8("\xF0\x9F\x98\x80.\xF0\x9F\x98\x80"), QString(1, QChar(0)),
        QString(QChar(0xD800)), QStringLiteral("models.-0"), QStringLiteral("models.18446744073709551616"),
    };
    for (const QString& key : keys) {
        bool ok = true;
        config.getValue(key, &ok);
        config.getObject(key);
        config.getArray(key);
        config.keys(key);
        config.contains(key);
        config.isInt(key);
        config.isEmpty(key);
        JsonConfig copy = config;
        copy.setString(key, QStringLiteral("v"));
        copy.setObject(key, config);
        copy.remove(key);
    }
    // The original sample content is still intact.
    QCOMPARE(config.getString(QStringLiteral("nested.deep.deeper.value")), QStringLiteral("found"));
}

void TestJsonConfig::setOnLargeDocumentOnlyRebuildsThePath()
{
    // ~13 MB of JSON: 100 000 entries of ~130 bytes in one top-level array plus one
    // top-level object with 100 000 keys.
    JsonConfig config;
    {
        QJsonArray messages;
        QJsonObject index;
        const QString text = QStringLiteral("lorem ipsum dolor sit amet ").repeated(3);
        for (int i = 0; i < 100000; ++i) {
            messages.append(QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                                        {QStringLiteral("content"), text},
                                        {QStringLiteral("n"), i}});
            index.insert(QStringLiteral("key%1").arg(i), i);
        }
        config.setValue(QStringLiteral("messages"), QJsonValue(std::move(messages)));
        config.setValue(QStringLiteral("index"), QJsonValue(std::move(index)));
    }
    QVERIFY(config.toUtf8().size() > 10'000'000);

    QElapsedTimer timer;
    timer.start();
    // 20 000 writes into the big containers. Copying the touched containers on every
    // write would move gigabytes; writing in place takes milliseconds.
    for (int i = 0; i < 10000; ++i) {
        config.setInt(QStringLiteral("messages.%1.n").arg(i * 7), -i);
        config.setInt(QStringLiteral("index.key%1").arg(i * 3), -i);
    }
    // A shared copy pays one detach of the touched containers, not one per write.
    JsonConfig snapshot = config;
    for (int i = 0; i < 2000; ++i)
        snapshot.setInt(QStringLiteral("messages.%1.n").arg(i), 1);
    const qint64 elapsed = timer.elapsed();
    qInfo("20000 writes into a ~13 MB document + 2000 into a shared copy: %lld ms", elapsed);
    QVERIFY2(elapsed < 10000, qPrintable(QStringLiteral("took %1 ms").arg(elapsed)));

    QCOMPARE(config.getInt(QStringLiteral("messages.%1.n").arg(9999 * 7)), -9999);
    QCOMPARE(config.getInt(QStringLiteral("index.key%1").arg(9999 * 3)), -9999);
    QCOMPARE(config.getInt(QStringLiteral("messages.1.n")), 1); // untouched by the snapshot
    QCOMPARE(snapshot.getInt(QStringLiteral("messages.1.n")), 1);
    QCOMPARE(snapshot.getInt(QStringLiteral("messages.7.n")), 1);
    QCOMPARE(config.getInt(QStringLiteral("messages.7.n")), -1);

    // Save/load round trip of the whole document.
    timer.restart();
    const QByteArray saved = config.toUtf8();
    const JsonConfig loaded = JsonConfig::fromUtf8(saved);
    qInfo("save + load of %lld bytes: %lld ms", qint64(saved.size()), timer.elapsed());
    QCOMPARE(loaded.getArray(QStringLiteral("messages")).size(), 100000);
    QCOMPARE(loaded.keys(QStringLiteral("index")).size(), 100000);
}

// =======================================================================================
// the kept source text (lazy parse)

namespace {

using JsonConfigReference::disagreement;
using JsonConfigReference::disagreementOfText;

QByteArray printable(const QByteArray& text)
{
    return text.size() > 200 ? text.left(200).toPercentEncoding() + "..." : text.toPercentEncoding();
}

} // namespace

void TestJsonConfig::sourceTextIsKeptUntilAMutation()
{
    const QByteArray text = R"({"b":[1,2,{"c":"x"}],"a":"\u00e9\ud83d\ude00","n":-1.5e3})";
    JsonConfig config = JsonConfig::fromUtf8(text);
    bool strict = false;
    QCOMPARE(config.sourceUtf8(&strict), text);
    QVERIFY(strict);
    // Reads parse lazily and keep the source; Compact output is the text itself (its key order).
    QCOMPARE(config.getString(QStringLiteral("b.2.c")), QStringLiteral("x"));
    QCOMPARE(config.getDouble(QStringLiteral("n")), -1500.0);
    QCOMPARE(config.keys(), (QStringList{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("n")}));
    QCOMPARE(config.sourceUtf8(), text);
    QCOMPARE(config.toUtf8(QJsonDocument::Compact), text);
    QCOMPARE(config.toString(QJsonDocument::Compact), QString::fromUtf8(text));
    // Indented output is Qt's.
    QCOMPARE(config.toString(QJsonDocument::Indented),
             QString::fromUtf8(QJsonDocument::fromJson(text).toJson(QJsonDocument::Indented)));
    // Any mutation drops the source; output is then Qt's (sorted keys).
    const QByteArray qtCompact = QJsonDocument::fromJson(text).toJson(QJsonDocument::Compact);
    {
        JsonConfig c = config;
        c.setInt(QStringLiteral("z"), 1);
        QVERIFY(c.sourceUtf8().isNull());
        QCOMPARE(c.getInt(QStringLiteral("z")), 1);
        QCOMPARE(c.getString(QStringLiteral("b.2.c")), QStringLiteral("x"));
        QVERIFY(c.toUtf8().startsWith("{\"a\":"));
    }
    {
        JsonConfig c = config;
        QVERIFY(!c.remove(QStringLiteral("missing")));
        QCOMPARE(c.sourceUtf8(), text); // nothing removed, nothing changed
        QVERIFY(c.remove(QStringLiteral("b")));
        QVERIFY(c.sourceUtf8().isNull());
        QVERIFY(!c.contains(QStringLiteral("b")));
    }
    {
        JsonConfig c = config;
        c.clear();
        QVERIFY(c.sourceUtf8().isNull());
        QCOMPARE(compact(c), QStringLiteral("{}"));
    }
    {
        JsonConfig c = config;
        c.setValue(QString(), QJsonValue(QJsonArray{1}));
        QVERIFY(c.sourceUtf8().isNull());
        QCOMPARE(compact(c), QStringLiteral("[1]"));
    }
    {
        JsonConfig c = config;
        c.setObject(QStringLiteral("self"), c); // the value comes from the document itself
        QVERIFY(c.sourceUtf8().isNull());
        QCOMPARE(c.getString(QStringLiteral("self.b.2.c")), QStringLiteral("x"));
        QVERIFY(!c.contains(QStringLiteral("self.self")));
    }
    {
        JsonConfig c = config;
        QCOMPARE(c.parse(QStringLiteral("[true]")).error, QJsonParseError::NoError);
        QCOMPARE(c.sourceUtf8(), QByteArray("[true]"));
        QVERIFY(c.parse(QStringLiteral("[tru]")).error != QJsonParseError::NoError);
        QVERIFY(c.sourceUtf8().isNull());
        QCOMPARE(compact(c), QStringLiteral("{}"));
    }
    // Not built from text: no source.
    QVERIFY(JsonConfig().sourceUtf8().isNull());
    QVERIFY(JsonConfig::fromValue(QJsonValue(QJsonObject{{QStringLiteral("a"), 1}})).sourceUtf8().isNull());
    QVERIFY(config.getObject(QStringLiteral("b.2")).sourceUtf8().isNull());
    // Sub-documents and values read from an unparsed document are right.
    QCOMPARE(config.getArray(QStringLiteral("b")).size(), 3);
    QCOMPARE(qtCompact, QJsonDocument(config.root().toObject()).toJson(QJsonDocument::Compact));
    // Every construction from text keeps it.
    QCOMPARE(JsonConfig(QString::fromUtf8(text)).sourceUtf8(), text);
    QCOMPARE(JsonConfig(text.constData()).sourceUtf8(), text);
    QCOMPARE(JsonConfig(QVariant(text)).sourceUtf8(), text);
    QCOMPARE(JsonConfig(QVariant::fromValue(config)).sourceUtf8(), text);
}

void TestJsonConfig::sourceTextCompactOutputOnlyWhenCompactAndStrict()
{
    const auto qtCompact = [](const QByteArray& text) {
        return QJsonDocument::fromJson(text).toJson(QJsonDocument::Compact);
    };
    // Whitespace: kept as source, but Compact output is Qt's.
    const QByteArray spaced = "{ \"b\" : 1 , \"a\" : [ ] }";
    JsonConfig config = JsonConfig::fromUtf8(spaced);
    bool strict = false;
    QCOMPARE(config.sourceUtf8(&strict), spaced);
    QVERIFY(strict);
    QCOMPARE(config.toUtf8(), qtCompact(spaced));
    // Qt-only forms (a non-standard escape, a raw control character, a lone surrogate
    // escape): kept, not strict, and written by Qt (the surrogate as U+FFFD).
    for (const QByteArray& text : {QByteArray("[\"\\a\"]"), QByteArray("[\"\x01\"]"), QByteArray("[\"\\ud800\"]"),
                                   QByteArray("[\"\\udc00\\ud800\"]"), QByteArray("[.5]")}) {
        config = JsonConfig::fromUtf8(text, nullptr);
        QVERIFY2(config.sourceUtf8(&strict) == text, text.constData());
        QVERIFY2(!strict, text.constData());
        QCOMPARE(config.toString(QJsonDocument::Compact), QString::fromUtf8(JsonConfig::fromValue(config.root()).toUtf8()));
    }
    QCOMPARE(JsonConfig::fromUtf8("[\"\\ud800\"]").toUtf8(), QByteArray("[\"\\ufffd\"]"));
    // A valid pair stays strict.
    config = JsonConfig::fromUtf8("[\"\\ud83d\\ude00\"]");
    config.sourceUtf8(&strict);
    QVERIFY(strict);
    QCOMPARE(config.getString(QStringLiteral("0")), QString::fromUtf8("\xF0\x9F\x98\x80"));
}

void TestJsonConfig::copiesShareTheSourceAndStayIndependent()
{
    const QByteArray text = R"({"list":[1,2,3],"name":"n"})";
    const JsonConfig original = JsonConfig::fromUtf8(text);
    JsonConfig copy = original;
    JsonConfig moved = JsonConfig(original);
    JsonConfig target(std::move(moved));
    QCOMPARE(compact(moved), QStringLiteral("{}")); // a moved-from object is an empty object
    QVERIFY(moved.sourceUtf8().isNull());
    QCOMPARE(target.sourceUtf8(), text);
    // The source is shared (the same bytes), parsed once for all.
    QCOMPARE(copy.sourceUtf8().constData(), original.sourceUtf8().constData());
    copy.setString(QStringLiteral("name"), QStringLiteral("changed"));
    copy.setInt(QStringLiteral("list.0"), 9);
    QCOMPARE(original.getString(QStringLiteral("name")), QStringLiteral("n"));
    QCOMPARE(original.getInt(QStringLiteral("list.0")), 1);
    QCOMPARE(original.sourceUtf8(), text);
    QCOMPARE(original.toUtf8(), text);
    QCOMPARE(copy.getString(QStringLiteral("name")), QStringLiteral("changed"));
    QCOMPARE(copy.getInt(QStringLiteral("list.0")), 9);
    QCOMPARE(target.getInt(QStringLiteral("list.0")), 1);
    // Copy-assignment and swap carry the source.
    JsonConfig assigned;
    assigned = original;
    QCOMPARE(assigned.sourceUtf8(), text);
    JsonConfig other;
    other.swap(assigned);
    QCOMPARE(other.sourceUtf8(), text);
    QVERIFY(assigned.sourceUtf8().isNull());
    QCOMPARE(compact(assigned), QStringLiteral("{}"));
}

void TestJsonConfig::lazyParseUnderConcurrentConstReads()
{
    // A document large enough that the threads overlap its parse.
    QByteArray text = "{\"items\":[";
    for (int i = 0; i < 20000; ++i) {
        if (i)
            text += ',';
        text += "{\"n\":" + QByteArray::number(i) + ",\"s\":\"value " + QByteArray::number(i) + "\"}";
    }
    text += "]}";
    for (int round = 0; round < 5; ++round) {
        const JsonConfig shared = JsonConfig::fromUtf8(text);
        const JsonConfig copy = shared; // shares the not yet parsed source
        QList<QThread*> threads;
        QAtomicInt failures = 0;
        for (int t = 0; t < 8; ++t) {
            const JsonConfig* config = (t % 2) ? &shared : &copy;
            threads.append(QThread::create([config, t, &failures] {
                const int i = 1000 * t + 7;
                if (config->getInt(QStringLiteral("items.%1.n").arg(i)) != i)
                    failures.ref();
                if (config->getString(QStringLiteral("items.%1.s").arg(i)) != QStringLiteral("value %1").arg(i))
                    failures.ref();
                if (config->getArray(QStringLiteral("items")).size() != 20000)
                    failures.ref();
                if (config->keys() != QStringList{QStringLiteral("items")})
                    failures.ref();
                if (config->toUtf8().size() <= 0)
                    failures.ref();
            }));
        }
        for (QThread* thread : threads)
            thread->start();
        for (QThread* thread : threads) {
            QVERIFY(thread->wait(60000));
            delete thread;
        }
        QCOMPARE(failures.loadRelaxed(), 0);
        QCOMPARE(shared.sourceUtf8(), text);
    }
}

void TestJsonConfig::validatorAgreesWithQtOnCorpus()
{
    const QList<QByteArray> corpus = {
        // valid
        "{}", "[]", " { } ", "\t[\r\n]\n", "[1]", "[-0]", "[0.5]", "[1e5]", "[1E+5]", "[1e-5]", "[-1.25e-3]",
        "[9223372036854775807]", "[9223372036854775808]", "[-9223372036854775809]", "[123456789012345678901234567890]",
        "[1.000]", "[1.5]", "[true,false,null]", "{\"a\":{\"b\":[{}]}}", "[\"\"]", "[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"]",
        "[\"\\u0041\\u00e9\\u4e2d\\uD83D\\uDE00\"]", "[\"\\ud800\"]", "[\"\\udc00\"]", "[\"\\ud800\\ud800\"]",
        "[\"\\ud800x\"]", "[\"\\x\"]", "[\"\\a\"]", "[\"\\\xc3\"]", "[\"\\\xff\"]", "[\"\x01\x1f\"]", "[\"\x7f\"]",
        "[\"\xc3\xa9\"]", "[\"\xe4\xb8\xad\"]", "[\"\xf0\x9f\x98\x80\"]", "[\"\xef\xbf\xbe\"]", "[\"\xef\xbf\xbf\"]",
        "[\"\xf4\x8f\xbf\xbf\"]", "[\"\xee\x80\x80\"]", "{\"a\":1,\"a\":2}", "[.5]", "[1.]", "[-.5]", "[1.e5]",
        "[1e400]", "[-1e400]", "[1e-400]", "[0.0e0]", "[1" + QByteArray(400, '0') + "]",
        "[0." + QByteArray(400, '0') + "1]", "[1" + QByteArray(400, '0') + ".5]",
        "[\"" + QByteArray(100, 'a') + "\\n" + QByteArray(50, 'b') + "\"]",
        // invalid
        "", " ", "x", "1", "\"s\"", "null", "true", "{", "[", "[1", "[1,", "[1,]", "[,1]", "[1 2]", "{\"a\"}",
        "{\"a\":}", "{\"a\" 1}", "{\"a\":1,}", "{,}", "{1:1}", "{'a':1}", "[tru]", "[nul]", "[nulll]", "[truex]",
        "[-]", "[+1]", "[01]", "[-01]", "[1e]", "[1e+]", "[1.5.5]", "[0x10]", "[Infinity]", "[NaN]", "[\"abc]",
        "[\"\\u12\"]", "[\"\\u12g4\"]", "[\"\\", "[\"\\\"]", "[\"\x80\"]", "[\"\xc0\x80\"]", "[\"\xc1\xbf\"]",
        "[\"\xe0\x80\x80\"]", "[\"\xed\xa0\x80\"]", "[\"\xf0\x80\x80\x80\"]", "[\"\xf4\x90\x80\x80\"]",
        "[\"\xf5\x80\x80\x80\"]", "[\"\xc3\"]", "[\"\xe4\xb8\"]", "[\"\xff\"]", "[] []", "[]x", "{}}", "[]]",
        "\xef\xbb\xbf[]", QByteArray("[1]\x00", 4), QByteArray("[\"a\"\x00]", 6), QByteArray("[\x00]", 3),
        QByteArray("[\"\x00\"]", 5), "[1e5", "[\"\xc3\xa9", "{\"a\":1", "[{]", "[{}",
        "[\"\\u", "[\"\\ud83d\\u", "[\"\\ud83d\\ude0", "{\"\\\":1}",
    };
    for (const QByteArray& text : corpus) {
        const QString problem = disagreement(text);
        QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("%1: %2").arg(problem, QString::fromLatin1(printable(text)))));
    }
}

void TestJsonConfig::textIsCheckedAsItsUtf8Image()
{
    // What only a QString can hold: lone surrogates (Qt writes them as '?'), raw or escaped,
    // and escaped non-ASCII characters, in strings and where a value or key belongs.
    const QChar high(0xd83d), low(0xde00), cjk(0x4e2d), e(0xe9);
    auto text = [](std::initializer_list<QString> parts) {
        QString out;
        for (const QString& part : parts)
            out += part;
        return out;
    };
    const QString q = QStringLiteral("\""), bs = QStringLiteral("\\");
    const QList<QString> cases = {
        text({"[", q, high, q, "]"}), text({"[", q, low, q, "]"}), text({"[", q, high, low, q, "]"}),
        text({"[", q, low, high, q, "]"}), text({"[", q, bs, high, q, "]"}), text({"[", q, bs, low, q, "]"}),
        text({"[", q, bs, high, low, q, "]"}), text({"[", q, bs, high, high, q, "]"}), text({"[", q, bs, cjk, q, "]"}),
        text({"[", q, bs, e, q, "]"}), text({"[", q, bs, high}), text({"[", high, "]"}), text({"[", cjk, "]"}),
        text({"{", q, high, q, ":1}"}), text({"{", q, "k", q, ":", low, "}"}), text({"[1", high, "]"}),
        text({"[", q, "a", QString(QChar(0x1f)), e, cjk, high, low, q, "]"}), text({"[", q, QString(7, cjk), bs, "u00e9", q, "]"}),
        text({"[", q, QString(9, e), bs, "ud83d", bs, "ude00", q, "]"}), text({QString(QChar(0xfeff)), "[]"}),
    };
    for (const QString& t : cases) {
        const QString problem = disagreementOfText(t);
        QVERIFY2(problem.isEmpty(), qPrintable(problem + QStringLiteral(": ") + QString::fromLatin1(printable(t.toUtf8()))));
    }
}

void TestJsonConfig::largeTextIsCheckedWhileConverted()
{
    // Past the size from which the check runs on a thread of its own (1 Mi UTF-16 units).
    QString big = QStringLiteral("{\"items\":[");
    for (int i = 0; big.size() < (1 << 21); ++i)
        big += QStringLiteral("{\"n\":%1,\"t\":\"caf\u00e9 \\n na\u00efve \u4e2d \u2014 %1\"},").arg(i);
    big += QStringLiteral("true]}");
    QVERIFY(disagreementOfText(big).isEmpty());
    JsonConfig config;
    QCOMPARE(config.parse(big).error, QJsonParseError::NoError);
    QCOMPARE(config.sourceUtf8(), big.toUtf8());
    QCOMPARE(JsonConfig::fromJson(big).sourceUtf8(), big.toUtf8());
    // Broken near the end, and in the middle: Qt's error, at Qt's offset.
    for (const qsizetype at : {big.size() - 3, big.size() / 2}) {
        QString broken = big;
        broken[at] = QLatin1Char('#');
        const QString problem = disagreementOfText(broken);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QVERIFY(config.parse(broken).error != QJsonParseError::NoError);
        QVERIFY(config.sourceUtf8().isNull());
    }
}

void TestJsonConfig::validatorAgreesWithQtOnNestingLimit()
{
    for (int depth : {1, 2, 1023, 1024, 1025, 1026, 3000}) {
        for (const char* pair : {"[]", "{}"}) {
            QByteArray text;
            for (int i = 0; i < depth; ++i)
                text += (pair[0] == '[' || i == 0) ? QByteArray(1, pair[0]) : QByteArray("\"k\":") + pair[0];
            text += QByteArray(depth, pair[1]);
            const QString problem = disagreement(text);
            QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("depth %1 %2: %3").arg(depth).arg(pair[0]).arg(problem)));
        }
    }
}

void TestJsonConfig::validatorAgreesWithQtOnRandomMutations()
{
    const QList<QByteArray> seeds = {
        R"({"models":[{"id":"m","parameters":{"temperature":0.7,"max_tokens":256}}],"dialogs":[{"id":"d","messages":[{"role":"user","content":"hi \"there\"\n\u00e9"}]}]})",
        R"([1,-2.5e10,true,false,null,"\ud83d\ude00",{"a":[{}],"b":{"c":""}},[[]],0.0001,"é中😀"])",
        "{\"text\":\"" + QByteArray(70, 'x') + "\\\\\\/\\b\\u0000\",\"n\":[0,1e-5,123456789012,-0.5]}",
        " [ { \"k\" : [ 1 , 2 ] } , \"\\t\" ] ",
    };
    const QByteArray interesting = QByteArray("[]{}\":,\\u0123456789abcdefABCDEF.eE+-tfnrl \t\r\n\x01\x1f\x7f\x80\xbf\xc2\xc3\xe0\xed\xef\xf0\xf4\xf5\xff")
        + QByteArray(1, '\0');
    QRandomGenerator random(20240917);
    int checked = 0;
    for (int iteration = 0; iteration < 60000; ++iteration) {
        QByteArray text = seeds[random.bounded(seeds.size())];
        const int edits = 1 + random.bounded(3);
        for (int e = 0; e < edits && !text.isEmpty(); ++e) {
            const qsizetype at = random.bounded(text.size());
            const char c = random.bounded(4) == 0 ? char(random.bounded(256)) : interesting[random.bounded(interesting.size())];
            switch (random.bounded(5)) {
            case 0: text[at] = c; break;
            case 1: text.insert(at, c); break;
            case 2: text.remove(at, 1 + random.bounded(3)); break;
            case 3: text.insert(at, text.mid(random.bounded(text.size()), 1 + random.bounded(8))); break;
            default: text.truncate(at); break;
            }
        }
        const QString problem = disagreement(text);
        QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("%1: %2").arg(problem, QString::fromLatin1(printable(text)))));
        ++checked;
    }
    QCOMPARE(checked, 60000);
}

// QJsonDocument drops a raw U+FEFF at the start of a string value (it keeps one anywhere
// else); the source text the core reads keeps it. Both views must agree on the character.
void TestJsonConfig::aByteOrderMarkAtTheStartOfAStringIsKept()
{
    const QString bom(QChar(0xFEFF));
    const QByteArray text = QByteArrayLiteral("{\"a\":\"\xEF\xBB\xBFx\",\"b\":\"y\xEF\xBB\xBF\",\"c\":\"q\\\"\xEF\xBB\xBFz\"}");
    QCOMPARE(QJsonDocument::fromJson(text).object().value("a").toString(), QStringLiteral("x")); // Qt's quirk
    for (const JsonConfig& config : {JsonConfig::fromUtf8(text), JsonConfig::fromJson(QString::fromUtf8(text))}) {
        QCOMPARE(config.getString(QStringLiteral("a")), bom + QStringLiteral("x"));
        QCOMPARE(config.getString(QStringLiteral("b")), QStringLiteral("y") + bom);
        QCOMPARE(config.getString(QStringLiteral("c")), QStringLiteral("q\"") + bom + QStringLiteral("z"));
        QCOMPARE(config.sourceUtf8(), text); // what the core is handed
    }
    // Two of them: Qt drops the first only; both are text.
    const QByteArray two = QByteArrayLiteral("[\"\xEF\xBB\xBF\xEF\xBB\xBFx\"]");
    QCOMPARE(QJsonDocument::fromJson(two).array().at(0).toString(), bom + QStringLiteral("x")); // Qt's quirk
    QCOMPARE(JsonConfig::fromUtf8(two).getString(QStringLiteral("0")), bom + bom + QStringLiteral("x"));
    // Through the core and back: a message's content keeps the character.
    Visindigo::Agent::Message message;
    message.fromJson(JsonConfig::fromUtf8(QByteArrayLiteral("{\"role\":\"user\",\"content\":\"\xEF\xBB\xBFhi\"}")));
    QCOMPARE(message.getContent(), bom + QStringLiteral("hi"));
    QCOMPARE(message.toJson().getString(QStringLiteral("content")), bom + QStringLiteral("hi"));

    // Invalid text with such a string: the error is Qt's, at Qt's offset in the text as given
    // (found by fuzz/cpp/jsonconfig.cpp: it was three bytes late per escape before it), also
    // for a raw U+FEFF after a closing quote.
    for (const QByteArray& broken : {QByteArrayLiteral("[\"\xEF\xBB\xBFkud\" \"x\"]"), QByteArrayLiteral("[\"a\"\xEF\xBB\xBF]"),
                                     QByteArrayLiteral("{\"\xEF\xBB\xBFk\":1,\"\xEF\xBB\xBFm\" 2}")}) {
        QJsonParseError qt;
        QJsonDocument::fromJson(broken, &qt);
        QVERIFY(qt.error != QJsonParseError::NoError);
        QJsonParseError ours;
        JsonConfig::fromUtf8(broken, &ours);
        QCOMPARE(ours.error, qt.error);
        QCOMPARE(ours.offset, qt.offset);
        JsonConfig parsed;
        const QJsonParseError fromText = parsed.parse(QString::fromUtf8(broken));
        QCOMPARE(fromText.offset, qt.offset);
    }
}

QTEST_GUILESS_MAIN(TestJsonConfig)
#include "tst_jsonconfig.moc"
