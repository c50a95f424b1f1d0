// SPDX-License-Identifier: MIT
//
// Message, through the public C++ API only. Every sentence of seeds/Message.md is at
// least one assertion, in a test named after it; then SPEC §B.1 / §E.9 details and bad
// input. Sentences about the wire (reasoning never sent, Prompt sent as user, tool calls
// re-sent verbatim) are checked here as far as the value class shows them; the run tests
// check the request body itself.
#include <Agent/Dialog.h>
#include <Agent/Message.h>
#include <Utility/JsonConfig.h>

#include <QtCore/QJsonArray>
#include <QtCore/QJsonObject>
#include <QtCore/QMetaEnum>
#include <QtTest/QtTest>

using Visindigo::Agent::Message;
using Visindigo::Utility::JsonConfig;
using Role = Visindigo::Agent::Message::Role;

class TestMessage : public QObject
{
    Q_OBJECT

private slots:
    // ---- seeds/Message.md, sentence by sentence ----------------------------------

    // "头文件：#include <Agent/Dialog.h>"
    void messageIsAvailableThroughDialogHeader()
    {
        Visindigo::Agent::Message m; // compiles with <Agent/Dialog.h>
        QCOMPARE(m.getRole(), Role::User);
    }

    // "enum class Role { System, User, Assistant, Tool, Prompt }" with values 0..4
    void roleValuesAreSystem0User1Assistant2Tool3Prompt4()
    {
        QCOMPARE(int(Role::System), 0);
        QCOMPARE(int(Role::User), 1);
        QCOMPARE(int(Role::Assistant), 2);
        QCOMPARE(int(Role::Tool), 3);
        QCOMPARE(int(Role::Prompt), 4);
        const QMetaEnum e = QMetaEnum::fromType<Role>();
        QVERIFY(e.isValid());
        QCOMPARE(e.keyCount(), 5);
        QCOMPARE(QByteArray(e.valueToKey(int(Role::Assistant))), QByteArray("Assistant"));
    }

    // "Message 是纯值类型，可以自由拷贝与序列化。"
    void messageIsAPlainValueFreelyCopiedAndSerialised()
    {
        Message a(Role::Assistant, QStringLiteral("hello"));
        a.setName(QStringLiteral("n")).setReasoning(QStringLiteral("r"));
        Message b = a;
        b.setContent(QStringLiteral("changed")).setRole(Role::Tool);
        QCOMPARE(a.getContent(), QStringLiteral("hello"));
        QCOMPARE(a.getRole(), Role::Assistant);
        QCOMPARE(b.getName(), QStringLiteral("n"));
        Message c;
        QVERIFY(c.fromJson(a.toJson()));
        QCOMPARE(c.getContent(), a.getContent());
        QCOMPARE(c.getRole(), a.getRole());
        QCOMPARE(c.getName(), a.getName());
        QCOMPARE(c.getReasoning(), a.getReasoning());
        // assignment and self-assignment
        c = b;
        QCOMPARE(c.getContent(), QStringLiteral("changed"));
        Message& self = c;
        c = self;
        QCOMPARE(c.getContent(), QStringLiteral("changed"));
    }

    // "它同时承担两种用途：一是请求体里的 messages 数组元素，二是本地会话记录。"
    void messageServesAsRequestElementAndLocalRecord()
    {
        const Message m(Role::User, QStringLiteral("hi"));
        const JsonConfig j = m.toJson();
        QCOMPARE(j.getString(QStringLiteral("role")), QStringLiteral("user"));
        QCOMPARE(j.getString(QStringLiteral("content")), QStringLiteral("hi"));
    }

    // "唯一的差别是 getToolCalls()——它保存的是原始 JSON 数组文本，只在请求体重逐字回传，本地展示时不使用。"
    void toolCallsAreKeptAsRawJsonArrayTextVerbatim()
    {
        const QString raw = QStringLiteral(
            "[ {\"id\":\"Call_AbC\", \"type\":\"function\",\n \"function\":{\"name\":\"f\",\"arguments\":\"{\\\"x\\\": 1.50}\"}} ]");
        Message m(Role::Assistant, QString());
        m.setToolCalls(raw);
        QCOMPARE(m.getToolCalls(), raw); // byte for byte, whitespace and number form included
        const JsonConfig j = m.toJson();
        QVERIFY(j.isString(QStringLiteral("toolCalls")));
        QCOMPARE(j.getString(QStringLiteral("toolCalls")), raw);
        Message back;
        back.fromJson(j);
        QCOMPARE(back.getToolCalls(), raw);
    }

