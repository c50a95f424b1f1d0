// SPDX-License-Identifier: MIT
//
// Prompt (SPEC §B.6), through the public C++ API.
#include <Agent/Prompt.h>
#include <Utility/JsonConfig.h>

#include <QtTest/QtTest>

using Visindigo::Agent::Message;
using Visindigo::Agent::Prompt;
using Visindigo::Utility::JsonConfig;

class TestPrompt : public QObject
{
    Q_OBJECT

private slots:
    void defaultsAreEmptyAndInvalid()
    {
        const Prompt p;
        QVERIFY(p.getName().isEmpty());
        QVERIFY(p.getDescription().isEmpty());
        QVERIFY(p.getContent().isEmpty());
        QVERIFY(p.getTags().isEmpty());
        QVERIFY(p.getVariables().isEmpty());
        QVERIFY(!p.isValid());
        const Prompt q(QStringLiteral("n"), QStringLiteral("c"));
        QCOMPARE(q.getName(), QStringLiteral("n"));
        QCOMPARE(q.getContent(), QStringLiteral("c"));
    }

    void settersChainAndGettersReadBack()
    {
        Prompt p;
        Prompt& r = p.setName(QStringLiteral("n")).setDescription(QStringLiteral("d")).setContent(QStringLiteral("c"))
                        .setTags({QStringLiteral("x"), QStringLiteral("y")});
        QCOMPARE(&r, &p);
        QCOMPARE(p.getDescription(), QStringLiteral("d"));
        QCOMPARE(p.getTags(), (QStringList{QStringLiteral("x"), QStringLiteral("y")}));
    }

    void isValidNeedsNameAndContent()
    {
        QVERIFY(Prompt(QStringLiteral("n"), QStringLiteral("c")).isValid());
        QVERIFY(!Prompt(QStringLiteral("n"), QString()).isValid());
        QVERIFY(!Prompt(QString(), QStringLiteral("c")).isValid());
    }

    void variablesAreDistinctInOrderOfFirstAppearance()
    {
        const Prompt p(QStringLiteral("n"),
                       QStringLiteral("{{b}} {{ a }} {{b}} {{  user.name  }} {{x-y_1}} {{a}}"));
        QCOMPARE(p.getVariables(), (QStringList{QStringLiteral("b"), QStringLiteral("a"), QStringLiteral("user.name"),
                                                QStringLiteral("x-y_1")}));
    }

    void placeholdersWithSpacesAreRendered()
    {
        const Prompt p(QStringLiteral("greet"), QStringLiteral("Hello {{ name }}, {{name}}, {{   name   }}!"));
        const Message m = p.render({{QStringLiteral("name"), QStringLiteral("Ada")}});
        QCOMPARE(m.getContent(), QStringLiteral("Hello Ada, Ada, Ada!"));
    }

    void renderGivesAPromptRoleMessageNamedAfterThePrompt()
    {
        const Prompt p(QStringLiteral("tmpl"), QStringLiteral("x"));
        const Message m = p.render({});
        QCOMPARE(m.getRole(), Message::Role::Prompt);
        QCOMPARE(m.getName(), QStringLiteral("tmpl"));
        QCOMPARE(m.getContent(), QStringLiteral("x"));
    }

    void unknownPlaceholdersStayVerbatim()
    {
        const Prompt p(QStringLiteral("n"), QStringLiteral("A {{ known }} B {{ unknown }} C {{unknown}}"));
        const Message m = p.render({{QStringLiteral("known"), QStringLiteral("k")}});
        QCOMPARE(m.getContent(), QStringLiteral("A k B {{ unknown }} C {{unknown}}"));
    }

    void substitutedTextIsNotRescanned()
    {
        const Prompt p(QStringLiteral("n"), QStringLiteral("{{a}}|{{b}}"));
        const Message m = p.render({{QStringLiteral("a"), QStringLiteral("{{b}}")}, {QStringLiteral("b"), QStringLiteral("B")}});
        QCOMPARE(m.getContent(), QStringLiteral("{{b}}|B"));
    }

