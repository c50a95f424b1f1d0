// SPDX-License-Identifier: MIT
#include "ChatController.h"

#include "../common/Clock.h"

#include <Agent/Center.h>
#include <Agent/Model.h>
#include <Agent/Provider.h>

using namespace Visindigo::Agent;

ChatController::ChatController(QObject* parent)
    : QObject(parent)
    , model(new MessageModel(this))
{
}

bool ChatController::open(QString* error)
{
    Model m;
    if (qEnvironmentVariableIsSet("OPENAI_BASE_URL")) {
        m.setName(qEnvironmentVariable("OPENAI_MODEL", QStringLiteral("gpt-4o-mini")))
            .setUrl(QUrl(qEnvironmentVariable("OPENAI_BASE_URL")))
            .setToken(qEnvironmentVariable("OPENAI_API_KEY"));
        from = QStringLiteral("%1 at %2").arg(m.getName(), m.getUrl().toString());
    } else {
        const QString url = offline.start();
        if (url.isEmpty()) {
            *error = QStringLiteral("No endpoint configured (OPENAI_BASE_URL) and the offline demo server did not start.");
            return false;
        }
        m.setName(QStringLiteral("offline-demo")).setUrl(QUrl(url)).setToken(QStringLiteral("demo"));
        from = QStringLiteral("Offline demo: a scripted local server answers, not a model");
    }
    m.addCapability(Model::Capability::ToolUse);
    if (!m.isValid()) {
        *error = QStringLiteral("The model needs a name, a url with a scheme and a token.");
        return false;
    }
    Center* center = Center::getInstance();
    center->addModel(m);
    Provider provider(QStringLiteral("chat-qml"));
    provider.addModel(m.getId());
    center->addProvider(provider);
    center->addFunction(new Clock);
    conversation = center->createDialog();
    conversation->setProviderId(provider.getId());
    connect(conversation, &Dialog::streamBegan, this, &ChatController::streamingChanged);
    connect(conversation, &Dialog::runFinished, this, &ChatController::streamingChanged);
    connect(conversation, &Dialog::runFailed, this, [this](const QString& message) {
        failure = message;
        Q_EMIT lastFailureChanged();
    });
    model->setDialog(conversation);
    return true;
}

bool ChatController::streaming() const
{
    return conversation && conversation->isStreaming();
}

void ChatController::send(const QString& text)
{
    if (!conversation || text.trimmed().isEmpty() || conversation->isStreaming())
        return;
    conversation->appendMessage(Message::Role::User, text.trimmed());
    conversation->run();
    Q_EMIT streamingChanged();
}

void ChatController::stop()
{
    if (conversation)
        conversation->stop();
}
