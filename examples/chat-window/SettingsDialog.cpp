// SPDX-License-Identifier: MIT
#include "SettingsDialog.h"

#include <QtWidgets/QComboBox>
#include <QtWidgets/QDialogButtonBox>
#include <QtWidgets/QFormLayout>
#include <QtWidgets/QLabel>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QSpinBox>
#include <QtWidgets/QVBoxLayout>

using Visindigo::Agent::Dialog;
using Visindigo::Agent::Model;

SettingsDialog::SettingsDialog(const Model& model, QWidget* parent)
    : QDialog(parent)
    , edited(model)
    , url(new QLineEdit(model.getUrl().toString()))
    , api(new QComboBox)
    , name(new QLineEdit(model.getName()))
    , token(new QLineEdit(model.getToken()))
    , tokenNote(new QLabel)
    , contextWindow(new QSpinBox)
    , policy(new QComboBox)
    , problem(new QLabel)
{
    setWindowTitle(tr("Settings"));
    url->setObjectName(QStringLiteral("url"));
    url->setPlaceholderText(QStringLiteral("https://api.openai.com/v1"));
    api->setObjectName(QStringLiteral("api"));
    api->addItem(tr("OpenAI Chat Completions"), int(Model::Api::ChatCompletions));
    api->addItem(tr("OpenAI Responses"), int(Model::Api::Responses));
    api->addItem(tr("Anthropic Messages"), int(Model::Api::AnthropicMessages));
    api->setCurrentIndex(api->findData(int(model.getApi())));
    name->setObjectName(QStringLiteral("modelName"));
    name->setPlaceholderText(QStringLiteral("gpt-4o-mini"));
    token->setObjectName(QStringLiteral("token"));
    token->setEchoMode(QLineEdit::Password);
    tokenNote->setObjectName(QStringLiteral("tokenNote"));
    tokenNote->setWordWrap(true);
    tokenNote->setStyleSheet(QStringLiteral("color: #555555"));
    tokenNote->hide();
    // The model's context window in tokens (SPEC §I.4.1); 0 = unknown, then only the provider's
    // own overflow answer tells.
    contextWindow->setObjectName(QStringLiteral("contextWindow"));
    contextWindow->setRange(0, 100'000'000);
    contextWindow->setSingleStep(1000);
    contextWindow->setGroupSeparatorShown(true);
    contextWindow->setSpecialValueText(tr("unknown"));
    contextWindow->setSuffix(tr(" tokens"));
    contextWindow->setValue(model.getContextWindow());
    contextWindow->setToolTip(tr("How many tokens the model reads at most (e.g. 128,000); 0 = unknown"));
    // What this conversation does when a request would not fit (SPEC §I.4.2).
    policy->setObjectName(QStringLiteral("contextPolicy"));
    policy->addItem(tr("Fail"), int(Dialog::ContextPolicy::Fail));
    policy->addItem(tr("Drop oldest"), int(Dialog::ContextPolicy::DropOldest));
    policy->addItem(tr("Summarize"), int(Dialog::ContextPolicy::Summarize));
    policy->setToolTip(tr("Fail: say so and send nothing. Drop oldest: leave the oldest turns out of what is sent. "
                          "Summarize: send a summary in their place. The conversation itself keeps every message."));
    problem->setObjectName(QStringLiteral("problem"));
    problem->setStyleSheet(QStringLiteral("color: #b00020"));
    problem->hide();

    auto* form = new QFormLayout;
    form->addRow(tr("Base URL"), url);
    form->addRow(tr("API"), api);
    form->addRow(tr("Model"), name);
    form->addRow(tr("Token"), token);
    form->addRow(QString(), tokenNote);
    form->addRow(tr("Context window"), contextWindow);
    form->addRow(tr("When too long"), policy);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, this, &SettingsDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &SettingsDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(problem);
    layout->addWidget(buttons);
}

void SettingsDialog::setTokenNote(const QString& note)
{
    tokenNote->setText(note);
    tokenNote->setVisible(!note.isEmpty());
}

void SettingsDialog::setContextPolicy(Dialog::ContextPolicy value)
{
    policy->setCurrentIndex(policy->findData(int(value)));
}

Dialog::ContextPolicy SettingsDialog::contextPolicy() const
{
    return Dialog::ContextPolicy(policy->currentData().toInt());
}

Model SettingsDialog::model() const
{
    return edited;
}

void SettingsDialog::accept()
{
    Model candidate = edited;
    candidate.setUrl(QUrl(url->text().trimmed()))
        .setApi(Model::Api(api->currentData().toInt()))
        .setName(name->text().trimmed())
        .setToken(token->text())
        .setContextWindow(contextWindow->value());
    if (!candidate.isValid()) {
        problem->setText(tr("A base URL with its scheme (https://…), a model name and a token are needed."));
        problem->show();
        return;
    }
    edited = candidate;
    QDialog::accept();
}
