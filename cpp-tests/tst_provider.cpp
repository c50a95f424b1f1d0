// SPDX-License-Identifier: MIT
//
// Provider, through the public C++ API. Every sentence of seeds/Provider.md is at least
// one assertion, in a test named after it; then SPEC §B.3 details and bad input.
//
// Models are registered in the global Center through the C ABI (vi_center_add_model on
// vi_center_global(), the Center Provider::pickFirst/pickNext consult), reading each C++
// Model's own toJson() — so this test does not depend on Center.h. Every model has a
// fresh UUID, so tests don't see each other's models.
#include <Agent/Model.h>
#include <Agent/Provider.h>
#include <Utility/JsonConfig.h>

#include <visindigo_agent.h>

#include <QtCore/QJsonArray>
#include <QtCore/QJsonObject>
#include <QtCore/QUuid>
#include <QtTest/QtTest>

using Visindigo::Agent::Model;
using Visindigo::Agent::Provider;
using Visindigo::Utility::JsonConfig;
using Cap = Visindigo::Agent::Model::Capability;

namespace {

// Registers a copy of model in the global Center.
void registerModel(const Model& model)
{
    const QByteArray json = model.toJson().toUtf8();
    ViModel* m = nullptr;
    QCOMPARE(vi_model_new(&m), VI_STATUS_OK);
    QCOMPARE(vi_model_from_json(m, json.constData(), size_t(json.size()), nullptr), VI_STATUS_OK);
    QCOMPARE(vi_center_add_model(vi_center_global(), m), VI_STATUS_OK);
    vi_model_free(m);
}


// A valid model (name, http url, token) with the given capabilities, registered.
Model validModel(Model::Capabilities caps = Cap::Text)
{
    Model m;
    m.setName(QStringLiteral("gpt")).setUrl(QUrl(QStringLiteral("http://127.0.0.1:9/v1")))
        .setToken(QStringLiteral("sk-secret")).setCapabilities(caps);
    registerModel(m);
    return m;
}

bool isUuid(const QString& s)
{
    static const QRegularExpression re(
        QStringLiteral("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"));
    return re.match(s).hasMatch();
}

} // namespace

class TestProvider : public QObject
{
    Q_OBJECT

private slots:
    // ---- seeds/Provider.md, sentence by sentence ----------------------------------

    // "Provider 回答的是"该用哪个模型"：它按优先级持有一批模型 id，并提供 pickFirst() / pickNext() 两个挑选入口。"
    void providerHoldsModelIdsByPriorityAndPicksOne()
    {
        const Model a = validModel();
        const Model b = validModel();
        Provider p;
        p.addModel(a.getId(), 1).addModel(b.getId(), 5);
        QCOMPARE(p.pickFirst(Cap::None), b.getId());
        QCOMPARE(p.pickNext(b.getId(), Cap::None), a.getId());
    }

    // "前者用于正常发起一次对话，后者用于某个模型失败或额度耗尽时换一个继续。"
    void pickNextContinuesAfterAFailedModel()
    {
        const Model a = validModel();
        const Model b = validModel();
        Provider p;
        p.addModel(a.getId(), 10).addModel(b.getId(), 0);
        const QString first = p.pickFirst(Cap::Text);
        QCOMPARE(first, a.getId());
        QCOMPARE(p.pickNext(first, Cap::Text), b.getId());
    }

    // "Provider 只保存模型 id，不保存 Model 本身。…toJson() 的产物里不含任何凭据"
    void providerStoresOnlyModelIdsSoToJsonHasNoCredentials()
    {
        const Model a = validModel();
        Provider p(QStringLiteral("Vendor"));
        p.addModel(a.getId(), 3);
        const QString text = p.toJson().toString(QJsonDocument::Compact);
        QVERIFY(!text.contains(QStringLiteral("sk-secret")));
        QVERIFY(!text.contains(QStringLiteral("127.0.0.1")));
        QVERIFY(!text.contains(QStringLiteral("token")));
        QVERIFY(!text.contains(QStringLiteral("url")));
    }

