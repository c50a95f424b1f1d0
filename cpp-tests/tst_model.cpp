// SPDX-License-Identifier: MIT
//
// Model (SPEC §B.2), through the public C++ API.
#include <Agent/Model.h>
#include <Utility/JsonConfig.h>

#include <QtCore/QJsonArray>
#include <QtCore/QJsonObject>
#include <QtCore/QMetaEnum>
#include <QtCore/QRegularExpression>
#include <QtTest/QtTest>

using Visindigo::Agent::Model;
using Visindigo::Utility::JsonConfig;
using Cap = Visindigo::Agent::Model::Capability;

namespace {
bool isUuid(const QString& s)
{
    static const QRegularExpression re(
        QStringLiteral("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"));
    return re.match(s).hasMatch();
}

Model validModel()
{
    Model m;
    m.setName(QStringLiteral("gpt-x")).setUrl(QUrl(QStringLiteral("https://api.example.com/v1")))
        .setToken(QStringLiteral("sk-1"));
    return m;
}
} // namespace

class TestModel : public QObject
{
    Q_OBJECT

private slots:
    void capabilityValuesAreTheNativeBits()
    {
        QCOMPARE(int(Cap::None), 0);
        QCOMPARE(int(Cap::Text), 1);
        QCOMPARE(int(Cap::Image), 2);
        QCOMPARE(int(Cap::Audio), 4);
        QCOMPARE(int(Cap::ToolUse), 8);
        const Model::Capabilities both = Cap::Text | Cap::ToolUse; // Q_DECLARE_OPERATORS_FOR_FLAGS
        QCOMPARE(both.toInt(), 9);
        QVERIFY(QMetaEnum::fromType<Model::Capabilities>().isValid());
    }

    void defaultsAreFreshUuidSixtySecondTimeoutsTextAndNoParameters()
    {
        const Model m;
        QVERIFY2(isUuid(m.getId()), qPrintable(m.getId()));
        QVERIFY(!m.getId().startsWith(QLatin1Char('{')));
        QCOMPARE(m.getTimeoutMs(), 60000);
        QCOMPARE(m.getIdleTimeoutMs(), 60000);
        QCOMPARE(m.getCapabilities(), Model::Capabilities(Cap::Text));
        QVERIFY(m.getParameters().isObject());
        QVERIFY(m.getParameters().isEmpty());
        QVERIFY(m.getName().isEmpty());
        QVERIFY(m.getUrl().isEmpty());
        QVERIFY(m.getToken().isEmpty());
        QVERIFY(!m.isValid());
        QVERIFY(Model().getId() != m.getId());
    }

    void settersChainAndGettersReadBack()
    {
        Model m;
        Model& r = m.setName(QStringLiteral("n")).setUrl(QUrl(QStringLiteral("http://h:8080/v1/"))).setToken(QStringLiteral("t"))
                       .setTimeoutMs(0).setIdleTimeoutMs(1500).setCapabilities(Cap::Image).addCapability(Cap::Audio)
                       .setParameter(QStringLiteral("k"), 1).setTemperature(0.5).setTopP(0.9).setMaxTokens(256);
        QCOMPARE(&r, &m);
        QCOMPARE(m.getName(), QStringLiteral("n"));
        QCOMPARE(m.getUrl(), QUrl(QStringLiteral("http://h:8080/v1/")));
        QCOMPARE(m.getToken(), QStringLiteral("t"));
        QCOMPARE(m.getTimeoutMs(), 0);
        QCOMPARE(m.getIdleTimeoutMs(), 1500);
        QCOMPARE(m.getCapabilities(), Cap::Image | Cap::Audio);
    }

    void setCapabilitiesReplacesAddCapabilityOrs()
    {
        Model m;
        m.setCapabilities(Cap::Image);
        QVERIFY(!m.hasCapability(Cap::Text));
        m.addCapability(Cap::ToolUse).addCapability(Cap::ToolUse);
        QCOMPARE(m.getCapabilities(), Cap::Image | Cap::ToolUse);
        m.setCapabilities(Cap::None);
        QCOMPARE(m.getCapabilities().toInt(), 0);
    }