    // "System … 系统提示。通常由 Dialog::run() 自动生成，不需要手工添加。" (a System message can still be made)
    void systemRoleIsTheSystemPrompt()
    {
        const Message m(Role::System, QStringLiteral("be brief"));
        QCOMPARE(m.getRole(), Role::System);
        QCOMPARE(m.toJson().getString(QStringLiteral("role")), QStringLiteral("system"));
    }

    // "User 用户输入。"
    void userRoleIsUserInput()
    {
        QCOMPARE(Message(Role::User, QStringLiteral("x")).toJson().getString(QStringLiteral("role")), QStringLiteral("user"));
    }

    // "Assistant 模型输出。"
    void assistantRoleIsModelOutput()
    {
        QCOMPARE(Message(Role::Assistant, QStringLiteral("x")).toJson().getString(QStringLiteral("role")),
                 QStringLiteral("assistant"));
    }

    // "Tool 工具执行结果。必须同时设置 Message::setToolCallID()"
    void toolRoleCarriesToolCallId()
    {
        Message m(Role::Tool, QStringLiteral("{\"ok\":true}"));
        m.setToolCallID(QStringLiteral("call_1"));
        const JsonConfig j = m.toJson();
        QCOMPARE(j.getString(QStringLiteral("role")), QStringLiteral("tool"));
        QCOMPARE(j.getString(QStringLiteral("toolCallId")), QStringLiteral("call_1"));
    }

    // "Prompt 由 Prompt::render() 生成的模板消息。"
    void promptRoleIsARenderedTemplate()
    {
        const Message m(Role::Prompt, QStringLiteral("t"));
        QCOMPARE(m.getRole(), Role::Prompt);
    }

    // "Role::Prompt 只在本地区分…发往服务端时与 Role::User 同为 user 角色。"
    // Locally it stays distinct (saved as "prompt"); the wire form is checked by the run tests.
    void promptRoleIsOnlyALocalDistinctionSentAsUser()
    {
        const Message m(Role::Prompt, QStringLiteral("t"));
        QCOMPARE(m.toJson().getString(QStringLiteral("role")), QStringLiteral("prompt"));
        Message back;
        QVERIFY(back.fromJson(m.toJson()));
        QCOMPARE(back.getRole(), Role::Prompt);
        QVERIFY(back.getRole() != Role::User);
    }

    // "Message::Message() 构造一条空消息，角色默认为 Role::User。"
    void defaultConstructedMessageIsUser()
    {
        const Message m;
        QCOMPARE(m.getRole(), Role::User);
        QVERIFY(m.getContent().isEmpty());
        QVERIFY(m.getName().isEmpty());
        QVERIFY(m.getToolCallID().isEmpty());
        QVERIFY(m.getToolCalls().isEmpty());
        QVERIFY(m.getReasoning().isEmpty());
        QVERIFY(m.getImageURLs().isEmpty());
        QVERIFY(m.isEmpty());
    }

    // "Message(role, content) 以角色与内容构造消息。"
    void constructorTakesRoleAndContent()
    {
        const Message m(Role::Assistant, QStringLiteral("answer"));
        QCOMPARE(m.getRole(), Role::Assistant);
        QCOMPARE(m.getContent(), QStringLiteral("answer"));
    }

    // "~Message() [noexcept]"
    void destructorIsNoexcept()
    {
        QVERIFY(std::is_nothrow_destructible_v<Message>);
        QVERIFY(std::is_nothrow_move_constructible_v<Message>);
        QVERIFY(std::is_nothrow_move_assignable_v<Message>);
    }

    // "fromJson 从 JSON 对象恢复。"
    void fromJsonRestoresFromAJsonObject()
    {
        Message m;
        QVERIFY(m.fromJson(JsonConfig(QStringLiteral(
            "{\"role\":\"tool\",\"content\":\"c\",\"name\":\"n\",\"toolCallId\":\"id\",\"toolCalls\":\"[]\",\"reasoning\":\"r\"}"))));
        QCOMPARE(m.getRole(), Role::Tool);
        QCOMPARE(m.getContent(), QStringLiteral("c"));
        QCOMPARE(m.getName(), QStringLiteral("n"));
        QCOMPARE(m.getToolCallID(), QStringLiteral("id"));
        QCOMPARE(m.getToolCalls(), QStringLiteral("[]"));
        QCOMPARE(m.getReasoning(), QStringLiteral("r"));
    }

