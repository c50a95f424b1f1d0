// SPDX-License-Identifier: MIT
//
// The APIs beyond Chat Completions through the C++ API (SPEC §H.2): Model::Api and its JSON,
// Message::thinkingBlocks, Dialog::setResponseSchema, and runs against the scripted server
// speaking OpenAI Responses and Anthropic Messages — signals, their order and thread, a tool
// round with the signed thinking sent back, and a provider that falls back from Anthropic to
// Chat Completions. The bodies are validated with the SDKs' types (test sdk_request_bodies).
#include <Agent/Center.h>
#include <Agent/Dialog.h>
#include <Agent/Function.h>

#include "Registrations.h"
#include "ScriptedServer.h"
#include "SignalRecorder.h"

#include <QtTest/QtTest>

using namespace Visindigo::Agent;
using namespace ScriptedSteps;
using Visindigo::Utility::JsonConfig;

namespace {

// An event named after its data's "type", as these APIs send them.
QJsonObject typed(const QJsonObject& data)
{
    return QJsonObject{{"$event", QJsonObject{{"name", data.value("type")}, {"data", data}}}};
}

QJsonObject anthropicStart()
{
    return typed({{"type", "message_start"},
                  {"message", QJsonObject{{"id", "msg"}, {"type", "message"}, {"role", "assistant"}, {"content", QJsonArray{}},
                                          {"model", "claude"}, {"usage", QJsonObject{{"input_tokens", 9}, {"output_tokens", 1}}}}}});
}

QJsonObject blockDelta(int index, const QJsonObject& delta)
{
    return typed({{"type", "content_block_delta"}, {"index", index}, {"delta", delta}});
}

QJsonObject anthropicText(const QString& text)
{
    return sse({anthropicStart(),
                typed({{"type", "content_block_start"}, {"index", 0}, {"content_block", QJsonObject{{"type", "text"}, {"text", ""}}}}),
                blockDelta(0, {{"type", "text_delta"}, {"text", text}}),
                typed({{"type", "content_block_stop"}, {"index", 0}}),
                typed({{"type", "message_delta"}, {"delta", QJsonObject{{"stop_reason", "end_turn"}}}, {"usage", QJsonObject{{"output_tokens", 4}}}}),
                typed({{"type", "message_stop"}})});
}

QJsonObject anthropicThinkingCall()
{
    return sse({anthropicStart(),
                typed({{"type", "content_block_start"}, {"index", 0}, {"content_block", QJsonObject{{"type", "thinking"}, {"thinking", ""}}}}),
                blockDelta(0, {{"type", "thinking_delta"}, {"thinking", "Time first."}}),
                blockDelta(0, {{"type", "signature_delta"}, {"signature", "c2lnbmVk"}}),
                typed({{"type", "content_block_stop"}, {"index", 0}}),
                typed({{"type", "content_block_start"}, {"index", 1},
                       {"content_block", QJsonObject{{"type", "tool_use"}, {"id", "toolu_9"}, {"name", "get_time"}, {"input", QJsonObject{}}}}}),
                blockDelta(1, {{"type", "input_json_delta"}, {"partial_json", "{}"}}),
                typed({{"type", "content_block_stop"}, {"index", 1}}),
                typed({{"type", "message_delta"}, {"delta", QJsonObject{{"stop_reason", "tool_use"}}}, {"usage", QJsonObject{{"output_tokens", 20}}}}),
                typed({{"type", "message_stop"}})});
}

QJsonObject responsesText(const QString& text)
{
    return sse({typed({{"type", "response.created"}, {"response", QJsonObject{{"status", "in_progress"}}}}),
                typed({{"type", "response.reasoning_summary_text.delta"}, {"output_index", 0}, {"summary_index", 0}, {"delta", "Hmm"}}),
                typed({{"type", "response.output_text.delta"}, {"output_index", 1}, {"content_index", 0}, {"delta", text}}),
                typed({{"type", "response.completed"},
                       {"response", QJsonObject{{"status", "completed"}, {"usage", QJsonObject{{"total_tokens", 3}}}}}})});
}

// One Gemini stream chunk (an unnamed data line) with the first candidate's parts.
QJsonObject geminiChunk(const QJsonArray& parts, const QString& finishReason = QString())
{
    QJsonObject candidate{{"content", QJsonObject{{"role", "model"}, {"parts", parts}}}, {"index", 0}};
    if (!finishReason.isEmpty())
        candidate.insert("finishReason", finishReason);
    QJsonObject chunk{{"candidates", QJsonArray{candidate}}, {"responseId", "g1"}};
    if (!finishReason.isEmpty())
        chunk.insert("usageMetadata", QJsonObject{{"promptTokenCount", 20}, {"candidatesTokenCount", 3}, {"thoughtsTokenCount", 7}});
    return chunk;
}

class Clock : public Function
{
public:
    QString getId() const override { return QStringLiteral("get_time"); }
    QString getName() const override { return QStringLiteral("Clock"); }
    QString getDescription() const override { return QStringLiteral("Tells the time"); }
    JsonConfig getParameterSchema() const override { return JsonConfig::fromJson(QStringLiteral(R"({"type":"object"})")); }
    JsonConfig invoke(const JsonConfig&) override
    {
        JsonConfig result;
        result.setString(QStringLiteral("time"), QStringLiteral("noon"));
        return result;
    }
};

} // namespace