    void hasCapabilityTestsOneBit()
    {
        Model m;
        m.setCapabilities(Cap::Text | Cap::Image);
        QVERIFY(m.hasCapability(Cap::Text));
        QVERIFY(m.hasCapability(Cap::Image));
        QVERIFY(!m.hasCapability(Cap::Audio));
        QVERIFY(!m.hasCapability(Cap::None));
    }

    void namedParametersMapToTheirWireKeys()
    {
        Model m;
        m.setTemperature(0.25).setTopP(0.5).setMaxTokens(256);
        const JsonConfig p = m.getParameters();
        QCOMPARE(p.getDouble(QStringLiteral("temperature")), 0.25);
        QCOMPARE(p.getDouble(QStringLiteral("top_p")), 0.5);
        QCOMPARE(p.getInt(QStringLiteral("max_tokens")), 256);
    }

    void maxTokensSerialisesAsAnIntegerNotADouble()
    {
        Model m;
        m.setMaxTokens(256).setParameter(QStringLiteral("seed"), 7.0);
        const QString params = m.getParameters().toString(QJsonDocument::Compact);
        QVERIFY2(params.contains(QStringLiteral("\"max_tokens\":256")), qPrintable(params));
        QVERIFY2(!params.contains(QStringLiteral("256.0")), qPrintable(params));
        QVERIFY2(params.contains(QStringLiteral("\"seed\":7")) && !params.contains(QStringLiteral("7.0")), qPrintable(params));
        const QString whole = m.toJson().toString(QJsonDocument::Compact);
        QVERIFY2(!whole.contains(QStringLiteral("256.0")), qPrintable(whole));
    }

    void dottedParameterKeysBecomeNestedObjects()
    {
        Model m;
        m.setParameter(QStringLiteral("response_format.type"), QStringLiteral("json_object"))
            .setParameter(QStringLiteral("a.b.c"), true);
        const JsonConfig p = m.getParameters();
        QVERIFY(p.isObject(QStringLiteral("response_format")));
        QCOMPARE(p.getString(QStringLiteral("response_format.type")), QStringLiteral("json_object"));
        QCOMPARE(p.getBool(QStringLiteral("a.b.c")), true);
    }

    void parameterValuesOfEveryJsonType()
    {
        Model m;
        m.setParameter(QStringLiteral("s"), QStringLiteral("x\"y"))
            .setParameter(QStringLiteral("n"), QJsonValue(QJsonValue::Null))
            .setParameter(QStringLiteral("arr"), QJsonArray{1, QStringLiteral("two"), false})
            .setParameter(QStringLiteral("obj"), QJsonObject{{QStringLiteral("k"), 1.5}})
            .setParameter(QStringLiteral("b"), false);
        const JsonConfig p = m.getParameters();
        QCOMPARE(p.getString(QStringLiteral("s")), QStringLiteral("x\"y"));
        QVERIFY(p.isNull(QStringLiteral("n")));
        QCOMPARE(p.getString(QStringLiteral("arr.1")), QStringLiteral("two"));
        QCOMPARE(p.getDouble(QStringLiteral("obj.k")), 1.5);
        QVERIFY(p.isBool(QStringLiteral("b")));
    }

    void undefinedParameterValueRemovesTheKey()
    {
        Model m;
        m.setParameter(QStringLiteral("x"), 1).setParameter(QStringLiteral("y.z"), 2);
        m.setParameter(QStringLiteral("x"), QJsonValue(QJsonValue::Undefined));
        m.setParameter(QStringLiteral("y.z"), QJsonValue(QJsonValue::Undefined));
        m.setParameter(QStringLiteral("missing"), QJsonValue(QJsonValue::Undefined));
        QVERIFY(!m.getParameters().contains(QStringLiteral("x")));
        QVERIFY(!m.getParameters().contains(QStringLiteral("y.z")));
    }

