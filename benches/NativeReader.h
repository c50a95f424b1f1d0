// SPDX-License-Identifier: MIT
//
// The Qt-native baseline of the stream benchmarks: how a Qt application reads a model's stream
// without this library — QNetworkAccessManager, SSE decoded on readyRead, every event parsed
// with QJsonDocument, one Qt signal per delta — for Chat Completions, Responses and Anthropic
// Messages.
#ifndef VISINDIGO_AGENT_BENCH_NATIVE_READER_H
#define VISINDIGO_AGENT_BENCH_NATIVE_READER_H

#include <Agent/Model.h>

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QObject>
#include <QtCore/QUrl>
#include <QtNetwork/QNetworkAccessManager>
#include <QtNetwork/QNetworkReply>
#include <QtNetwork/QNetworkRequest>

class NativeReader : public QObject
{
    Q_OBJECT
public:
    using Api = Visindigo::Agent::Model::Api;

    NativeReader(int port, Api api) : m_port(port), m_api(api) {}

    void start()
    {
        const QString path = m_api == Api::Responses           ? QStringLiteral("/v1/responses")
                             : m_api == Api::AnthropicMessages ? QStringLiteral("/v1/messages")
                                                               : QStringLiteral("/v1/chat/completions");
        QNetworkRequest request(QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(m_port).arg(path)));
        request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
        if (m_api == Api::AnthropicMessages)
            request.setRawHeader("x-api-key", "k");
        else
            request.setRawHeader("Authorization", "Bearer k");
        request.setRawHeader("Accept", "text/event-stream");
        const QJsonArray messages{QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                                              {QStringLiteral("content"), QStringLiteral("stream please")}}};
        QJsonObject body{{QStringLiteral("model"), QStringLiteral("bench-model")}, {QStringLiteral("stream"), true}};
        body.insert(m_api == Api::Responses ? QStringLiteral("input") : QStringLiteral("messages"), messages);
        Q_EMIT streamBegan();
        m_reply = m_manager.post(request, QJsonDocument(body).toJson(QJsonDocument::Compact));
        connect(m_reply, &QNetworkReply::readyRead, this, &NativeReader::onReadyRead);
        connect(m_reply, &QNetworkReply::finished, this, &NativeReader::onFinished);
    }

Q_SIGNALS:
    void streamBegan();
    void streamDelta(const QString& delta);
    void streamEnded(const QString& content);
    void failed(const QString& message);

private:
    void onReadyRead()
    {
        m_buffer += m_reply->readAll();
        qsizetype from = 0;
        for (;;) {
            const qsizetype end = m_buffer.indexOf("\n\n", from);
            if (end < 0)
                break;
            handleEvent(QByteArrayView(m_buffer).sliced(from, end - from));
            from = end + 2;
        }
        m_buffer.remove(0, from);
    }

    void handleEvent(QByteArrayView event)
    {
        QByteArray data;
        for (QByteArrayView line : QByteArray::fromRawData(event.data(), event.size()).split('\n')) {
            if (line.startsWith("data:")) {
                QByteArrayView value = line.sliced(5);
                if (value.startsWith(' '))
                    value = value.sliced(1);
                if (!data.isEmpty())
                    data += '\n';
                data += value;
            }
        }
        if (data.isEmpty() || data == "[DONE]")
            return;
        const QJsonObject object = QJsonDocument::fromJson(data).object();
        QJsonValue content;
        if (m_api == Api::Responses) {
            if (object.value(QStringLiteral("type")).toString() == QLatin1String("response.output_text.delta"))
                content = object.value(QStringLiteral("delta"));
        } else if (m_api == Api::AnthropicMessages) {
            const QJsonObject delta = object.value(QStringLiteral("delta")).toObject();
            if (object.value(QStringLiteral("type")).toString() == QLatin1String("content_block_delta")
                && delta.value(QStringLiteral("type")).toString() == QLatin1String("text_delta"))
                content = delta.value(QStringLiteral("text"));
        } else {
            content = object.value(QStringLiteral("choices"))
                          .toArray()
                          .at(0)
                          .toObject()
                          .value(QStringLiteral("delta"))
                          .toObject()
                          .value(QStringLiteral("content"));
        }
        if (content.isString()) {
            const QString text = content.toString();
            m_content += text;
            Q_EMIT streamDelta(text);
        }
    }

    void onFinished()
    {
        if (m_reply->error() != QNetworkReply::NoError)
            Q_EMIT failed(m_reply->errorString());
        else
            Q_EMIT streamEnded(m_content);
        m_reply->deleteLater();
    }

    int m_port;
    Api m_api;
    QNetworkAccessManager m_manager;
    QNetworkReply* m_reply = nullptr;
    QByteArray m_buffer;
    QString m_content;
};

#endif