    // "无法识别的角色字符串会退回 Role::User，因为…比丢掉它造成的破坏更小。"
    void unknownRoleFallsBackToUserBecauseThatDoesLessHarm()
    {
        Message m(Role::Assistant, QString());
        QVERIFY(!m.fromJson(JsonConfig(QStringLiteral("{\"role\":\"wizard\",\"content\":\"keep me\"}"))));
        QCOMPARE(m.getRole(), Role::User);
        QCOMPARE(m.getContent(), QStringLiteral("keep me")); // not dropped
    }

    // "return 是否读到了可识别的角色。"
    void fromJsonReturnsWhetherTheRoleWasRecognised()
    {
        const char* known[] = {"system", "user", "assistant", "tool", "prompt"};
        const Role roles[] = {Role::System, Role::User, Role::Assistant, Role::Tool, Role::Prompt};
        for (int i = 0; i < 5; ++i) {
            Message m;
            QVERIFY(m.fromJson(JsonConfig(QStringLiteral("{\"role\":\"%1\"}").arg(QLatin1String(known[i])))));
            QCOMPARE(m.getRole(), roles[i]);
        }
        Message missing(Role::Tool, QString());
        QVERIFY(!missing.fromJson(JsonConfig(QStringLiteral("{\"content\":\"x\"}"))));
        QCOMPARE(missing.getRole(), Role::User);
    }

    // "getContent() 返回正文。"
    void getContentReturnsTheContent()
    {
        Message m;
        m.setContent(QStringLiteral("正文 ✓"));
        QCOMPARE(m.getContent(), QStringLiteral("正文 ✓"));
    }

    // "getName() 返回发送者名称。"
    void getNameReturnsTheSenderName()
    {
        Message m;
        m.setName(QStringLiteral("sender"));
        QCOMPARE(m.getName(), QStringLiteral("sender"));
    }

    // "getReasoning() 返回本条助手消息的思考内容；非推理模型或未记录时为空串。"
    void getReasoningIsEmptyWhenNotRecorded()
    {
        Message m(Role::Assistant, QStringLiteral("a"));
        QVERIFY(m.getReasoning().isEmpty());
        QVERIFY(!m.toJson().contains(QStringLiteral("reasoning")));
        m.setReasoning(QStringLiteral("because"));
        QCOMPARE(m.getReasoning(), QStringLiteral("because"));
    }

    // "getRole() 返回角色。"
    void getRoleReturnsTheRole()
    {
        Message m;
        m.setRole(Role::Tool);
        QCOMPARE(m.getRole(), Role::Tool);
    }

    // "getToolCallID() 返回本条消息对应的工具调用标识。"
    void getToolCallIdReturnsTheToolCallId()
    {
        Message m;
        m.setToolCallID(QStringLiteral("call_9"));
        QCOMPARE(m.getToolCallID(), QStringLiteral("call_9"));
    }

    // "getToolCalls() 返回助手消息请求的工具调用，形态为原始 JSON 数组文本。"
    void getToolCallsReturnsRawJsonArrayText()
    {
        Message m(Role::Assistant, QString());
        const QString raw = QStringLiteral("[{\"id\":\"a\"}]");
        m.setToolCalls(raw);
        QCOMPARE(m.getToolCalls(), raw);
    }

    // "isEmpty() 判断消息是否既没有正文也没有工具调用。"
    void isEmptyMeansNeitherContentNorToolCalls()
    {
        Message m;
        QVERIFY(m.isEmpty());
        m.setName(QStringLiteral("n")).setReasoning(QStringLiteral("r")).setToolCallID(QStringLiteral("i"));
        QVERIFY(m.isEmpty()); // name, reasoning, tool call id don't count
        m.setContent(QStringLiteral("x"));
        QVERIFY(!m.isEmpty());
        m.setContent(QString());
        QVERIFY(m.isEmpty());
    }

    // "一条只有工具调用的助手消息不算空"
    void toolCallOnlyAssistantMessageIsNotEmpty()
    {
        Message m(Role::Assistant, QString());
        m.setToolCalls(QStringLiteral("[{\"id\":\"c\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]"));
        QVERIFY(!m.isEmpty());
    }

