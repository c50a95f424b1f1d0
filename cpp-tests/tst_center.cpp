// SPDX-License-Identifier: MIT
//
// Center (SPEC §C): registries, dialogs, JSON. The Center is a process-wide singleton:
// init() resets it with fromJson of a minimal non-empty object, so every test starts empty.
#include <Agent/Center.h>
#include <Agent/Dialog.h>
#include <Agent/Function.h>

#include <QtCore/QPointer>
#include <QtTest/QtTest>

using namespace Visindigo::Agent;
using Visindigo::Utility::JsonConfig;

namespace {

class NoopFunction : public Function
{
public:
    explicit NoopFunction(QString id) : m_id(std::move(id)) {}
    QString getId() const override { return m_id; }
    QString getName() const override { return m_id; }
    QString getDescription() const override { return {}; }
    JsonConfig getParameterSchema() const override { return JsonConfig(); }
    JsonConfig invoke(const JsonConfig&) override { return JsonConfig(); }

private:
    QString m_id;
};

Model makeModel(const QString& id, const QString& name = QStringLiteral("gpt"))
{
    Model m;
    JsonConfig json;
    json.setString(QStringLiteral("id"), id);
    m.fromJson(json);
    m.setName(name).setUrl(QUrl(QStringLiteral("http://127.0.0.1:1/v1"))).setToken(QStringLiteral("t"));
    return m;
}

Provider makeProvider(const QString& id, const QString& name = QStringLiteral("prov"))
{
    Provider p;
    JsonConfig json;
    json.setString(QStringLiteral("id"), id);
    json.setString(QStringLiteral("name"), name);
    p.fromJson(json);
    return p;
}

QStringList modelIds(const QList<Model>& models)
{
    QStringList out;
    for (const Model& m : models)
        out << m.getId();
    return out;
}

} // namespace

class TestCenter : public QObject
{
    Q_OBJECT

    Center* center = Center::getInstance();

    void reset()
    {
        QVERIFY(center->fromJson(JsonConfig::fromJson(QStringLiteral(R"({"models":[]})"))));
        for (const QString& id : center->getFunctionIds())
            center->removeFunction(id);
    }

private Q_SLOTS:
    void init() { reset(); }
    void cleanupTestCase() { reset(); }

    void aDocumentWithoutSecretsKeepsThoseInMemory()
    {
        Model model;
        model.setName(QStringLiteral("gpt")).setUrl(QUrl(QStringLiteral("https://api.example/v1"))).setToken(QStringLiteral("sk-kept"));
        center->addModel(model);
        MCP hosted(QStringLiteral("hosted"));
        hosted.setTransport(MCP::Transport::StreamableHttp).setUrl(QUrl(QStringLiteral("https://mcp.example/mcp")));
        hosted.setHeaders({{QStringLiteral("Authorization"), QStringLiteral("Bearer kept")}, {QStringLiteral("Accept-Language"), QStringLiteral("de")}});
        center->addMCP(hosted);
        MCP local(QStringLiteral("local"));
        local.setCommand(QStringLiteral("github-mcp-server"))
            .setEnvironment({{QStringLiteral("GITHUB_TOKEN"), QStringLiteral("ghp-kept")}, {QStringLiteral("LOG_LEVEL"), QStringLiteral("debug")}});
        center->addMCP(local);
        const JsonConfig saved = center->toJson(Center::Secrets::Omit);
        const QString text = saved.toString(QJsonDocument::Compact);
        QVERIFY2(!text.contains(QLatin1String("sk-kept")) && !text.contains(QLatin1String("Bearer kept")), qPrintable(text));
        QVERIFY2(!text.contains(QLatin1String("ghp-kept")) && !text.contains(QLatin1String("GITHUB_TOKEN")), qPrintable(text));
        QVERIFY(text.contains(QLatin1String("Accept-Language")) && text.contains(QLatin1String("LOG_LEVEL")));
        QVERIFY(center->toJson().toString(QJsonDocument::Compact).contains(QLatin1String("sk-kept")));
        QVERIFY(center->fromJson(saved));
        QCOMPARE(center->getModel(model.getId()).getToken(), QStringLiteral("sk-kept"));
        QCOMPARE(center->getMCP(QStringLiteral("hosted")).getHeaders().value(QStringLiteral("Authorization")), QStringLiteral("Bearer kept"));
        QCOMPARE(center->getMCP(QStringLiteral("local")).getEnvironment().value(QStringLiteral("GITHUB_TOKEN")), QStringLiteral("ghp-kept"));
    }