    // "共享同一批模型的多个 Provider 也不会各自持有一份 token 副本。"
    void providersSharingModelsShareTheCenterModel()
    {
        Model a = validModel();
        Provider p1, p2;
        p1.addModel(a.getId());
        p2.addModel(a.getId());
        QCOMPARE(p1.pickFirst(Cap::None), a.getId());
        // invalidate the one model in the pool: both providers see it at once
        a.setToken(QString());
        registerModel(a);
        QCOMPARE(p1.pickFirst(Cap::None), QString());
        QCOMPARE(p2.pickFirst(Cap::None), QString());
    }

    // "Provider 自身也用 UUID 作索引，注册在 Center 中。"
    void providerIsIndexedByAUuid()
    {
        const Provider p;
        QVERIFY2(isUuid(p.getId()), qPrintable(p.getId()));
        QVERIFY(Provider().getId() != p.getId());
    }

    // "Provider() 构造一个空 Provider，并立即分配一个新的 UUID。"
    void defaultConstructorMakesAnEmptyProviderWithAFreshUuid()
    {
        const Provider p;
        QVERIFY(isUuid(p.getId()));
        QVERIFY(p.getModelIds().isEmpty());
        QVERIFY(p.getName().isEmpty());
        QVERIFY(!p.isValid());
    }

    // "Provider(name) 以名称构造空 Provider。名称仅用于展示，索引仍走 id。"
    void nameConstructorNameIsForDisplayOnlyIdStillIndexes()
    {
        const Provider a(QStringLiteral("Same"));
        const Provider b(QStringLiteral("Same"));
        QCOMPARE(a.getName(), QStringLiteral("Same"));
        QVERIFY(a.getModelIds().isEmpty());
        QVERIFY(isUuid(a.getId()));
        QVERIFY(a.getId() != b.getId());
    }

    // "~Provider() [noexcept]"
    void destructorIsNoexcept()
    {
        QVERIFY(std::is_nothrow_destructible_v<Provider>);
        QVERIFY(std::is_nothrow_move_constructible_v<Provider>);
        QVERIFY(std::is_nothrow_move_assignable_v<Provider>);
    }

    // "addModel 加入一个模型 id，并指定其优先级。优先级越大越先被 pickFirst() 选中，默认 0。"
    void addModelHigherPriorityIsPickedFirstDefaultZero()
    {
        const Model low = validModel();
        const Model high = validModel();
        Provider p;
        QCOMPARE(&p.addModel(low.getId()), &p);
        p.addModel(high.getId(), 1);
        QCOMPARE(p.getModelPriority(low.getId()), 0);
        QCOMPARE(p.getModelPriority(high.getId()), 1);
        QCOMPARE(p.pickFirst(Cap::None), high.getId());
        p.addModel(QStringLiteral("neg"), -5);
        QCOMPARE(p.getModelPriority(QStringLiteral("neg")), -5);
    }

    // "重复加入同一个 id 会覆盖其优先级，而不是产生第二个条目。"
    void reAddingAnIdOverwritesItsPriority()
    {
        Provider p;
        p.addModel(QStringLiteral("m"), 1).addModel(QStringLiteral("m"), 9);
        QCOMPARE(p.getModelIds(), QStringList{QStringLiteral("m")});
        QCOMPARE(p.getModelPriority(QStringLiteral("m")), 9);
        QCOMPARE(p.toJson().getArray(QStringLiteral("models")).size(), 1);
    }

    // "这里不检查 modelId 是否已在 Center 的模型池中存在。…写错 id 时只会在挑选阶段表现为"挑不到模型"。"
    void addModelDoesNotCheckTheCenterAWrongIdJustPicksNothing()
    {
        Provider p;
        const QString unknown = QUuid::createUuid().toString(QUuid::WithoutBraces);
        p.addModel(unknown, 100);
        QCOMPARE(p.getModelIds(), QStringList{unknown});
        QVERIFY(p.isValid());
        QCOMPARE(p.pickFirst(Cap::None), QString());
    }

    // "允许先建 Provider 后补模型，可以让配置的读取顺序不受限制"
    void providerCanBeBuiltBeforeItsModelsAreRegistered()
    {
        Model later;
        later.setName(QStringLiteral("n")).setUrl(QUrl(QStringLiteral("https://h/v1"))).setToken(QStringLiteral("t"));
        Provider p;
        p.addModel(later.getId());
        QCOMPARE(p.pickFirst(Cap::None), QString());
        registerModel(later);
        QCOMPARE(p.pickFirst(Cap::None), later.getId());
    }