    // "setContent 设置正文。"
    void setContentSetsTheContent()
    {
        Message m(Role::User, QStringLiteral("a"));
        QCOMPARE(&m.setContent(QStringLiteral("b")), &m);
        QCOMPARE(m.getContent(), QStringLiteral("b"));
    }

    // "setName 设置发送者名称。…模板消息可填模板名，工具结果可填工具名。"
    void setNameRecordsPromptOrToolName()
    {
        Message m(Role::Tool, QStringLiteral("{}"));
        QCOMPARE(&m.setName(QStringLiteral("get_weather")), &m);
        QCOMPARE(m.getName(), QStringLiteral("get_weather"));
        QCOMPARE(m.toJson().getString(QStringLiteral("name")), QStringLiteral("get_weather"));
    }

    // "setReasoning 设置本条助手消息的思考内容。…这段思考被单独存下来"
    void reasoningIsStoredSeparatelyFromContent()
    {
        Message m(Role::Assistant, QStringLiteral("42"));
        QCOMPARE(&m.setReasoning(QStringLiteral("6*7")), &m);
        QCOMPARE(m.getContent(), QStringLiteral("42"));
        QCOMPARE(m.getReasoning(), QStringLiteral("6*7"));
        QCOMPARE(m.toJson().getString(QStringLiteral("reasoning")), QStringLiteral("6*7"));
        QCOMPARE(m.toJson().getString(QStringLiteral("content")), QStringLiteral("42"));
    }

    // "它永远不会被发回服务端。" — the value class keeps it apart from content, and a
    // reasoning-only message is empty (it would not be sent as a said answer).
    void reasoningIsNeverSentBack()
    {
        Message m(Role::Assistant, QString());
        m.setReasoning(QStringLiteral("thinking"));
        QVERIFY(m.isEmpty());
        QVERIFY(m.getContent().isEmpty());
        QVERIFY(!m.toJson().getString(QStringLiteral("content")).contains(QStringLiteral("thinking")));
    }

    // "setRole 设置角色。"
    void setRoleSetsTheRole()
    {
        Message m;
        for (Role r : {Role::System, Role::Assistant, Role::Tool, Role::Prompt, Role::User}) {
            QCOMPARE(&m.setRole(r), &m);
            QCOMPARE(m.getRole(), r);
        }
    }

    // "setToolCallID 仅对 Role::Tool 有意义。id 必须与模型给出的调用标识完全一致，包括大小写。"
    void toolCallIdIsKeptExactlyIncludingCase()
    {
        Message m(Role::Tool, QString());
        QCOMPARE(&m.setToolCallID(QStringLiteral("Call_AbC-01")), &m);
        QCOMPARE(m.getToolCallID(), QStringLiteral("Call_AbC-01"));
        Message back;
        back.fromJson(m.toJson());
        QCOMPARE(back.getToolCallID(), QStringLiteral("Call_AbC-01"));
    }

    // "setToolCalls …这里刻意不收结构化数据：字段只要原样回传就不会出错"
    void setToolCallsTakesRawTextNotStructuredData()
    {
        Message m(Role::Assistant, QString());
        const QString raw = QStringLiteral("[{\"b\":1,\"a\":2}]"); // key order kept (no re-serialisation)
        QCOMPARE(&m.setToolCalls(raw), &m);
        QCOMPARE(m.getToolCalls(), raw);
    }

    // "Warning: 这段文本会被原样放进请求体。" — stored as is, even when it is not an array
    // (it is only parsed when the request is built).
    void toolCallsTextIsStoredAsIsEvenWhenNotAnArray()
    {
        Message m(Role::Assistant, QString());
        m.setToolCalls(QStringLiteral("not json"));
        QCOMPARE(m.getToolCalls(), QStringLiteral("not json"));
        QVERIFY(!m.isEmpty());
    }

    // "toJson 序列化为 JSON 对象，角色以字符串保存。"
    void toJsonStoresTheRoleAsAString()
    {
        const JsonConfig j = Message(Role::Assistant, QStringLiteral("x")).toJson();
        QVERIFY(j.isObject());
        QVERIFY(j.isString(QStringLiteral("role")));
        QCOMPARE(j.getString(QStringLiteral("role")), QStringLiteral("assistant"));
    }

    // ---- SPEC §B.1 / §E.9 details --------------------------------------------------

