// SPDX-License-Identifier: MIT
//
// Function: registration in the Center and in a Dialog, lookup, ownership, invokeAsync.
#include <Agent/Center.h>
#include <Agent/Dialog.h>
#include <Agent/Function.h>

#include <QtTest/QtTest>

using namespace Visindigo::Agent;
using Visindigo::Utility::JsonConfig;

namespace {

class CountedFunction : public Function
{
public:
    static int alive;
    static int invokes;

    explicit CountedFunction(QString id) : m_id(std::move(id)) { ++alive; }
    ~CountedFunction() override { --alive; }

    QString getId() const override { return m_id; }
    QString getName() const override { return QStringLiteral("Counted ") + m_id; }
    QString getDescription() const override { return QStringLiteral("counts its calls"); }
    JsonConfig getParameterSchema() const override
    {
        return JsonConfig::fromJson(QStringLiteral(R"({"type":"object","properties":{"x":{"type":"integer"}}})"));
    }
    JsonConfig invoke(const JsonConfig& arguments) override
    {
        ++invokes;
        JsonConfig result;
        result.setInt(QStringLiteral("doubled"), arguments.getInt(QStringLiteral("x")) * 2);
        return result;
    }

private:
    QString m_id;
};

int CountedFunction::alive = 0;
int CountedFunction::invokes = 0;

} // namespace

class TestFunction : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        CountedFunction::invokes = 0;
    }

    void cleanup()
    {
        for (const QString& id : Center::getInstance()->getFunctionIds())
            Center::getInstance()->removeFunction(id);
        QTRY_COMPARE(CountedFunction::alive, 0);
    }

    void centerRegistrationAndLookup()
    {
        Center* center = Center::getInstance();
        auto* f = new CountedFunction(QStringLiteral("tf_center"));
        center->addFunction(f);
        QCOMPARE(center->getFunction(QStringLiteral("tf_center")), f);
        QVERIFY(center->getFunctionIds().contains(QStringLiteral("tf_center")));
        QCOMPARE(center->getFunction(QStringLiteral("tf_unknown")), nullptr);
        QCOMPARE(CountedFunction::alive, 1);
    }

    void centerIdsAreSorted()
    {
        Center* center = Center::getInstance();
        center->addFunction(new CountedFunction(QStringLiteral("tf_c")));
        center->addFunction(new CountedFunction(QStringLiteral("tf_a")));
        center->addFunction(new CountedFunction(QStringLiteral("tf_b")));
        QCOMPARE(center->getFunctionIds(),
                 (QStringList{QStringLiteral("tf_a"), QStringLiteral("tf_b"), QStringLiteral("tf_c")}));
    }

    void centerRemoveDestroys()
    {
        Center* center = Center::getInstance();
        center->addFunction(new CountedFunction(QStringLiteral("tf_remove")));
        QCOMPARE(CountedFunction::alive, 1);
        center->removeFunction(QStringLiteral("tf_remove"));
        QTRY_COMPARE(CountedFunction::alive, 0);
        QCOMPARE(center->getFunction(QStringLiteral("tf_remove")), nullptr);
    }

    void centerReplaceDestroysOld()
    {
        Center* center = Center::getInstance();
        auto* first = new CountedFunction(QStringLiteral("tf_same"));
        auto* second = new CountedFunction(QStringLiteral("tf_same"));
        center->addFunction(first);
        center->addFunction(second);
        QTRY_COMPARE(CountedFunction::alive, 1);
        QCOMPARE(center->getFunction(QStringLiteral("tf_same")), second);
    }

    void dialogRegistrationAndFallbackToCenter()
    {
        Center* center = Center::getInstance();
        auto* global = new CountedFunction(QStringLiteral("tf_global"));
        center->addFunction(global);
        {
            Dialog dialog;
            auto* local = new CountedFunction(QStringLiteral("tf_local"));
            dialog.addFunction(local);
            QCOMPARE(dialog.getFunction(QStringLiteral("tf_local")), local);
            QCOMPARE(dialog.getFunction(QStringLiteral("tf_global")), global);
            QCOMPARE(dialog.getFunctionIds(), QStringList{QStringLiteral("tf_local")});
            QCOMPARE(center->getFunction(QStringLiteral("tf_local")), nullptr);

            // A dialog entry overrides the Center's of the same id.
            auto* shadow = new CountedFunction(QStringLiteral("tf_global"));
            dialog.addFunction(shadow);
            QCOMPARE(dialog.getFunction(QStringLiteral("tf_global")), shadow);
            QCOMPARE(CountedFunction::alive, 3);

            dialog.removeFunction(QStringLiteral("tf_local"));
            QTRY_COMPARE(CountedFunction::alive, 2);
            QCOMPARE(dialog.getFunction(QStringLiteral("tf_local")), nullptr);
        }
        // The dialog's own functions went with it; the Center's stays.
        QTRY_COMPARE(CountedFunction::alive, 1);
        QCOMPARE(center->getFunction(QStringLiteral("tf_global")), global);
    }

    void nullFunctionIsIgnored()
    {
        Center::getInstance()->addFunction(nullptr);
        Dialog dialog;
        dialog.addFunction(nullptr);
        QVERIFY(dialog.getFunctionIds().isEmpty());
    }

    void defaultInvokeAsyncCallsInvoke()
    {
        CountedFunction f(QStringLiteral("tf_direct"));
        JsonConfig arguments;
        arguments.setInt(QStringLiteral("x"), 21);
        int calls = 0;
        JsonConfig got;
        f.invokeAsync(arguments, [&](const JsonConfig& result) {
            ++calls;
            got = result;
        });
        QCOMPARE(CountedFunction::invokes, 1);
        QCOMPARE(calls, 1);
        QCOMPARE(got.getInt(QStringLiteral("doubled")), 42);
        // An empty callback is tolerated.
        f.invokeAsync(arguments, {});
        QCOMPARE(CountedFunction::invokes, 2);
    }
};

QTEST_GUILESS_MAIN(TestFunction)
#include "tst_function.moc"