    // "clearModels() 清空全部模型。"
    void clearModelsRemovesEveryModel()
    {
        Provider p;
        p.addModel(QStringLiteral("a")).addModel(QStringLiteral("b"));
        QCOMPARE(&p.clearModels(), &p);
        QVERIFY(p.getModelIds().isEmpty());
        QVERIFY(!p.isValid());
    }

    // "fromJson 从 JSON 对象恢复。"
    // SPEC §H.1.4: retry settings, written to the JSON only when they are not the defaults.
    void retrySettingsAreChainableAndOnlyNonDefaultsAreSaved()
    {
        Provider p(QStringLiteral("Vendor"));
        QCOMPARE(p.getRetries(), 2);
        QCOMPARE(p.getMaxRetryDelayMs(), 60000);
        QVERIFY(!p.toJson().contains(QStringLiteral("retries")));
        QVERIFY(!p.toJson().contains(QStringLiteral("maxRetryDelayMs")));
        p.setRetries(0).setMaxRetryDelayMs(5000);
        const JsonConfig json = p.toJson();
        QCOMPARE(json.getInt(QStringLiteral("retries")), 0);
        QCOMPARE(json.getInt(QStringLiteral("maxRetryDelayMs")), 5000);
        Provider q;
        QVERIFY(q.fromJson(json));
        QCOMPARE(q.getRetries(), 0);
        QCOMPARE(q.getMaxRetryDelayMs(), 5000);
        QVERIFY(q.fromJson(JsonConfig(QStringLiteral("{\"id\":\"p\"}"))));
        QCOMPARE(q.getRetries(), 2);
    }

    void fromJsonRestoresFromAJsonObject()
    {
        Provider p;
        QVERIFY(p.fromJson(JsonConfig(QStringLiteral(
            "{\"id\":\"prov-1\",\"name\":\"Vendor\",\"models\":[{\"id\":\"m1\",\"priority\":3},{\"id\":\"m0\",\"priority\":-1}]}"))));
        QCOMPARE(p.getId(), QStringLiteral("prov-1"));
        QCOMPARE(p.getName(), QStringLiteral("Vendor"));
        QCOMPARE(p.getModelIds(), (QStringList{QStringLiteral("m0"), QStringLiteral("m1")}));
        QCOMPARE(p.getModelPriority(QStringLiteral("m1")), 3);
        QCOMPARE(p.getModelPriority(QStringLiteral("m0")), -1);
    }

    // "存档里带有 id 时会一并恢复；没有 id 字段时保留当前（新生成的）id，因而可以把手写的服务商片段直接读进来。"
    void fromJsonKeepsTheFreshIdWhenNoIdIsPresent()
    {
        Provider p;
        const QString fresh = p.getId();
        QVERIFY(!p.fromJson(JsonConfig(QStringLiteral("{\"name\":\"hand-written\",\"models\":[{\"id\":\"m\"}]}"))));
        QCOMPARE(p.getId(), fresh);
        QCOMPARE(p.getName(), QStringLiteral("hand-written"));
        QCOMPARE(p.getModelIds(), QStringList{QStringLiteral("m")});
        QCOMPARE(p.getModelPriority(QStringLiteral("m")), 0);
        QVERIFY(!p.fromJson(JsonConfig(QStringLiteral("{\"id\":\"\"}"))));
        QCOMPARE(p.getId(), fresh);
    }

    // "恢复只影响 id 与优先级，模型本身仍由 Center 的模型池提供。若模型池里没有对应 id，该候选项会在挑选阶段被跳过，而不是在这里报错。"
    void fromJsonOfUnknownModelIdsSucceedsAndPickingSkipsThem()
    {
        const Model known = validModel();
        Provider p;
        const QString json = QStringLiteral("{\"id\":\"p-x\",\"models\":[{\"id\":\"%1\",\"priority\":1},{\"id\":\"%2\",\"priority\":99}]}")
                                 .arg(known.getId(), QUuid::createUuid().toString(QUuid::WithoutBraces));
        QVERIFY(p.fromJson(JsonConfig(json)));
        QCOMPARE(p.getModelIds().size(), 2);
        QCOMPARE(p.pickFirst(Cap::None), known.getId());
    }

