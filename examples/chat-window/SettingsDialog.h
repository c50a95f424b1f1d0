// SPDX-License-Identifier: MIT
//
// The chat window's settings: where answers come from (url, API, model name, token), where the
// token is kept, the model's context window and what the conversation does when it would not
// fit (SPEC §I.4).
#ifndef VI_CHAT_WINDOW_SETTINGS_DIALOG_H
#define VI_CHAT_WINDOW_SETTINGS_DIALOG_H

#include <Agent/Dialog.h>
#include <Agent/Model.h>

#include <QtWidgets/QDialog>

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;

class SettingsDialog : public QDialog
{
    Q_OBJECT
public:
    // Shows `model`'s settings; accept() only with a valid model.
    explicit SettingsDialog(const Visindigo::Agent::Model& model, QWidget* parent = nullptr);

    // The model as edited (the same id).
    Visindigo::Agent::Model model() const;

    // Says under the token where it is kept (Workspace::tokenNote()).
    void setTokenNote(const QString& note);

    // The conversation's context policy (Dialog::setContextPolicy), shown as "When too long".
    void setContextPolicy(Visindigo::Agent::Dialog::ContextPolicy policy);
    Visindigo::Agent::Dialog::ContextPolicy contextPolicy() const;

    void accept() override;

private:
    Visindigo::Agent::Model edited;
    QLineEdit* url;
    QComboBox* api;
    QLineEdit* name;
    QLineEdit* token;
    QLabel* tokenNote;
    QSpinBox* contextWindow;
    QComboBox* policy;
    QLabel* problem;
};

#endif // VI_CHAT_WINDOW_SETTINGS_DIALOG_H