class TestApis : public QObject
{
    Q_OBJECT

    ScriptedServer server;
    Registrations registered;

    QString addModel(Model::Api api, const QString& name)
    {
        Model model;
        model.setName(name).setUrl(server.url(QStringLiteral("/v1"))).setToken(QStringLiteral("secret-token")).setApi(api);
        return registered.addModel(model);
    }

    Dialog* newDialog(QObject* owner, const QStringList& models)
    {
        Dialog* dialog = registered.newDialog(owner, models);
        dialog->appendMessage(Message::Role::User, QStringLiteral("What time is it?"));
        return dialog;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(server.start(&error), qPrintable(error));
    }

    void cleanupTestCase() { server.stop(); }

    void cleanup()
    {
        registered.clear();
    }

    void valueClassesAndJson()
    {
        Model model;
        QCOMPARE(model.getApi(), Model::Api::ChatCompletions);
        QVERIFY(!model.toJson().contains(QStringLiteral("api")));
        model.setApi(Model::Api::AnthropicMessages);
        QCOMPARE(model.toJson().getString(QStringLiteral("api")), QStringLiteral("anthropicMessages"));
        Model read;
        read.fromJson(JsonConfig::fromJson(QStringLiteral(R"({"api":"RESPONSES"})")));
        QCOMPARE(read.getApi(), Model::Api::Responses);
        QCOMPARE(QMetaEnum::fromType<Model::Api>().valueToKey(int(Model::Api::Responses)), "Responses");
        QVERIFY(!model.toJson().contains(QStringLiteral("apiVersion")) && !model.toJson().contains(QStringLiteral("promptCaching")));
        model.setApiVersion(QStringLiteral("2023-06-01")).setPromptCaching(true);
        QCOMPARE(model.toJson().getString(QStringLiteral("apiVersion")), QStringLiteral("2023-06-01"));
        QCOMPARE(model.toJson().getBool(QStringLiteral("promptCaching")), true);
        read.fromJson(model.toJson());
        QCOMPARE(read.getApiVersion(), QStringLiteral("2023-06-01"));
        QVERIFY(read.getPromptCaching());

        Message message(Message::Role::Assistant, QStringLiteral("x"));
        QVERIFY(!message.toJson().contains(QStringLiteral("thinkingBlocks")));
        const QString blocks = QStringLiteral(R"([{"type":"thinking","thinking":"t","signature":"s"}])");
        message.setThinkingBlocks(blocks);
        Message back;
        back.fromJson(message.toJson());
        QCOMPARE(back.getThinkingBlocks(), blocks);

        Dialog dialog;
        QVERIFY(dialog.getResponseSchema().isEmpty(QString()));
        dialog.setResponseSchema(QStringLiteral("city"), JsonConfig::fromJson(QStringLiteral(R"({"type":"object"})")));
        QCOMPARE(dialog.getResponseSchemaName(), QStringLiteral("city"));
        QCOMPARE(dialog.getResponseSchema().getString(QStringLiteral("type")), QStringLiteral("object"));
        QCOMPARE(dialog.toJson().getString(QStringLiteral("responseSchema.name")), QStringLiteral("city"));
        dialog.setResponseSchema(QStringLiteral("city"), JsonConfig());
        QVERIFY(!dialog.toJson().contains(QStringLiteral("responseSchema")));
    }

