// SPDX-License-Identifier: MIT
//
// What the QML page calls: one conversation of the Center with its MessageModel, and the
// actions a page needs (send, stop) as Q_INVOKABLEs. Answers come from the offline demo unless
// OPENAI_BASE_URL (with OPENAI_API_KEY, OPENAI_MODEL) names a server.
#ifndef VI_CHAT_QML_CHAT_CONTROLLER_H
#define VI_CHAT_QML_CHAT_CONTROLLER_H

#include "../common/OfflineDemo.h"

#include <Agent/Dialog.h>
#include <Agent/MessageModel.h>

#include <QtCore/QObject>

class ChatController : public QObject
{
    Q_OBJECT
    Q_PROPERTY(Visindigo::Agent::MessageModel* messages READ messages CONSTANT)
    Q_PROPERTY(bool streaming READ streaming NOTIFY streamingChanged)
    Q_PROPERTY(QString source READ source CONSTANT)
    Q_PROPERTY(QString lastFailure READ lastFailure NOTIFY lastFailureChanged)
public:
    explicit ChatController(QObject* parent = nullptr);

    // False with `error` set when no endpoint is configured and the demo does not start.
    bool open(QString* error);

    Visindigo::Agent::MessageModel* messages() const { return model; }
    bool streaming() const;
    QString source() const { return from; }
    QString lastFailure() const { return failure; }
    Visindigo::Agent::Dialog* dialog() const { return conversation; }

    Q_INVOKABLE void send(const QString& text);
    Q_INVOKABLE void stop();

Q_SIGNALS:
    void streamingChanged();
    void lastFailureChanged();

private:
    OfflineDemo offline;
    Visindigo::Agent::Dialog* conversation = nullptr;
    Visindigo::Agent::MessageModel* model;
    QString from;
    QString failure;
};

#endif // VI_CHAT_QML_CHAT_CONTROLLER_H
