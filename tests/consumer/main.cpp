// SPDX-License-Identifier: MIT
//
// Installed-package check, written against the native Visindigo Agent API only — the code an
// application that swaps the native module for this library already has. It registers a
// model and a provider, builds a dialog with a prompt, a skill and a function, checks what
// SPEC says of them, saves and restores the Center, and prints "consumer: ok".
#include <Agent/Center.h>
#include <Agent/Dialog.h>
#include <Agent/Function.h>
#include <Agent/MCP.h>
#include <Agent/Model.h>
#include <Agent/Prompt.h>
#include <Agent/Provider.h>
#include <Agent/Skill.h>
#include <Utility/JsonConfig.h>

#include <QtCore/QCoreApplication>

#include <cstdio>

using namespace Visindigo::Agent;
using Visindigo::Utility::JsonConfig;

namespace {

int failures = 0;

void check(bool ok, const char* what)
{
    if (!ok) {
        std::fprintf(stderr, "consumer: FAILED: %s\n", what);
        ++failures;
    }
}

class Echo : public Function
{
public:
    QString getId() const override { return QStringLiteral("echo"); }
    QString getName() const override { return QStringLiteral("Echo"); }
    QString getDescription() const override { return QStringLiteral("Repeats its input."); }
    JsonConfig getParameterSchema() const override { return JsonConfig(QStringLiteral(R"({"type":"object"})")); }
    JsonConfig invoke(const JsonConfig& arguments) override { return arguments; }
};

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    Center* center = Center::getInstance();

    Model model;
    model.setName(QStringLiteral("gpt-4o-mini"))
        .setUrl(QUrl(QStringLiteral("https://api.example.invalid/v1")))
        .setToken(QStringLiteral("sk-consumer"))
        .setMaxTokens(256);
    model.addCapability(Model::Capability::ToolUse);
    center->addModel(model);

    Provider provider(QStringLiteral("example"));
    provider.addModel(model.getId(), 10);
    center->addProvider(provider);
    center->setDefaultProvider(provider.getId());
    check(provider.pickFirst(Model::Capability::ToolUse) == model.getId(), "pickFirst finds the model");
    check(provider.pickFirst(Model::Capability::Image).isEmpty(), "pickFirst honours capabilities");

    center->addSkill(Skill(QStringLiteral("brief")).setInstruction(QStringLiteral("Answer briefly.")));
    center->addPrompt(Prompt(QStringLiteral("greet"), QStringLiteral("Hello {{ name }}!")));
    center->addFunction(new Echo);
    check(center->getFunction(QStringLiteral("echo")) != nullptr, "the function is registered");

    Dialog* dialog = center->createDialog();
    int appended = 0;
    QObject::connect(dialog, &Dialog::messageAppended, [&](qint32) { ++appended; });
    dialog->appendPrompt(QStringLiteral("greet"), {{QStringLiteral("name"), QStringLiteral("Qt")}});
    dialog->appendMessage(Message::Role::User, QStringLiteral("How are you?"));
    check(appended == 2, "messageAppended for each message");
    check(dialog->getMessages().first().getContent() == QStringLiteral("Hello Qt!"), "the prompt was rendered");
    check(dialog->getMessages().first().getRole() == Message::Role::Prompt, "a rendered prompt has role Prompt");

    const QString saved = center->toJson().toString(QJsonDocument::Compact);
    check(center->fromJson(JsonConfig(saved)), "the Center restores from its JSON");
    check(center->getDialogIds().size() == 1, "the dialog is restored");
    Dialog* restored = center->getDialog(center->getDialogIds().first());
    check(restored && restored->getMessageCount() == 2, "with its messages");
    check(center->getModel(model.getId()).getToken() == QStringLiteral("sk-consumer"), "and the model");

    if (failures)
        return 1;
    std::printf("consumer: ok\n");
    return 0;
}