    void notAPlaceholderIsLeftAlone()
    {
        const Prompt p(QStringLiteral("n"), QStringLiteral("{{}} {{ a b }} {a} {{ ok }} {{"));
        QCOMPARE(p.getVariables(), QStringList{QStringLiteral("ok")});
        const Message m = p.render({{QStringLiteral("ok"), QStringLiteral("1")}, {QStringLiteral("a b"), QStringLiteral("2")}});
        QCOMPARE(m.getContent(), QStringLiteral("{{}} {{ a b }} {a} 1 {{"));
    }

    void toJsonAndFromJsonRoundTripAndFromJsonReturnsIsValid()
    {
        Prompt a(QStringLiteral("n"), QStringLiteral("c {{v}}"));
        a.setDescription(QStringLiteral("d")).setTags({QStringLiteral("t")});
        const JsonConfig j = a.toJson();
        QStringList keys = j.keys();
        keys.sort();
        QCOMPARE(keys, (QStringList{QStringLiteral("content"), QStringLiteral("description"), QStringLiteral("name"),
                                    QStringLiteral("tags")}));
        Prompt b;
        QVERIFY(b.fromJson(j));
        QCOMPARE(b.toJson().toString(), j.toString());
        Prompt c;
        QVERIFY(!c.fromJson(JsonConfig(QStringLiteral("{\"name\":\"only\"}"))));
        QCOMPARE(c.getName(), QStringLiteral("only"));
    }

    void copiesAreIndependentAndMoveWorks()
    {
        Prompt a(QStringLiteral("a"), QStringLiteral("c"));
        Prompt b(a);
        b.setContent(QStringLiteral("other"));
        QCOMPARE(a.getContent(), QStringLiteral("c"));
        Prompt c(std::move(b));
        QCOMPARE(c.getContent(), QStringLiteral("other"));
        QVERIFY(!b.isValid());
        (void)b.getVariables();
        (void)b.toJson();
        QCOMPARE(b.render({}).getRole(), Message::Role::Prompt);
        b.setName(QStringLiteral("again"));
        QCOMPARE(b.getName(), QStringLiteral("again"));
        Prompt d;
        d = std::move(c);
        QCOMPARE(d.getName(), QStringLiteral("a"));
        d = a;
        QCOMPARE(d.getContent(), QStringLiteral("c"));
        QVERIFY(std::is_nothrow_move_constructible_v<Prompt>);
        QCOMPARE(QVariant::fromValue(d).value<Prompt>().getName(), QStringLiteral("a"));
    }

    void fromJsonOfAnArrayRootChangesNothing()
    {
        Prompt p(QStringLiteral("keep"), QStringLiteral("c"));
        QVERIFY(!p.fromJson(JsonConfig(QStringLiteral("[\"x\"]"))));
        QCOMPARE(p.getName(), QStringLiteral("keep"));
    }

    void fromJsonWithWronglyTypedFieldsDoesNotCrash()
    {
        Prompt p;
        QVERIFY(!p.fromJson(JsonConfig(QStringLiteral("{\"name\":1,\"content\":[],\"description\":{},\"tags\":\"t\"}"))));
        (void)p.toJson();
        (void)p.getTags();
    }

    void loneSurrogatesAndEmptyStringsDoNotCrash()
    {
        Prompt p(QString(QChar(0xD800)), QStringLiteral("{{ v }}") + QChar(0xDC00));
        QVERIFY(p.isValid());
        const Message m = p.render({{QStringLiteral("v"), QString(QChar(0xD800))}, {QString(QChar(0xD800)), QString()}});
        QCOMPARE(m.getContent().size(), 2);
        p.setTags({QString(QChar(0xD800))}).setDescription(QString(QChar(0xD800)));
        Prompt back;
        QVERIFY(back.fromJson(p.toJson()));
        QCOMPARE(p.getTags(), QStringList{QString(QChar(0xFFFD))});
        QCOMPARE(back.getTags(), p.getTags());
        QCOMPARE(Prompt(QStringLiteral("n"), QString()).render({}).getContent(), QString());
    }
};

QTEST_APPLESS_MAIN(TestPrompt)
#include "tst_prompt.moc"
