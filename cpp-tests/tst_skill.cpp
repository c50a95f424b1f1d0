// SPDX-License-Identifier: MIT
//
// Skill (SPEC §B.4), through the public C++ API.
#include <Agent/Skill.h>
#include <Utility/JsonConfig.h>

#include <QtTest/QtTest>

using Visindigo::Agent::Skill;
using Visindigo::Utility::JsonConfig;

class TestSkill : public QObject
{
    Q_OBJECT

private slots:
    void defaultsAreEnabledAndEmpty()
    {
        const Skill s;
        QVERIFY(s.isEnabled());
        QVERIFY(s.getName().isEmpty());
        QVERIFY(s.getDescription().isEmpty());
        QVERIFY(s.getInstruction().isEmpty());
        QVERIFY(s.getTags().isEmpty());
        QVERIFY(s.getFunctionIds().isEmpty());
        QVERIFY(!s.isValid());
        QCOMPARE(Skill(QStringLiteral("named")).getName(), QStringLiteral("named"));
        QVERIFY(Skill(QStringLiteral("named")).isEnabled());
    }

    void settersChainAndGettersReadBack()
    {
        Skill s;
        Skill& r = s.setName(QStringLiteral("n")).setDescription(QStringLiteral("d")).setInstruction(QStringLiteral("i"))
                       .setEnabled(false).setTags({QStringLiteral("a"), QStringLiteral("b")})
                       .addFunction(QStringLiteral("f")).removeFunction(QStringLiteral("none"));
        QCOMPARE(&r, &s);
        QCOMPARE(s.getName(), QStringLiteral("n"));
        QCOMPARE(s.getDescription(), QStringLiteral("d"));
        QCOMPARE(s.getInstruction(), QStringLiteral("i"));
        QVERIFY(!s.isEnabled());
        QCOMPARE(s.getTags(), (QStringList{QStringLiteral("a"), QStringLiteral("b")}));
        QCOMPARE(s.getFunctionIds(), QStringList{QStringLiteral("f")});
    }

    void functionIdsKeepInsertionOrderWithoutDuplicatesOrEmpty()
    {
        Skill s;
        s.addFunction(QStringLiteral("zeta")).addFunction(QStringLiteral("alpha")).addFunction(QStringLiteral("zeta"))
            .addFunction(QString()).addFunction(QStringLiteral("mid"));
        QCOMPARE(s.getFunctionIds(), (QStringList{QStringLiteral("zeta"), QStringLiteral("alpha"), QStringLiteral("mid")}));
        QVERIFY(s.hasFunction(QStringLiteral("alpha")));
        QVERIFY(!s.hasFunction(QStringLiteral("Alpha")));
        QVERIFY(!s.hasFunction(QString()));
        s.removeFunction(QStringLiteral("alpha"));
        QCOMPARE(s.getFunctionIds(), (QStringList{QStringLiteral("zeta"), QStringLiteral("mid")}));
        QVERIFY(!s.hasFunction(QStringLiteral("alpha")));
    }

    void isValidNeedsNameAndInstruction()
    {
        QVERIFY(!Skill(QStringLiteral("n")).isValid());
        QVERIFY(!Skill().setInstruction(QStringLiteral("i")).isValid());
        QVERIFY(Skill(QStringLiteral("n")).setInstruction(QStringLiteral("i")).isValid());
        QVERIFY(Skill(QStringLiteral("n")).setInstruction(QStringLiteral("i")).setEnabled(false).isValid());
    }

    void toJsonHasEveryField()
    {
        Skill s(QStringLiteral("n"));
        s.setDescription(QStringLiteral("d")).setInstruction(QStringLiteral("i")).setEnabled(false)
            .setTags({QStringLiteral("t")}).addFunction(QStringLiteral("b")).addFunction(QStringLiteral("a"));
        const JsonConfig j = s.toJson();
        QStringList keys = j.keys();
        keys.sort();
        QCOMPARE(keys, (QStringList{QStringLiteral("description"), QStringLiteral("enabled"), QStringLiteral("functions"),
                                    QStringLiteral("instruction"), QStringLiteral("name"), QStringLiteral("tags")}));
        QCOMPARE(j.getBool(QStringLiteral("enabled")), false);
        QVERIFY(j.isBool(QStringLiteral("enabled")));
        QCOMPARE(j.getStringList(QStringLiteral("functions")), (QStringList{QStringLiteral("b"), QStringLiteral("a")}));
        QCOMPARE(j.getStringList(QStringLiteral("tags")), QStringList{QStringLiteral("t")});
    }