    void singleton()
    {
        QCOMPARE(Center::getInstance(), Center::getInstance());
        QVERIFY(center->getModels().isEmpty());
        QVERIFY(center->getDialogIds().isEmpty());
    }

    void modelsSortedReplacedRemoved()
    {
        center->addModel(makeModel(QStringLiteral("m-c")));
        center->addModel(makeModel(QStringLiteral("m-a")));
        center->addModel(makeModel(QStringLiteral("m-b")));
        QCOMPARE(center->getModelIds(), (QStringList{QStringLiteral("m-a"), QStringLiteral("m-b"), QStringLiteral("m-c")}));
        QCOMPARE(modelIds(center->getModels()), center->getModelIds());

        center->addModel(makeModel(QStringLiteral("m-b"), QStringLiteral("renamed")));
        QCOMPARE(center->getModelIds().size(), 3);
        QCOMPARE(center->getModel(QStringLiteral("m-b")).getName(), QStringLiteral("renamed"));
        QCOMPARE(center->getModel(QStringLiteral("m-b")).getToken(), QStringLiteral("t"));

        center->removeModel(QStringLiteral("m-a"));
        QCOMPARE(center->getModelIds(), (QStringList{QStringLiteral("m-b"), QStringLiteral("m-c")}));

        const Model unknown = center->getModel(QStringLiteral("nope"));
        QVERIFY(!unknown.isValid());
        QVERIFY(unknown.getId() != QStringLiteral("nope"));
    }

    void providersAndDefault()
    {
        Provider p = makeProvider(QStringLiteral("p-b"));
        p.addModel(QStringLiteral("m1"), 3);
        center->addProvider(p);
        center->addProvider(makeProvider(QStringLiteral("p-a")));
        QCOMPARE(center->getProviders().size(), 2);
        QCOMPARE(center->getProviders().at(0).getId(), QStringLiteral("p-a"));
        QCOMPARE(center->getProviders().at(1).getId(), QStringLiteral("p-b"));
        QCOMPARE(center->getProvider(QStringLiteral("p-b")).getModelPriority(QStringLiteral("m1")), 3);
        QVERIFY(!center->getProvider(QStringLiteral("nope")).isValid());

        center->setDefaultProvider(QStringLiteral("unchecked"));
        QCOMPARE(center->getDefaultProvider(), QStringLiteral("unchecked"));
        center->setDefaultProvider(QStringLiteral("p-b"));
        center->removeProvider(QStringLiteral("p-a"));
        QCOMPARE(center->getDefaultProvider(), QStringLiteral("p-b"));
        center->removeProvider(QStringLiteral("p-b"));
        QVERIFY(center->getDefaultProvider().isEmpty());
        QVERIFY(center->getProviders().isEmpty());
    }

