// SPDX-License-Identifier: MIT
//
// The Qt-native baseline of the stream benchmarks: how a Qt application reads a model's stream
// without this library — QNetworkAccessManager, SSE decoded on readyRead, every event parsed
// with QJsonDocument, one Qt signal per delta — for Chat Completions, Responses, Anthropic
// Messages and Gemini.
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

#include <cstring>

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
                             : m_api == Api::Gemini            ? QStringLiteral("/v1/models/bench-model:streamGenerateContent?alt=sse")
                                                               : QStringLiteral("/v1/chat/completions");
        QNetworkRequest request(QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(m_port).arg(path)));
        request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
        if (m_api == Api::AnthropicMessages)
            request.setRawHeader("x-api-key", "k");
        else if (m_api == Api::Gemini)
            request.setRawHeader("x-goog-api-key", "k");
        else
            request.setRawHeader("Authorization", "Bearer k");
        request.setRawHeader("Accept", "text/event-stream");
        QJsonObject body;
        if (m_api == Api::Gemini) {
            const QJsonArray parts{QJsonObject{{QStringLiteral("text"), QStringLiteral("stream please")}}};
            body.insert(QStringLiteral("contents"),
                        QJsonArray{QJsonObject{{QStringLiteral("role"), QStringLiteral("user")}, {QStringLiteral("parts"), parts}}});
        } else {
            const QJsonArray messages{QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                                                  {QStringLiteral("content"), QStringLiteral("stream please")}}};
            body = QJsonObject{{QStringLiteral("model"), QStringLiteral("bench-model")}, {QStringLiteral("stream"), true}};
            body.insert(m_api == Api::Responses ? QStringLiteral("input") : QStringLiteral("messages"), messages);
        }
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
    // As lean as Qt allows (issue 34): the events are found in the reply's bytes in place,
    // and a one-line `data` payload (every event of these streams) is handed to QJsonDocument
    // without a copy; only a payload of several lines is joined.
    void onReadyRead()
    {
        m_buffer += m_reply->readAll();
        qsizetype from = 0;
        for (;;) {
            const qsizetype end = m_buffer.indexOf("\n\n", from);
            if (end < 0)
                break;
            handleEvent(m_buffer.constData() + from, end - from);
            from = end + 2;
        }
        m_buffer.remove(0, from);
    }

    void handleEvent(const char* event, qsizetype size)
    {
        const char* data = nullptr;
        qsizetype length = 0;
        QByteArray joined;
        for (qsizetype at = 0; at < size;) {
            const char* line = event + at;
            const char* newline = static_cast<const char*>(memchr(line, '\n', size_t(size - at)));
            const qsizetype lineLength = newline ? newline - line : size - at;
            at += lineLength + 1;
            if (lineLength < 5 || memcmp(line, "data:", 5) != 0)
                continue;
            qsizetype skip = lineLength > 5 && line[5] == ' ' ? 6 : 5;
            if (data) { // a second data line: join them
                if (joined.isEmpty())
                    joined = QByteArray(data, length);
                joined += '\n';
                joined += QByteArrayView(line + skip, lineLength - skip);
            } else {
                data = line + skip;
                length = lineLength - skip;
            }
        }
        if (!data)
            return;
        const QByteArray payload = joined.isEmpty() ? QByteArray::fromRawData(data, length) : joined;
        if (payload == "[DONE]")
            return;
        const QJsonObject object = QJsonDocument::fromJson(payload).object();
        if (m_api == Api::Gemini) {
            const QJsonArray parts = object.value(QLatin1String("candidates"))
                                         .toArray()
                                         .at(0)
                                         .toObject()
                                         .value(QLatin1String("content"))
                                         .toObject()
                                         .value(QLatin1String("parts"))
                                         .toArray();
            for (const QJsonValue& part : parts)
                deliver(part.toObject().value(QLatin1String("text")));
            return;
        }
        QJsonValue content;
        if (m_api == Api::Responses) {
            if (object.value(QLatin1String("type")).toString() == QLatin1String("response.output_text.delta"))
                content = object.value(QLatin1String("delta"));
        } else if (m_api == Api::AnthropicMessages) {
            const QJsonObject delta = object.value(QLatin1String("delta")).toObject();
            if (object.value(QLatin1String("type")).toString() == QLatin1String("content_block_delta")) {
                const QString type = delta.value(QLatin1String("type")).toString();
                if (type == QLatin1String("text_delta"))
                    content = delta.value(QLatin1String("text"));
                else if (type == QLatin1String("thinking_delta")) // extended thinking
                    content = delta.value(QLatin1String("thinking"));
            }
        } else {
            const QJsonObject delta = object.value(QLatin1String("choices"))
                                          .toArray()
                                          .at(0)
                                          .toObject()
                                          .value(QLatin1String("delta"))
                                          .toObject();
            content = delta.value(QLatin1String("content"));
            if (!content.isString()) // a piece of reasoning (DeepSeek's reasoner)
                content = delta.value(QLatin1String("reasoning_content"));
        }
        deliver(content);
    }

    void deliver(const QJsonValue& content)
    {
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
