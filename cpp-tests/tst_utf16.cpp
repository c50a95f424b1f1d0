// SPDX-License-Identifier: MIT
//
// The one rule for lone surrogates (cpp/Internal/Utf16.h), as one table: each row gives a
// QString, what withoutLoneSurrogates and utf8 make of it, and what repairSurrogateEscapes
// makes of the JSON text Qt writes for it — plus rows of JSON text that Qt never writes
// (escaped pairs, look-alikes) for repairSurrogateEscapes alone. (No raw string literals
// here: Qt 6.4's moc misreads them and finds no class.)
#include "../cpp/Internal/Utf16.h"

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtTest/QtTest>

using namespace Visindigo::Internal::Utf16;

class TestUtf16 : public QObject
{
    Q_OBJECT

private:
    static QString units(std::initializer_list<char16_t> list)
    {
        QString s;
        for (char16_t u : list)
            s.append(QChar(u));
        return s;
    }

private slots:
    void strings_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("repaired");
        const QChar r(QChar::ReplacementCharacter);
        QTest::newRow("ascii") << QStringLiteral("plain") << QStringLiteral("plain");
        QTest::newRow("empty") << QString() << QString();
        QTest::newRow("bmp") << QStringLiteral("ünïcödé 中文") << QStringLiteral("ünïcödé 中文");
        QTest::newRow("valid pair") << units({u'a', 0xD83D, 0xDE00, u'b'}) << units({u'a', 0xD83D, 0xDE00, u'b'});
        QTest::newRow("lone high") << units({u'a', 0xD800, u'b'}) << (QStringLiteral("a") + r + QStringLiteral("b"));
        QTest::newRow("lone low") << units({0xDC00}) << QString(r);
        QTest::newRow("high at end") << units({u'x', 0xDBFF}) << (QStringLiteral("x") + r);
        QTest::newRow("low then high") << units({0xDC00, 0xD800}) << (QString(r) + r);
        QTest::newRow("two highs then low") << units({0xD800, 0xD800, 0xDC00}) << (QString(r) + units({0xD800, 0xDC00}));
        QTest::newRow("pair then lone") << units({0xD83D, 0xDE00, 0xDE00}) << (units({0xD83D, 0xDE00}) + r);
    }

    void strings()
    {
        QFETCH(QString, input);
        QFETCH(QString, repaired);
        QCOMPARE(withoutLoneSurrogates(input), repaired);
        QCOMPARE(utf8(input), repaired.toUtf8());
        // Qt's JSON text for the string, repaired, reads back as the repaired string and is
        // valid UTF-8 JSON (what the core accepts).
        QByteArray json = QJsonDocument(QJsonArray{input}).toJson(QJsonDocument::Compact);
        repairSurrogateEscapes(json);
        QVERIFY2(!json.contains("\\ud8") && !json.contains("\\udc"), json.constData());
        QCOMPARE(QJsonDocument::fromJson(json).array().at(0).toString(), repaired);
    }

    void unchangedStringsAreShared()
    {
        const QString s = QStringLiteral("no surrogates here");
        QVERIFY(withoutLoneSurrogates(s).constData() == s.constData());
        const QString pair = units({0xD83D, 0xDE00});
        QVERIFY(withoutLoneSurrogates(pair).constData() == pair.constData());
    }

    void escapes_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QByteArray>("repaired");
        QTest::newRow("lone high") << QByteArray("[\"a\\ud800b\"]") << QByteArray("[\"a\\ufffdb\"]");
        QTest::newRow("upper case") << QByteArray("[\"\\uDFFF\"]") << QByteArray("[\"\\ufffd\"]");
        QTest::newRow("escaped pair") << QByteArray("[\"\\ud83d\\ude00\"]") << QByteArray("[\"\\ud83d\\ude00\"]");
        QTest::newRow("low then high") << QByteArray("[\"\\udc00\\ud800\"]") << QByteArray("[\"\\ufffd\\ufffd\"]");
        QTest::newRow("high then escaped char") << QByteArray("[\"\\ud800\\n\"]") << QByteArray("[\"\\ufffd\\n\"]");
        QTest::newRow("escaped backslash") << QByteArray("[\"\\\\ud800\"]") << QByteArray("[\"\\\\ud800\"]");
        QTest::newRow("other escape") << QByteArray("[\"\\u00e9\"]") << QByteArray("[\"\\u00e9\"]");
        QTest::newRow("cut short") << QByteArray("[\"\\ud8") << QByteArray("[\"\\ud8");
        QTest::newRow("none") << QByteArray("{\"k\":1}") << QByteArray("{\"k\":1}");
    }

    void escapes()
    {
        QFETCH(QByteArray, json);
        QFETCH(QByteArray, repaired);
        repairSurrogateEscapes(json);
        QCOMPARE(json, repaired);
    }
};

QTEST_GUILESS_MAIN(TestUtf16)
#include "tst_utf16.moc"