    void skillsMcpsPrompts()
    {
        center->addSkill(Skill(QStringLiteral("zeta")).setInstruction(QStringLiteral("z")));
        center->addSkill(Skill(QStringLiteral("alpha")).setInstruction(QStringLiteral("a")));
        center->addSkill(Skill(QString()).setInstruction(QStringLiteral("ignored")));
        center->addSkill(Skill(QStringLiteral("alpha")).setInstruction(QStringLiteral("a2")));
        QCOMPARE(center->getSkills().size(), 2);
        QCOMPARE(center->getSkills().at(0).getName(), QStringLiteral("alpha"));
        QCOMPARE(center->getSkill(QStringLiteral("alpha")).getInstruction(), QStringLiteral("a2"));
        QVERIFY(!center->getSkill(QStringLiteral("nope")).isValid());
        center->removeSkill(QStringLiteral("zeta"));
        QCOMPARE(center->getSkills().size(), 1);

        center->addMCP(MCP(QStringLiteral("srv-b")).setCommand(QStringLiteral("b")));
        center->addMCP(MCP(QStringLiteral("srv-a")).setCommand(QStringLiteral("a")));
        center->addMCP(MCP(QString()));
        QCOMPARE(center->getMCPs().size(), 2);
        QCOMPARE(center->getMCPs().at(0).getName(), QStringLiteral("srv-a"));
        QCOMPARE(center->getMCP(QStringLiteral("srv-b")).getCommand(), QStringLiteral("b"));
        QVERIFY(!center->getMCP(QStringLiteral("nope")).isValid());
        center->removeMCP(QStringLiteral("srv-a"));
        QCOMPARE(center->getMCPs().size(), 1);

        center->addPrompt(Prompt(QStringLiteral("pb"), QStringLiteral("B")));
        center->addPrompt(Prompt(QStringLiteral("pa"), QStringLiteral("A")));
        center->addPrompt(Prompt(QString(), QStringLiteral("ignored")));
        center->addPrompt(Prompt(QStringLiteral("pb"), QStringLiteral("B2")));
        QCOMPARE(center->getPrompts().size(), 2);
        QCOMPARE(center->getPrompts().at(0).getName(), QStringLiteral("pa"));
        QCOMPARE(center->getPrompt(QStringLiteral("pb")).getContent(), QStringLiteral("B2"));
        QVERIFY(!center->getPrompt(QStringLiteral("nope")).isValid());
        center->removePrompt(QStringLiteral("pa"));
        QCOMPARE(center->getPrompts().size(), 1);
    }

    void functionsUnknownIsNull()
    {
        QCOMPARE(center->getFunction(QStringLiteral("nope")), nullptr);
        QVERIFY(center->getFunctionIds().isEmpty());
    }

    void createGetSaveRemoveDialog()
    {
        Dialog* dialog = center->createDialog();
        QVERIFY(dialog);
        QPointer<Dialog> guard(dialog);
        QCOMPARE(dialog->thread(), QThread::currentThread());
        QCOMPARE(dialog->parent(), nullptr);
        const QString id = dialog->getId();
        QCOMPARE(center->getDialogIds(), QStringList{id});
        QCOMPARE(center->getDialog(id), dialog);
        QCOMPARE(center->getDialog(QStringLiteral("nope")), nullptr);

        dialog->appendMessage(Message::Role::User, QStringLiteral("hi"));
        const JsonConfig saved = center->saveDialog(dialog);
        QCOMPARE(saved.getString(QStringLiteral("id")), id);
        QCOMPARE(saved.getString(QStringLiteral("messages.0.content")), QStringLiteral("hi"));
        QVERIFY(center->saveDialog(nullptr).isEmpty());

        center->removeDialog(id);
        QVERIFY(guard.isNull());
        QVERIFY(center->getDialogIds().isEmpty());
        QCOMPARE(center->getDialog(id), nullptr);
        center->removeDialog(QStringLiteral("nope")); // harmless
    }

    void restoreDialogReplacesSameId()
    {
        Dialog* original = center->createDialog();
        original->appendMessage(Message::Role::User, QStringLiteral("v1"));
        const QString id = original->getId();
        JsonConfig json = center->saveDialog(original);
        json.setString(QStringLiteral("messages.0.content"), QStringLiteral("v2"));

        QPointer<Dialog> oldGuard(original);
        Dialog* restored = center->restoreDialog(json);
        QVERIFY(restored);
        QVERIFY(oldGuard.isNull()); // replaced and destroyed
        QCOMPARE(restored->getId(), id);
        QCOMPARE(restored->getLastMessage().getContent(), QStringLiteral("v2"));
        QCOMPARE(center->getDialog(id), restored);
        QCOMPARE(center->getDialogIds(), QStringList{id});

        // A restored dialog without an id gets a fresh one.
        JsonConfig noId = json;
        noId.remove(QStringLiteral("id"));
        Dialog* fresh = center->restoreDialog(noId);
        QVERIFY(fresh);
        QVERIFY(fresh->getId() != id);
        QCOMPARE(center->getDialogIds().size(), 2);

        // Its signals still work (the callback is attached).
        QSignalSpy spy(restored, &Dialog::messageAppended);
        restored->appendMessage(Message::Role::User, QStringLiteral("more"));
        QCOMPARE(spy.count(), 1);
    }