    void fromJsonRoundTripsAndReturnsIsValid()
    {
        Skill a(QStringLiteral("n"));
        a.setInstruction(QStringLiteral("i")).setTags({QStringLiteral("x")}).addFunction(QStringLiteral("f")).setEnabled(false);
        Skill b;
        QVERIFY(b.fromJson(a.toJson()));
        QCOMPARE(b.toJson().toString(), a.toJson().toString());
        Skill c;
        QVERIFY(!c.fromJson(JsonConfig(QStringLiteral("{\"name\":\"only-name\"}"))));
        QCOMPARE(c.getName(), QStringLiteral("only-name"));
    }

    void missingEnabledReadsAsTrue()
    {
        Skill s;
        s.setEnabled(false);
        QVERIFY(s.fromJson(JsonConfig(QStringLiteral("{\"name\":\"n\",\"instruction\":\"i\"}"))));
        QVERIFY(s.isEnabled());
    }

    void copiesAreIndependent()
    {
        Skill a(QStringLiteral("a"));
        a.addFunction(QStringLiteral("f"));
        Skill b(a);
        b.setName(QStringLiteral("b")).addFunction(QStringLiteral("g"));
        QCOMPARE(a.getName(), QStringLiteral("a"));
        QCOMPARE(a.getFunctionIds(), QStringList{QStringLiteral("f")});
        Skill c;
        c = b;
        c.setTags({QStringLiteral("t")});
        QVERIFY(b.getTags().isEmpty());
    }

    void moveKeepsTheValueAndMovedFromIsUsable()
    {
        Skill a(QStringLiteral("a"));
        Skill b(std::move(a));
        QCOMPARE(b.getName(), QStringLiteral("a"));
        QVERIFY(!a.isValid());
        (void)a.getFunctionIds();
        (void)a.toJson();
        QVERIFY(!a.hasFunction(QStringLiteral("x")));
        a.setName(QStringLiteral("again"));
        QCOMPARE(a.getName(), QStringLiteral("again"));
        QVERIFY(a.isEnabled());
        Skill c;
        c = std::move(b);
        QCOMPARE(c.getName(), QStringLiteral("a"));
        QVERIFY(std::is_nothrow_move_constructible_v<Skill>);
        QCOMPARE(QVariant::fromValue(c).value<Skill>().getName(), QStringLiteral("a"));
    }

    void fromJsonOfAnArrayRootChangesNothing()
    {
        Skill s(QStringLiteral("keep"));
        QVERIFY(!s.fromJson(JsonConfig(QStringLiteral("[{\"name\":\"x\"}]"))));
        QCOMPARE(s.getName(), QStringLiteral("keep"));
    }

    void fromJsonWithWronglyTypedFieldsDoesNotCrash()
    {
        Skill s;
        QVERIFY(!s.fromJson(JsonConfig(QStringLiteral(
            "{\"name\":1,\"description\":[],\"instruction\":{},\"enabled\":\"yes\",\"tags\":[1,null],\"functions\":\"f\"}"))));
        (void)s.toJson();
        (void)s.getTags();
        (void)s.getFunctionIds();
    }

    void loneSurrogatesAndEmptyStringsDoNotCrash()
    {
        Skill s(QString(QChar(0xD800)));
        s.setInstruction(QString(QChar(0xDC00))).setTags({QString(QChar(0xD800)), QString()}).addFunction(QString(QChar(0xD800)));
        QCOMPARE(s.getName().size(), 1);
        QVERIFY(s.isValid());
        QVERIFY(s.hasFunction(QString(QChar(0xD800))));
        QCOMPARE(s.getTags().size(), 2); // the JSON crossing keeps them (as U+FFFD)
        QCOMPARE(s.getTags().at(0), QString(QChar(0xFFFD)));
        Skill back;
        QVERIFY(back.fromJson(s.toJson()));
        QCOMPARE(back.getTags(), s.getTags());
        s.setName(QString());
        QVERIFY(!s.isValid());
    }
};

QTEST_APPLESS_MAIN(TestSkill)
#include "tst_skill.moc"
