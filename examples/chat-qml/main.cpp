// SPDX-License-Identifier: MIT
//
// chat-qml — a page of QML over MessageModel (Main.qml), the same streaming behaviour as the
// Widgets window in a ListView. Offline demo unless OPENAI_BASE_URL is set.
#include "ChatController.h"

#include <QtGui/QGuiApplication>
#include <QtQml/QQmlApplicationEngine>
#include <QtQml/QQmlContext>

#include <cstdio>

int main(int argc, char** argv)
{
    QGuiApplication app(argc, argv);
    ChatController chat;
    QString error;
    if (!chat.open(&error)) {
        std::fprintf(stderr, "chat-qml: %s\n", qPrintable(error));
        return 2;
    }
    QQmlApplicationEngine engine;
    engine.rootContext()->setContextProperty(QStringLiteral("chat"), &chat);
    engine.load(QUrl(QStringLiteral("qrc:/chat-qml/Main.qml")));
    if (engine.rootObjects().isEmpty())
        return 2;
    return app.exec();
}