    // "return 读到了非空的 id 时返回 true。"
    void fromJsonReturnsTrueOnlyForANonEmptyId()
    {
        Provider p;
        QVERIFY(p.fromJson(JsonConfig(QStringLiteral("{\"id\":\"x\"}"))));
        QVERIFY(!p.fromJson(JsonConfig(QStringLiteral("{\"id\":\"\"}"))));
        QVERIFY(!p.fromJson(JsonConfig(QStringLiteral("{}"))));
        QCOMPARE(p.getId(), QStringLiteral("x"));
    }

    // "getId() 返回唯一标识。"
    void getIdReturnsTheUniqueId()
    {
        const Provider p;
        const Provider copy(p);
        QCOMPARE(copy.getId(), p.getId());
        QCOMPARE(p.toJson().getString(QStringLiteral("id")), p.getId());
    }

    // "getModelIds() 返回全部模型 id。"
    void getModelIdsReturnsEveryModelId()
    {
        Provider p;
        p.addModel(QStringLiteral("c"), 1).addModel(QStringLiteral("a"), 3).addModel(QStringLiteral("b"), 2);
        QCOMPARE(p.getModelIds(), (QStringList{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}));
    }

    // "getModelPriority 返回指定模型的优先级；该 id 不在本 Provider 中时返回 0。"
    void getModelPriorityIsZeroForAnUnknownId()
    {
        Provider p;
        p.addModel(QStringLiteral("a"), 7);
        QCOMPARE(p.getModelPriority(QStringLiteral("a")), 7);
        QCOMPARE(p.getModelPriority(QStringLiteral("nope")), 0);
        QCOMPARE(p.getModelPriority(QString()), 0);
    }

    // "getName() 返回展示名称。"
    void getNameReturnsTheDisplayName()
    {
        Provider p(QStringLiteral("显示名"));
        QCOMPARE(p.getName(), QStringLiteral("显示名"));
    }

    // "isValid() 判断 Provider 是否至少持有一个模型 id。"
    void isValidMeansAtLeastOneModelId()
    {
        Provider p;
        QVERIFY(!p.isValid());
        p.addModel(QStringLiteral("x"));
        QVERIFY(p.isValid());
        p.removeModel(QStringLiteral("x"));
        QVERIFY(!p.isValid());
    }

    // "它不检查这些 id 是否真的能在模型池里解析出来…本函数在 Provider 的拷贝上也会被调用。"
    void isValidDoesNotResolveIdsAndWorksOnACopy()
    {
        Provider p;
        p.addModel(QUuid::createUuid().toString(QUuid::WithoutBraces));
        const Provider copy = p;
        QVERIFY(copy.isValid());
        QCOMPARE(copy.pickFirst(Cap::None), QString());
    }

    // "pickFirst 按优先级从高到低挑选第一个满足 required 的模型，返回其 id。"
    void pickFirstPicksByPriorityDescending()
    {
        const Model m1 = validModel(), m2 = validModel(), m3 = validModel();
        Provider p;
        p.addModel(m1.getId(), 1).addModel(m2.getId(), 3).addModel(m3.getId(), 2);
        QCOMPARE(p.pickFirst(Cap::Text), m2.getId());
    }

    // "优先级相同时按 id 字典序决定先后，因此挑选结果与插入顺序无关"
    void equalPrioritiesAreOrderedByIdIndependentOfInsertionOrder()
    {
        QList<Model> models{validModel(), validModel(), validModel()};
        QStringList ids;
        for (const Model& m : models)
            ids << m.getId();
        ids.sort();
        Provider forward, backward;
        for (int i = 0; i < 3; ++i) {
            forward.addModel(models[i].getId(), 4);
            backward.addModel(models[2 - i].getId(), 4);
        }
        QCOMPARE(forward.pickFirst(Cap::None), ids[0]);
        QCOMPARE(backward.pickFirst(Cap::None), ids[0]);
        QCOMPARE(forward.pickNext(ids[0], Cap::None), ids[1]);
        QCOMPARE(backward.pickNext(ids[1], Cap::None), ids[2]);
        // "同一份配置在任意一次运行里都会挑出同一个模型" — from a JSON round trip too
        Provider restored;
        restored.fromJson(backward.toJson());
        QCOMPARE(restored.pickFirst(Cap::None), ids[0]);
    }