    void isValidNeedsNameUrlWithSchemeAndToken()
    {
        QVERIFY(validModel().isValid());
        QVERIFY(!Model(validModel()).setName(QString()).isValid());
        QVERIFY(!Model(validModel()).setToken(QString()).isValid());
        QVERIFY(!Model(validModel()).setUrl(QUrl()).isValid());
        QVERIFY(!Model(validModel()).setUrl(QUrl(QStringLiteral("api.example.com/v1"))).isValid());
    }

    void urlIsStoredAsTextAndReadBackAsQUrl()
    {
        Model m;
        m.setUrl(QUrl(QStringLiteral("https://example.com/v1")));
        QCOMPARE(m.getUrl().scheme(), QStringLiteral("https"));
        QCOMPARE(m.toJson().getString(QStringLiteral("url")), QStringLiteral("https://example.com/v1"));
    }

    void toJsonHasEveryFieldAndTheToken()
    {
        Model m = validModel();
        m.setCapabilities(Cap::Text | Cap::ToolUse).setTimeoutMs(1000).setIdleTimeoutMs(2000).setTemperature(0.5);
        const JsonConfig j = m.toJson();
        QStringList keys = j.keys();
        keys.sort();
        QCOMPARE(keys, (QStringList{QStringLiteral("capabilities"), QStringLiteral("id"), QStringLiteral("idleTimeoutMs"),
                                    QStringLiteral("name"), QStringLiteral("parameters"), QStringLiteral("timeoutMs"),
                                    QStringLiteral("token"), QStringLiteral("url")}));
        QCOMPARE(j.getString(QStringLiteral("id")), m.getId());
        QCOMPARE(j.getString(QStringLiteral("token")), QStringLiteral("sk-1"));
        QCOMPARE(j.getInt(QStringLiteral("capabilities")), 9);
        QVERIFY(j.isInt(QStringLiteral("capabilities")));
        QCOMPARE(j.getInt(QStringLiteral("timeoutMs")), 1000);
        QCOMPARE(j.getInt(QStringLiteral("idleTimeoutMs")), 2000);
        QCOMPARE(j.getDouble(QStringLiteral("parameters.temperature")), 0.5);
    }

    void fromJsonRoundTripsAndReturnsWhetherAnIdWasRead()
    {
        Model a = validModel();
        a.setCapabilities(Cap::Image).setMaxTokens(10);
        Model b;
        QVERIFY(b.fromJson(a.toJson()));
        QCOMPARE(b.getId(), a.getId());
        QCOMPARE(b.toJson().toString(), a.toJson().toString());
    }

    void fromJsonWithoutIdKeepsIdMissingTimeoutsReadZeroCapabilitiesOnlyWhenPresent()
    {
        Model m;
        m.setCapabilities(Cap::Audio);
        const QString id = m.getId();
        QVERIFY(!m.fromJson(JsonConfig(QStringLiteral("{\"name\":\"n\"}"))));
        QCOMPARE(m.getId(), id);
        QCOMPARE(m.getName(), QStringLiteral("n"));
        QCOMPARE(m.getTimeoutMs(), 0);
        QCOMPARE(m.getIdleTimeoutMs(), 0);
        QCOMPARE(m.getCapabilities(), Model::Capabilities(Cap::Audio));
        QVERIFY(!m.fromJson(JsonConfig(QStringLiteral("{\"id\":\"\",\"capabilities\":2}"))));
        QCOMPARE(m.getId(), id);
        QCOMPARE(m.getCapabilities(), Model::Capabilities(Cap::Image));
    }