    void cloneDialog()
    {
        QCOMPARE(center->cloneDialog(QStringLiteral("nope")), nullptr);
        Dialog* source = center->createDialog();
        source->appendMessage(Message::Role::User, QStringLiteral("q"));
        source->appendMessage(Message::Role::Assistant, QStringLiteral("a"));
        source->addSkill(Skill(QStringLiteral("s")).setInstruction(QStringLiteral("i")));
        source->addPrompt(Prompt(QStringLiteral("p"), QStringLiteral("c")));
        source->addMCP(MCP(QStringLiteral("m")).setCommand(QStringLiteral("x")));
        source->setProviderId(QStringLiteral("prov")).setModelId(QStringLiteral("mod"));
        source->setCapabilityRequirement(Model::Capability::Text | Model::Capability::ToolUse);
        source->addFunction(new NoopFunction(QStringLiteral("local_fn")));

        Dialog* clone = center->cloneDialog(source->getId());
        QVERIFY(clone);
        QVERIFY(clone != source);
        QVERIFY(clone->getId() != source->getId());
        QCOMPARE(clone->getBranchFromID(), source->getId());
        QCOMPARE(clone->getMessageCount(), 2);
        QCOMPARE(clone->getSkills().size(), 1);
        QCOMPARE(clone->getPrompts().size(), 1);
        QCOMPARE(clone->getMCPs().size(), 1);
        QCOMPARE(clone->getProviderId(), QStringLiteral("prov"));
        QCOMPARE(clone->getModelId(), QStringLiteral("mod"));
        QCOMPARE(clone->getCapabilityRequirement(), Model::Capability::Text | Model::Capability::ToolUse);
        QVERIFY(clone->getFunctionIds().isEmpty());
        QCOMPARE(center->getDialog(clone->getId()), clone);
        QCOMPARE(center->getDialogIds().size(), 2);
    }

    void regenerateWithoutProvider()
    {
        QCOMPARE(center->regenerate(QStringLiteral("nope")), nullptr);
        Dialog* source = center->createDialog();
        source->appendMessage(Message::Role::User, QStringLiteral("q"));
        source->appendMessage(Message::Role::Assistant, QStringLiteral("a"));
        source->appendMessage(Message::Role::User, QStringLiteral("q2"));
        Dialog* clone = center->regenerate(source->getId());
        QVERIFY(clone);
        QCOMPARE(clone->getBranchFromID(), source->getId());
        QCOMPARE(clone->getMessageCount(), 1); // the last assistant message and what follows dropped
        QCOMPARE(source->getMessageCount(), 3);
        QVERIFY(!clone->isStreaming()); // no provider: the run failed at once
    }

    void toJsonKeys()
    {
        center->addModel(makeModel(QStringLiteral("m1")));
        center->createDialog();
        const JsonConfig json = center->toJson();
        QStringList keys = json.keys();
        keys.sort();
        QCOMPARE(keys, (QStringList{QStringLiteral("defaultProviderId"), QStringLiteral("dialogs"),
                                    QStringLiteral("mcps"), QStringLiteral("models"), QStringLiteral("prompts"),
                                    QStringLiteral("providers"), QStringLiteral("skills")}));
        QCOMPARE(json.getString(QStringLiteral("models.0.token")), QStringLiteral("t"));
        QCOMPARE(json.getArray(QStringLiteral("dialogs")).size(), 1);
    }

    void fromJsonEmptyChangesNothing()
    {
        center->addModel(makeModel(QStringLiteral("keep")));
        Dialog* dialog = center->createDialog();
        QPointer<Dialog> guard(dialog);
        QVERIFY(!center->fromJson(JsonConfig()));
        QVERIFY(!center->fromJson(JsonConfig::fromJson(QStringLiteral("[]"))));
        QCOMPARE(center->getModelIds(), QStringList{QStringLiteral("keep")});
        QVERIFY(!guard.isNull());
        QCOMPARE(center->getDialog(dialog->getId()), dialog);
    }