    void toJsonHasRoleAndContentAlwaysAndOtherKeysOnlyWhenNonEmpty()
    {
        const JsonConfig empty = Message().toJson();
        QCOMPARE(empty.keys(), (QStringList{QStringLiteral("content"), QStringLiteral("role")}));
        QCOMPARE(empty.getString(QStringLiteral("content")), QString());
        QVERIFY(empty.isString(QStringLiteral("content")));

        Message full(Role::Assistant, QStringLiteral("c"));
        full.setName(QStringLiteral("n")).setToolCallID(QStringLiteral("i"))
            .setToolCalls(QStringLiteral("[]")).setReasoning(QStringLiteral("r"));
        QStringList keys = full.toJson().keys();
        keys.sort();
        QCOMPARE(keys, (QStringList{QStringLiteral("content"), QStringLiteral("name"), QStringLiteral("reasoning"),
                                    QStringLiteral("role"), QStringLiteral("toolCallId"), QStringLiteral("toolCalls")}));
    }

    void fromJsonOverwritesEveryFieldMissingMeansEmpty()
    {
        Message m(Role::Assistant, QStringLiteral("old"));
        m.setName(QStringLiteral("n")).setToolCallID(QStringLiteral("i")).setToolCalls(QStringLiteral("[]"))
            .setReasoning(QStringLiteral("r")).addImageURL(QStringLiteral("https://x/y.png"));
        QVERIFY(m.fromJson(JsonConfig(QStringLiteral("{\"role\":\"system\"}"))));
        QCOMPARE(m.getRole(), Role::System);
        QVERIFY(m.getContent().isEmpty());
        QVERIFY(m.getName().isEmpty());
        QVERIFY(m.getToolCallID().isEmpty());
        QVERIFY(m.getToolCalls().isEmpty());
        QVERIFY(m.getReasoning().isEmpty());
        QVERIFY(m.getImageURLs().isEmpty());
    }

    void rolesAreExactAndCaseSensitive()
    {
        for (const char* r : {"User", "ASSISTANT", " user", "user ", "Prompt", ""}) {
            Message m(Role::Tool, QString());
            QVERIFY2(!m.fromJson(JsonConfig(QStringLiteral("{\"role\":\"%1\"}").arg(QLatin1String(r)))), r);
            QCOMPARE(m.getRole(), Role::User);
        }
    }

    void imagesAreSavedAsUrlAndDetailObjects()
    {
        Message m(Role::User, QStringLiteral("look"));
        QCOMPARE(&m.addImageURL(QStringLiteral("https://example.com/a.png"), QStringLiteral("high")), &m);
        m.addImageURL(QStringLiteral("data:image/png;base64,AAAA"));
        QCOMPARE(m.getImageURLs(), (QStringList{QStringLiteral("https://example.com/a.png"),
                                                QStringLiteral("data:image/png;base64,AAAA")}));
        const JsonConfig j = m.toJson();
        QVERIFY(j.isArray(QStringLiteral("images")));
        QCOMPARE(j.getString(QStringLiteral("images.0.url")), QStringLiteral("https://example.com/a.png"));
        QCOMPARE(j.getString(QStringLiteral("images.0.detail")), QStringLiteral("high"));
        QCOMPARE(j.getString(QStringLiteral("images.1.url")), QStringLiteral("data:image/png;base64,AAAA"));
        QVERIFY(!Message().toJson().contains(QStringLiteral("images")));

        Message back;
        QVERIFY(back.fromJson(j));
        QCOMPARE(back.getImageURLs(), m.getImageURLs());
        QCOMPARE(back.toJson().getString(QStringLiteral("images.0.detail")), QStringLiteral("high"));
    }

    void copiesAreIndependentIncludingImages()
    {
        Message a;
        a.addImageURL(QStringLiteral("https://x/1.png"));
        Message b(a);
        b.addImageURL(QStringLiteral("https://x/2.png"));
        QCOMPARE(a.getImageURLs().size(), 1);
        QCOMPARE(b.getImageURLs().size(), 2);
    }