    void fromJsonReplacesParametersByTheTopLevelKeys()
    {
        Model m;
        m.setParameter(QStringLiteral("old"), 1);
        m.fromJson(JsonConfig(QStringLiteral("{\"parameters\":{\"new\":{\"x\":2},\"t\":0.5}}")));
        const JsonConfig p = m.getParameters();
        QVERIFY(!p.contains(QStringLiteral("old")));
        QCOMPARE(p.getInt(QStringLiteral("new.x")), 2);
        QCOMPARE(p.getDouble(QStringLiteral("t")), 0.5);
    }

    void copiesAreIndependentAndKeepTheId()
    {
        Model a = validModel();
        Model b(a);
        b.setName(QStringLiteral("other")).setParameter(QStringLiteral("p"), 1);
        QCOMPARE(a.getName(), QStringLiteral("gpt-x"));
        QVERIFY(!a.getParameters().contains(QStringLiteral("p")));
        QCOMPARE(b.getId(), a.getId());
        Model c;
        c = a;
        QCOMPARE(c.getId(), a.getId());
    }

    void moveKeepsTheValueAndMovedFromIsUsable()
    {
        Model a = validModel();
        const QString id = a.getId();
        Model b(std::move(a));
        QCOMPARE(b.getId(), id);
        QVERIFY(b.isValid());
        QVERIFY(!a.isValid());
        (void)a.getId();
        (void)a.getParameters();
        (void)a.toJson();
        QVERIFY(!a.hasCapability(Cap::Text) || true);
        a.setName(QStringLiteral("again"));
        QCOMPARE(a.getName(), QStringLiteral("again"));
        QVERIFY(isUuid(a.getId()));
        Model c;
        c = std::move(b);
        QCOMPARE(c.getId(), id);
        QVERIFY(std::is_nothrow_move_constructible_v<Model>);
    }

    void worksAsQVariant()
    {
        const Model m = validModel();
        QCOMPARE(QVariant::fromValue(m).value<Model>().getId(), m.getId());
    }

    void fromJsonOfAnArrayRootChangesNothing()
    {
        Model m = validModel();
        const QString before = m.toJson().toString();
        QVERIFY(!m.fromJson(JsonConfig(QStringLiteral("[1,2]"))));
        QCOMPARE(m.toJson().toString(), before);
    }

    void fromJsonWithWronglyTypedFieldsDoesNotCrash()
    {
        Model m;
        m.fromJson(JsonConfig(QStringLiteral(
            "{\"id\":5,\"name\":[],\"url\":{},\"token\":1,\"timeoutMs\":\"x\",\"idleTimeoutMs\":-5,\"capabilities\":\"all\",\"parameters\":[1]}")));
        (void)m.toJson();
        (void)m.isValid();
        Model n;
        n.fromJson(JsonConfig(QStringLiteral("{\"timeoutMs\":1e300,\"capabilities\":-1,\"idleTimeoutMs\":2.5}")));
        (void)n.getTimeoutMs();
        (void)n.getCapabilities();
    }

    void loneSurrogatesAndEmptyStringsDoNotCrash()
    {
        Model m;
        m.setName(QString(QChar(0xD800))).setToken(QString(QChar(0xDC00)))
            .setParameter(QString(QChar(0xD800)), QString(QChar(0xD800)))
            .setParameter(QString(), 1).setParameter(QStringLiteral("."), 1).setParameter(QStringLiteral("a..b"), 1);
        QCOMPARE(m.getName().size(), 1);
        QVERIFY2(m.getParameters().getString(QString(QChar(0xFFFD))) == QString(QChar(0xFFFD)), qPrintable(m.getParameters().toString(QJsonDocument::Compact)));
        Model back;
        back.fromJson(m.toJson());
        QCOMPARE(back.getName(), m.getName());
        m.setUrl(QUrl(QString(QChar(0xD800))));
        (void)m.getUrl();
        m.setName(QString());
        QVERIFY(m.getName().isEmpty());
    }
};

QTEST_APPLESS_MAIN(TestModel)
#include "tst_model.moc"