    // "满足条件指的是：该 id 能在 Center 的模型池里找到、该模型 Model::isValid() 为真、并且它的能力位包含 required 的全部位。"
    void qualifyingMeansInPoolValidAndHavingEveryRequiredBit()
    {
        Model invalid; // no token
        invalid.setName(QStringLiteral("n")).setUrl(QUrl(QStringLiteral("http://h/v1")));
        registerModel(invalid);
        const Model textOnly = validModel(Cap::Text);
        const Model vision = validModel(Cap::Text | Cap::Image);
        const Model all = validModel(Cap::Text | Cap::Image | Cap::ToolUse);
        const QString missing = QUuid::createUuid().toString(QUuid::WithoutBraces);
        Provider p;
        p.addModel(missing, 100).addModel(invalid.getId(), 90).addModel(textOnly.getId(), 80)
            .addModel(vision.getId(), 70).addModel(all.getId(), 60);
        QCOMPARE(p.pickFirst(Cap::Text), textOnly.getId());
        QCOMPARE(p.pickFirst(Cap::Image), vision.getId());
        QCOMPARE(p.pickFirst(Cap::Image | Cap::ToolUse), all.getId());
        QCOMPARE(p.pickFirst(Cap::Audio), QString());
    }

    // "传入 Model::Capability::None 表示只要求模型可用。"
    void noneRequiresOnlyAValidModel()
    {
        const Model noCaps = validModel(Cap::None);
        Provider p;
        p.addModel(noCaps.getId());
        QCOMPARE(p.pickFirst(Cap::None), noCaps.getId());
        QCOMPARE(p.pickFirst(Cap::Text), QString());
    }

    // "挑不到时返回空串；调用方应当据此放弃本次请求，而不是退回默认模型硬发。"
    void pickFirstReturnsEmptyWhenNothingQualifies()
    {
        QCOMPARE(Provider().pickFirst(Cap::None), QString());
        Provider p;
        p.addModel(QStringLiteral("not-registered"));
        QVERIFY(p.pickFirst(Cap::Text).isEmpty());
    }

    // "pickNext 在 pickFirst() 的挑选顺序里，返回 afterModelId 之后第一个满足 required 的模型 id。"
    void pickNextReturnsTheNextQualifyingModelInPickOrder()
    {
        const Model a = validModel(Cap::Text), b = validModel(Cap::Text), c = validModel(Cap::Text | Cap::Image);
        Provider p;
        p.addModel(a.getId(), 3).addModel(b.getId(), 2).addModel(c.getId(), 1);
        QCOMPARE(p.pickNext(a.getId(), Cap::Text), b.getId());
        QCOMPARE(p.pickNext(a.getId(), Cap::Image), c.getId()); // b skipped: no Image
        QCOMPARE(p.pickNext(b.getId(), Cap::Text), c.getId());
    }

    // "这是"降级重试"的入口：当前模型超时或被限流时换下一个继续"
    void pickNextSkipsInvalidAndMissingModels()
    {
        const Model a = validModel();
        Model broken;
        broken.setName(QStringLiteral("n")).setToken(QStringLiteral("t")); // no url
        registerModel(broken);
        const Model c = validModel();
        Provider p;
        p.addModel(a.getId(), 4).addModel(broken.getId(), 3).addModel(QStringLiteral("ghost"), 2).addModel(c.getId(), 1);
        QCOMPARE(p.pickNext(a.getId(), Cap::None), c.getId());
    }

    // "afterModelId 不在本 Provider 中时，等价于 pickFirst()。"
    void pickNextAfterAnUnknownIdIsPickFirst()
    {
        const Model a = validModel(), b = validModel();
        Provider p;
        p.addModel(a.getId(), 2).addModel(b.getId(), 1);
        QCOMPARE(p.pickNext(QStringLiteral("elsewhere"), Cap::None), a.getId());
        QCOMPARE(p.pickNext(QString(), Cap::None), a.getId());
    }