    void movedFromMessageIsUsableAndMoveKeepsTheValue()
    {
        Message a(Role::Assistant, QStringLiteral("moved"));
        Message b(std::move(a));
        QCOMPARE(b.getContent(), QStringLiteral("moved"));
        QCOMPARE(b.getRole(), Role::Assistant);
        // the moved-from object must not crash, and can be reused
        QVERIFY(a.isEmpty());
        QVERIFY(a.getContent().isEmpty());
        (void)a.toJson();
        (void)a.getImageURLs();
        a.setContent(QStringLiteral("again"));
        QCOMPARE(a.getContent(), QStringLiteral("again"));
        Message c;
        c = std::move(b);
        QCOMPARE(c.getContent(), QStringLiteral("moved"));
        Message d(std::move(c));
        Message copyOfMoved(c); // copying a moved-from object works too
        QVERIFY(copyOfMoved.isEmpty());
        copyOfMoved = c;
        QVERIFY(c.fromJson(d.toJson()) || true);
    }

    void worksAsQVariantAndInQList()
    {
        QVariant v = QVariant::fromValue(Message(Role::Tool, QStringLiteral("t")));
        QCOMPARE(v.value<Message>().getContent(), QStringLiteral("t"));
        QList<Message> list{Message(Role::User, QStringLiteral("1")), Message(Role::Assistant, QStringLiteral("2"))};
        list.append(list.first());
        QCOMPARE(list.last().getContent(), QStringLiteral("1"));
    }

    // ---- bad input -----------------------------------------------------------------

    void fromJsonOfAnArrayRootChangesNothing()
    {
        Message m(Role::Assistant, QStringLiteral("keep"));
        QVERIFY(!m.fromJson(JsonConfig(QStringLiteral("[{\"role\":\"user\",\"content\":\"x\"}]"))));
        QCOMPARE(m.getRole(), Role::Assistant);
        QCOMPARE(m.getContent(), QStringLiteral("keep"));
    }

    void fromJsonWithWronglyTypedFieldsDoesNotCrash()
    {
        Message m;
        const bool ok = m.fromJson(JsonConfig(QStringLiteral(
            "{\"role\":7,\"content\":12,\"name\":[1],\"toolCallId\":{},\"toolCalls\":[1,2],\"reasoning\":null,\"images\":\"x\"}")));
        QVERIFY(!ok);
        QCOMPARE(m.getRole(), Role::User);
        Message n;
        n.fromJson(JsonConfig(QStringLiteral("{\"role\":\"user\",\"images\":[1,\"a\",{\"url\":5},{\"detail\":\"low\"}]}")));
        (void)n.getImageURLs();
        (void)n.toJson();
        Message e;
        QVERIFY(!e.fromJson(JsonConfig()));
        QCOMPARE(e.getRole(), Role::User);
    }

    // ---- the Qt-side fields and their conversions --------------------------------

    void toJsonFromJsonRoundTripsEveryFieldAndImages()
    {
        Message m(Role::Assistant, QStringLiteral("c"));
        m.setName(QStringLiteral("n")).setToolCallID(QStringLiteral("id")).setToolCalls(QStringLiteral("[]"))
            .setReasoning(QStringLiteral("r")).addImageURL(QStringLiteral("https://x/1.png"), QStringLiteral("high"))
            .addImageURL(QStringLiteral("https://x/2.png"));
        const JsonConfig j = m.toJson();
        const QJsonArray images = j.root().toObject().value(QStringLiteral("images")).toArray();
        QCOMPARE(images.size(), 2);
        QCOMPARE(images.at(0).toObject().value(QStringLiteral("url")).toString(), QStringLiteral("https://x/1.png"));
        QCOMPARE(images.at(0).toObject().value(QStringLiteral("detail")).toString(), QStringLiteral("high"));
        Message back(Role::System, QStringLiteral("overwritten"));
        back.addImageURL(QStringLiteral("https://old"));
        QVERIFY(back.fromJson(j));
        QCOMPARE(back.getRole(), Role::Assistant);
        QCOMPARE(back.getContent(), QStringLiteral("c"));
        QCOMPARE(back.getName(), QStringLiteral("n"));
        QCOMPARE(back.getToolCallID(), QStringLiteral("id"));
        QCOMPARE(back.getToolCalls(), QStringLiteral("[]"));
        QCOMPARE(back.getReasoning(), QStringLiteral("r"));
        QCOMPARE(back.getImageURLs(), (QStringList{QStringLiteral("https://x/1.png"), QStringLiteral("https://x/2.png")}));
        QCOMPARE(back.toJson().toString(QJsonDocument::Compact), j.toString(QJsonDocument::Compact));
        // a copy taken before a setter keeps the old fields (copy-on-write)
        const Message before = back;
        back.setContent(QStringLiteral("changed")).addImageURL(QStringLiteral("https://x/3.png"));
        QCOMPARE(before.getContent(), QStringLiteral("c"));
        QCOMPARE(before.getImageURLs().size(), 2);
        QCOMPARE(back.getImageURLs().size(), 3);
    }