    void responsesStream()
    {
        QVERIFY(server.setScript({responsesText(QStringLiteral("Noon."))}));
        QObject owner;
        Dialog* dialog = newDialog(&owner, {addModel(Model::Api::Responses, QStringLiteral("gpt-5"))});
        SignalRecorder rec(dialog);
        QList<JsonConfig> usage;
        connect(dialog, &Dialog::usageUpdated, this, [&usage](const JsonConfig& u) { usage << u; });
        dialog->run();
        QTRY_COMPARE_WITH_TIMEOUT(rec.finished, 1, 10000);
        QCOMPARE(rec.log, (QStringList{QStringLiteral("began"), QStringLiteral("reasoning:Hmm"), QStringLiteral("delta:Noon."),
                                       QStringLiteral("appended:1"), QStringLiteral("ended:Noon."), QStringLiteral("runFinished")}));
        QVERIFY(!rec.wrongThread);
        QCOMPARE(dialog->getLastUsage().getInt(QStringLiteral("total_tokens")), 3);
        // One normalised usage per round, the same object getLastUsage() then returns.
        QCOMPARE(usage.count(), 1);
        const JsonConfig& reported = usage.at(0);
        QCOMPARE(reported.toString(QJsonDocument::Compact), dialog->getLastUsage().toString(QJsonDocument::Compact));
        QCOMPARE(reported.getInt(QStringLiteral("raw.total_tokens")), 3);
        QVERIFY(reported.contains(QStringLiteral("inputTokens")) && reported.contains(QStringLiteral("reasoningTokens")));
        const QJsonObject request = server.requests().at(0).toObject();
        QCOMPARE(request.value("path").toString(), QStringLiteral("/v1/responses"));
        QCOMPARE(request.value("body_json").toObject().value("store").toBool(true), false);
    }

    void anthropicToolRoundSendsTheSignedThinkingBack()
    {
        QVERIFY(server.setScript({anthropicThinkingCall(), anthropicText(QStringLiteral("It is noon."))}));
        Center::getInstance()->addFunction(new Clock);
        QObject owner;
        Dialog* dialog = newDialog(&owner, {addModel(Model::Api::AnthropicMessages, QStringLiteral("claude"))});
        SignalRecorder rec(dialog);
        dialog->run();
        QTRY_COMPARE_WITH_TIMEOUT(rec.finished, 1, 10000);
        QCOMPARE(rec.log, (QStringList{QStringLiteral("began"), QStringLiteral("reasoning:Time first."), QStringLiteral("appended:1"),
                                       QStringLiteral("ended:"), QStringLiteral("toolStarted:toolu_9:get_time"),
                                       QStringLiteral(R"(toolFinished:toolu_9:{"time":"noon"})"), QStringLiteral("appended:2"),
                                       QStringLiteral("began"), QStringLiteral("delta:It is noon."), QStringLiteral("appended:3"),
                                       QStringLiteral("ended:It is noon."), QStringLiteral("runFinished")}));
        QVERIFY(!rec.wrongThread);
        const Message call = dialog->getMessages().at(1);
        QCOMPARE(call.getReasoning(), QStringLiteral("Time first."));
        QCOMPARE(QJsonDocument::fromJson(call.getThinkingBlocks().toUtf8()).array().at(0).toObject().value("signature").toString(),
                 QStringLiteral("c2lnbmVk"));
        const QJsonArray requests = server.requests();
        const QJsonObject headers = requests.at(0).toObject().value("headers").toObject();
        QCOMPARE(headers.value("authorization").toString(), QStringLiteral("Bearer secret-token"));
        QCOMPARE(headers.value("anthropic-version").toString(), QStringLiteral("2026-10-21"));
        QVERIFY(!headers.contains("x-api-key"));
        const QJsonArray sent = requests.at(1).toObject().value("body_json").toObject().value("messages").toArray();
        QCOMPARE(sent.size(), 3);
        const QJsonArray assistant = sent.at(1).toObject().value("content").toArray();
        QCOMPARE(assistant.at(0).toObject(), (QJsonObject{{"type", "thinking"}, {"thinking", "Time first."}, {"signature", "c2lnbmVk"}}));
        QCOMPARE(assistant.at(1).toObject().value("type").toString(), QStringLiteral("tool_use"));
        QCOMPARE(sent.at(2).toObject().value("content").toArray().at(0).toObject().value("tool_use_id").toString(), QStringLiteral("toolu_9"));
    }