    // "它不会回绕到序列开头。若 afterModelId 已是最后一个候选，返回空串"
    void pickNextDoesNotWrapAround()
    {
        const Model a = validModel(), b = validModel();
        Provider p;
        p.addModel(a.getId(), 2).addModel(b.getId(), 1);
        QCOMPARE(p.pickNext(b.getId(), Cap::None), QString());
        // walking the sequence ends, it never loops
        QString cur = p.pickFirst(Cap::None);
        int steps = 0;
        while (!cur.isEmpty() && steps < 10) {
            cur = p.pickNext(cur, Cap::None);
            ++steps;
        }
        QCOMPARE(steps, 2);
    }

    // "removeModel 移除一个模型 id。id 不存在时什么也不做。"
    void removeModelOfAMissingIdDoesNothing()
    {
        Provider p;
        p.addModel(QStringLiteral("a"), 1);
        QCOMPARE(&p.removeModel(QStringLiteral("zzz")), &p);
        QCOMPARE(p.getModelIds(), QStringList{QStringLiteral("a")});
        p.removeModel(QStringLiteral("a"));
        QVERIFY(p.getModelIds().isEmpty());
        QCOMPARE(p.getModelPriority(QStringLiteral("a")), 0);
    }

    // "setName 设置供展示的名称，例如服务商名。"
    void setNameSetsTheDisplayName()
    {
        Provider p;
        QCOMPARE(&p.setName(QStringLiteral("OpenAI")), &p);
        QCOMPARE(p.getName(), QStringLiteral("OpenAI"));
    }

    // "toJson 序列化为 JSON 对象，形态为 "id", "name", "models": [{"id", "priority"}]。"
    void toJsonHasIdNameAndModelsWithPriorityInIdOrder()
    {
        Provider p(QStringLiteral("V"));
        p.addModel(QStringLiteral("b"), 2).addModel(QStringLiteral("a"), 5);
        const JsonConfig j = p.toJson();
        QStringList keys = j.keys();
        keys.sort();
        QCOMPARE(keys, (QStringList{QStringLiteral("id"), QStringLiteral("models"), QStringLiteral("name")}));
        QCOMPARE(j.getString(QStringLiteral("id")), p.getId());
        QCOMPARE(j.getString(QStringLiteral("name")), QStringLiteral("V"));
        QCOMPARE(j.getString(QStringLiteral("models.0.id")), QStringLiteral("a"));
        QCOMPARE(j.getInt(QStringLiteral("models.0.priority")), 5);
        QVERIFY(j.isInt(QStringLiteral("models.0.priority")));
        QCOMPARE(j.getString(QStringLiteral("models.1.id")), QStringLiteral("b"));
        QCOMPARE(j.getInt(QStringLiteral("models.1.priority")), 2);
        QCOMPARE(j.keys(QStringLiteral("models.0")), (QStringList{QStringLiteral("id"), QStringLiteral("priority")}));
        QVERIFY(Provider().toJson().isArray(QStringLiteral("models")));
    }

    // "产物里只有 id，不含地址与凭据，因此可以安全地写进项目文件或随日志附上。"
    void toJsonHoldsOnlyIdsNoAddressesOrCredentials()
    {
        const Model m = validModel();
        Provider p;
        p.addModel(m.getId());
        const JsonConfig j = p.toJson();
        QCOMPARE(j.keys(QStringLiteral("models.0")), (QStringList{QStringLiteral("id"), QStringLiteral("priority")}));
        QVERIFY(!j.toString().contains(QStringLiteral("sk-secret")));
    }

    // ---- SPEC §B.3 / value-class details --------------------------------------------

    void emptyModelIdIsIgnored()
    {
        Provider p;
        p.addModel(QString(), 5).addModel(QStringLiteral(""), 5);
        QVERIFY(p.getModelIds().isEmpty());
        QVERIFY(!p.isValid());
    }

    void copiesAreIndependentAndKeepTheId()
    {
        Provider a(QStringLiteral("A"));
        a.addModel(QStringLiteral("m"), 1);
        Provider b(a);
        b.setName(QStringLiteral("B")).addModel(QStringLiteral("n"), 2).removeModel(QStringLiteral("m"));
        QCOMPARE(a.getName(), QStringLiteral("A"));
        QCOMPARE(a.getModelIds(), QStringList{QStringLiteral("m")});
        QCOMPARE(b.getId(), a.getId());
        Provider c;
        c = a;
        QCOMPARE(c.getId(), a.getId());
        const Provider& same = c; // self-assignment, without clang's -Wself-assign-overloaded
        c = same;
        QCOMPARE(c.getModelIds(), QStringList{QStringLiteral("m")});
    }

