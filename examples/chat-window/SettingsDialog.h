// SPDX-License-Identifier: MIT
//
// The chat window's settings: where answers come from (url, API, model name, token), and where the token is kept.
#ifndef VI_CHAT_WINDOW_SETTINGS_DIALOG_H
#define VI_CHAT_WINDOW_SETTINGS_DIALOG_H

#include <Agent/Model.h>

#include <QtWidgets/QDialog>

class QComboBox;
class QLabel;
class QLineEdit;

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

    void accept() override;

private:
    Visindigo::Agent::Model edited;
    QLineEdit* url;
    QComboBox* api;
    QLineEdit* name;
    QLineEdit* token;
    QLabel* tokenNote;
    QLabel* problem;
};

#endif // VI_CHAT_WINDOW_SETTINGS_DIALOG_H