    void geminiToolRoundSendsTheSignatureBack()
    {
        const QJsonObject signedCall{{"functionCall", QJsonObject{{"name", "get_time"}, {"args", QJsonObject{}}}}, {"thoughtSignature", "c2lnbmVk"}};
        QVERIFY(server.setScript({sse({geminiChunk({QJsonObject{{"text", "Time first."}, {"thought", true}}}), geminiChunk({signedCall}, QStringLiteral("STOP"))}),
                                  sse({geminiChunk({QJsonObject{{"text", "It is noon."}}}, QStringLiteral("STOP"))})}));
        Center::getInstance()->addFunction(new Clock);
        QObject owner;
        Dialog* dialog = newDialog(&owner, {addModel(Model::Api::Gemini, QStringLiteral("gemini-3-pro"))});
        SignalRecorder rec(dialog);
        QList<JsonConfig> usage;
        connect(dialog, &Dialog::usageUpdated, this, [&usage](const JsonConfig& u) { usage << u; });
        dialog->run();
        QTRY_COMPARE_WITH_TIMEOUT(rec.finished, 1, 10000);
        QCOMPARE(rec.log, (QStringList{QStringLiteral("began"), QStringLiteral("reasoning:Time first."), QStringLiteral("appended:1"),
                                       QStringLiteral("ended:"), QStringLiteral("toolStarted:gemini-call:g1:0:get_time"),
                                       QStringLiteral(R"(toolFinished:gemini-call:g1:0:{"time":"noon"})"), QStringLiteral("appended:2"),
                                       QStringLiteral("began"), QStringLiteral("delta:It is noon."), QStringLiteral("appended:3"),
                                       QStringLiteral("ended:It is noon."), QStringLiteral("runFinished")}));
        QVERIFY(!rec.wrongThread);
        QCOMPARE(usage.size(), 2);
        QCOMPARE(usage.at(0).getInt(QStringLiteral("outputTokens")), 10); // candidates + thoughts
        const QJsonArray requests = server.requests();
        const QJsonObject first = requests.at(0).toObject();
        QCOMPARE(first.value("path").toString(), QStringLiteral("/v1/models/gemini-3-pro:streamGenerateContent?alt=sse"));
        QCOMPARE(first.value("headers").toObject().value("x-goog-api-key").toString(), QStringLiteral("secret-token"));
        const QJsonArray contents = requests.at(1).toObject().value("body_json").toObject().value("contents").toArray();
        QCOMPARE(contents.size(), 3);
        QCOMPARE(contents.at(1).toObject().value("parts").toArray().at(0).toObject(), signedCall);
        QCOMPARE(contents.at(2).toObject().value("parts").toArray().at(0).toObject().value("functionResponse").toObject().value("name").toString(),
                 QStringLiteral("get_time"));
        QVERIFY(dialog->getMessages().at(1).getThinkingBlocks().contains(QStringLiteral("c2lnbmVk")));
    }

    void fallbackFromAnthropicToChatCompletions()
    {
        const QJsonObject overloaded = typed({{"type", "error"}, {"error", QJsonObject{{"type", "overloaded_error"}, {"message", "Overloaded"}}}});
        QVERIFY(server.setScript({sse({overloaded}), answer({QStringLiteral("local answer")})}));
        const QString claude = addModel(Model::Api::AnthropicMessages, QStringLiteral("claude"));
        const QString local = addModel(Model::Api::ChatCompletions, QStringLiteral("llama"));
        QObject owner;
        Dialog* dialog = newDialog(&owner, {claude, local});
        SignalRecorder rec(dialog);
        dialog->run();
        QTRY_COMPARE_WITH_TIMEOUT(rec.finished, 1, 10000);
        QVERIFY(rec.log.contains(QStringLiteral("fallback:%1>%2").arg(claude, local)));
        QCOMPARE(dialog->getLastMessage().getContent(), QStringLiteral("local answer"));
        const QJsonArray requests = server.requests();
        QCOMPARE(requests.at(0).toObject().value("path").toString(), QStringLiteral("/v1/messages"));
        QCOMPARE(requests.at(1).toObject().value("path").toString(), QStringLiteral("/v1/chat/completions"));
    }
};

QTEST_GUILESS_MAIN(TestApis)
#include "tst_apis.moc"