    void moveKeepsTheValueAndMovedFromIsUsable()
    {
        Provider a(QStringLiteral("A"));
        a.addModel(QStringLiteral("m"));
        const QString id = a.getId();
        Provider b(std::move(a));
        QCOMPARE(b.getId(), id);
        QCOMPARE(b.getName(), QStringLiteral("A"));
        QVERIFY(!a.isValid());
        QVERIFY(a.getModelIds().isEmpty());
        QCOMPARE(a.pickFirst(Cap::None), QString());
        QCOMPARE(a.pickNext(QStringLiteral("m"), Cap::None), QString());
        (void)a.toJson();
        a.addModel(QStringLiteral("x"));
        QVERIFY(a.isValid());
        Provider c;
        c = std::move(b);
        QCOMPARE(c.getId(), id);
    }

    void roundTripThroughToJsonAndFromJson()
    {
        Provider a(QStringLiteral("RT"));
        a.addModel(QStringLiteral("z"), -3).addModel(QStringLiteral("y"), 8);
        Provider b;
        QVERIFY(b.fromJson(a.toJson()));
        QCOMPARE(b.getId(), a.getId());
        QCOMPARE(b.getName(), a.getName());
        QCOMPARE(b.getModelIds(), a.getModelIds());
        QCOMPARE(b.getModelPriority(QStringLiteral("z")), -3);
        QCOMPARE(b.toJson().toString(), a.toJson().toString());
    }

    void worksAsQVariant()
    {
        Provider p(QStringLiteral("v"));
        const QVariant v = QVariant::fromValue(p);
        QCOMPARE(v.value<Provider>().getId(), p.getId());
    }

    // ---- bad input -----------------------------------------------------------------

    void fromJsonOfAnArrayRootChangesNothing()
    {
        Provider p(QStringLiteral("keep"));
        p.addModel(QStringLiteral("m"), 1);
        const QString id = p.getId();
        QVERIFY(!p.fromJson(JsonConfig(QStringLiteral("[{\"id\":\"other\"}]"))));
        QCOMPARE(p.getId(), id);
        QCOMPARE(p.getName(), QStringLiteral("keep"));
        QCOMPARE(p.getModelIds(), QStringList{QStringLiteral("m")});
    }

    void fromJsonWithWronglyTypedFieldsDoesNotCrash()
    {
        Provider p;
        const QString id = p.getId();
        const bool read = p.fromJson(JsonConfig(QStringLiteral(
            "{\"id\":42,\"name\":[\"x\"],\"models\":[1,\"s\",null,{\"id\":7},{\"priority\":\"high\"},{\"id\":\"ok\",\"priority\":1.5}]}")));
        QVERIFY(!read);
        QCOMPARE(p.getId(), id);
        (void)p.getModelIds();
        (void)p.toJson();
        Provider q;
        q.fromJson(JsonConfig(QStringLiteral("{\"models\":{\"id\":\"m\"}}")));
        (void)q.getModelIds();
        Provider r;
        r.fromJson(JsonConfig(QStringLiteral("{\"models\":[{\"id\":\"big\",\"priority\":1e300}]}")));
        (void)r.getModelPriority(QStringLiteral("big"));
    }

    void loneSurrogatesAndEmptyStringsDoNotCrash()
    {
        Provider p(QString(QChar(0xD800)));
        QCOMPARE(p.getName(), QString(QChar(0xFFFD)));
        p.addModel(QString(QChar(0xDC00)), 1);
        QCOMPARE(p.getModelIds().size(), 1);
        QCOMPARE(p.getModelPriority(QString(QChar(0xDC00))), 1);
        (void)p.pickFirst(Cap::None);
        (void)p.pickNext(QString(QChar(0xD800)), Cap::None);
        Provider back;
        back.fromJson(p.toJson());
        QCOMPARE(back.getName(), p.getName());
        p.setName(QString());
        QVERIFY(p.getName().isEmpty());
    }
};

QTEST_APPLESS_MAIN(TestProvider)
#include "tst_provider.moc"