    void movedFromMessagesReadAsDefaultAndRecover()
    {
        Message a(Role::Tool, QStringLiteral("a"));
        a.setName(QStringLiteral("n")).addImageURL(QStringLiteral("https://x"));
        Message b(std::move(a));
        QCOMPARE(b.getContent(), QStringLiteral("a"));
        // NOLINTBEGIN(bugprone-use-after-move): the documented moved-from state
        QCOMPARE(a.getRole(), Role::User);
        QVERIFY(a.getContent().isEmpty());
        QVERIFY(a.getName().isEmpty());
        QVERIFY(a.getImageURLs().isEmpty());
        QVERIFY(a.isEmpty());
        QCOMPARE(a.toJson().toString(QJsonDocument::Compact), Message().toJson().toString(QJsonDocument::Compact));
        a.setReasoning(QStringLiteral("r"));
        QCOMPARE(a.getReasoning(), QStringLiteral("r"));
        QCOMPARE(a.getRole(), Role::User);
        Message c;
        c = std::move(b);
        QCOMPARE(c.getName(), QStringLiteral("n"));
        Message d(std::move(c));
        QVERIFY(c.fromJson(d.toJson()));
        QCOMPARE(c.getImageURLs(), QStringList{QStringLiteral("https://x")});
        Message e(std::move(d));
        d = e; // copy-assign into a moved-from object
        QCOMPARE(d.getContent(), QStringLiteral("a"));
        // NOLINTEND(bugprone-use-after-move)
    }

    void isEmptyIsContentAndToolCallsOnly()
    {
        Message m;
        m.setName(QStringLiteral("n")).setReasoning(QStringLiteral("r")).addImageURL(QStringLiteral("https://x"));
        QVERIFY(m.isEmpty());
        m.setToolCalls(QStringLiteral("[]"));
        QVERIFY(!m.isEmpty());
        m.setToolCalls(QString()).setContent(QStringLiteral("c"));
        QVERIFY(!m.isEmpty());
    }

    void loneSurrogatesAndEmptyStringsDoNotCrash()
    {
        Message m(Role::User, QString(QChar(0xD800)));
        QCOMPARE(m.getContent(), QString(QChar(0xFFFD))); // replaced by U+FFFD
        Message pair(Role::User, QString(QChar(0xD83D)) + QChar(0xDE00)); // a valid pair stays
        QCOMPARE(pair.getContent(), QString(QChar(0xD83D)) + QChar(0xDE00));
        m.setName(QString(QChar(0xDC00))).setToolCallID(QString(QChar(0xD800))).setToolCalls(QString(QChar(0xD800)))
            .setReasoning(QString(QChar(0xDFFF))).addImageURL(QString(QChar(0xD800)), QString(QChar(0xD800)));
        Message back;
        back.fromJson(m.toJson());
        QCOMPARE(back.getContent(), m.getContent());
        QCOMPARE(back.getName(), m.getName());
        m.setContent(QString()).setContent(QStringLiteral("")).setName(QString());
        QVERIFY(m.getContent().isEmpty());
        // a JsonConfig built in C++ with lone surrogates (and an escaped backslash before a
        // "u") still reads
        JsonConfig hand;
        hand.setString(QStringLiteral("role"), QStringLiteral("assistant"));
        hand.setString(QStringLiteral("content"), QStringLiteral("\\ud800 ") + QChar(0xD800) + QChar(0xDBFF) + QChar(0xDC00));
        hand.setString(QStringLiteral("name"), QString(QChar(0xDC00)));
        Message fromHand;
        QVERIFY(fromHand.fromJson(hand));
        QCOMPARE(fromHand.getContent(), QStringLiteral("\\ud800 ") + QChar(0xFFFD) + QChar(0xDBFF) + QChar(0xDC00));
        QCOMPARE(fromHand.getName(), QString(QChar(0xFFFD)));
        QString withNul = QStringLiteral("a");
        withNul.append(QChar(0)).append(QLatin1Char('b'));
        m.setContent(withNul);
        QCOMPARE(m.getContent(), withNul);
    }
};

QTEST_APPLESS_MAIN(TestMessage)
#include "tst_message.moc"