    void fromJsonReplacesEverything()
    {
        center->addModel(makeModel(QStringLiteral("m1")));
        center->addProvider(makeProvider(QStringLiteral("p1")));
        center->setDefaultProvider(QStringLiteral("p1"));
        auto* fn = new NoopFunction(QStringLiteral("center_fn"));
        center->addFunction(fn);
        Dialog* dialog = center->createDialog();
        dialog->appendMessage(Message::Role::User, QStringLiteral("saved"));
        const QString dialogId = dialog->getId();
        const JsonConfig saved = center->toJson();

        // Change everything, then restore the saved state.
        center->removeModel(QStringLiteral("m1"));
        center->addModel(makeModel(QStringLiteral("m2")));
        center->addSkill(Skill(QStringLiteral("extra")).setInstruction(QStringLiteral("x")));
        Dialog* other = center->createDialog();
        QPointer<Dialog> oldDialog(dialog);
        QPointer<Dialog> otherGuard(other);

        QVERIFY(center->fromJson(saved));
        QCOMPARE(center->getModelIds(), QStringList{QStringLiteral("m1")});
        QCOMPARE(center->getProviders().size(), 1);
        QCOMPARE(center->getDefaultProvider(), QStringLiteral("p1"));
        QVERIFY(center->getSkills().isEmpty());
        QCOMPARE(center->getDialogIds(), QStringList{dialogId});
        QVERIFY(oldDialog.isNull());
        QVERIFY(otherGuard.isNull());
        Dialog* restored = center->getDialog(dialogId);
        QVERIFY(restored);
        QCOMPARE(restored->getLastMessage().getContent(), QStringLiteral("saved"));
        QSignalSpy spy(restored, &Dialog::messageAppended);
        restored->appendMessage(Message::Role::User, QStringLiteral("again"));
        QCOMPARE(spy.count(), 1);
        // Functions stay registered.
        QCOMPARE(center->getFunction(QStringLiteral("center_fn")), fn);
    }

    // The dialog list signals (SPEC §H.5.2): queued to the Center's thread, one per change,
    // in order; by then getDialog() finds the new dialog.
    void dialogListSignals()
    {
        QCoreApplication::processEvents(); // the earlier tests' signals
        QStringList log;
        QStringList found;
        const auto record = [&](const char* what) {
            return [&log, &found, this, what](const QString& id) {
                log << QLatin1String(what) + QLatin1Char(':') + id;
                found << (center->getDialog(id) ? QStringLiteral("found") : QStringLiteral("gone"));
            };
        };
        QMetaObject::Connection c1 = connect(center, &Center::dialogAdded, this, record("added"));
        QMetaObject::Connection c2 = connect(center, &Center::dialogRemoved, this, record("removed"));
        QMetaObject::Connection c3 = connect(center, &Center::dialogsReset, this, [&] { log << QStringLiteral("reset"); });
        Dialog* a = center->createDialog();
        const QString id = a->getId();
        QVERIFY(log.isEmpty()); // not before the event loop runs
        QTRY_COMPARE(log.size(), 1);
        QCOMPARE(found, QStringList{QStringLiteral("found")});
        Dialog* b = center->cloneDialog(id);
        const QString bid = b->getId();
        center->restoreDialog(a->toJson());
        center->removeDialog(bid);
        QVERIFY(center->fromJson(JsonConfig::fromJson(QStringLiteral(R"({"dialogs":[]})"))));
        QTRY_COMPARE(log.size(), 6);
        QCOMPARE(log, (QStringList{QStringLiteral("added:") + id, QStringLiteral("added:") + bid, QStringLiteral("removed:") + id,
                                   QStringLiteral("added:") + id, QStringLiteral("removed:") + bid, QStringLiteral("reset")}));
        // Delivered after the fromJson: every dialog is gone by then.
        QCOMPARE(found, (QStringList{QStringLiteral("found"), QStringLiteral("gone"), QStringLiteral("gone"), QStringLiteral("gone"),
                                     QStringLiteral("gone")}));
        disconnect(c1);
        disconnect(c2);
        disconnect(c3);
    }
};

QTEST_GUILESS_MAIN(TestCenter)
#include "tst_center.moc"
