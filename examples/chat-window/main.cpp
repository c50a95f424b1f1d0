// SPDX-License-Identifier: MIT
//
// chat-window — the README's window: a Qt Widgets chat over Visindigo::Agent (ChatWindow.h
// says what it shows). Its conversations and settings are the Center, saved to
// QStandardPaths::AppDataLocation on quit and restored at start; with no model configured it
// runs the offline demo and says so in the status bar.
#include "ChatWindow.h"
#include "Workspace.h"

#include <QtWidgets/QApplication>
#include <QtWidgets/QMessageBox>

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("chat-window"));
    QApplication::setOrganizationName(QStringLiteral("Visindigo"));
    Workspace workspace;
    QString error;
    if (!workspace.open(&error)) {
        QMessageBox::critical(nullptr, QStringLiteral("chat-window"), error);
        return 2;
    }
    ChatWindow window(&workspace);
    window.resize(900, 620);
    window.show();
    const int status = app.exec();
    if (!workspace.save(&error)) {
        QMessageBox::warning(nullptr, QStringLiteral("chat-window"), error);
        return 1;
    }
    return status;
}
