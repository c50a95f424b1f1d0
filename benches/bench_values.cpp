// SPDX-License-Identifier: MIT
//
// Value classes, persistence, request bodies and model picking: the Qt layer against the
// Qt-native way of doing the same (what the native module does internally). One process,
// every case side by side; benches/run.py repeats it and takes medians.
//
//   bench_values [--quick]
#include "bench_common.h"

#include <Agent/Center.h>
#include <Agent/Dialog.h>
#include <Agent/Model.h>
#include <Agent/Provider.h>
#include <Utility/JsonConfig.h>

#include <QtCore/QCoreApplication>
#include <QtCore/QHash>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QList>
#include <QtCore/QThread>
#include <QtCore/QUrl>
#include <QtCore/QUuid>

#include <algorithm>
#include <memory>

using namespace Visindigo::Agent;
using Visindigo::Utility::JsonConfig;

namespace {

// ---- the Qt-native baseline: a plain pimpl value class with QString members ---------------
class PlainMessagePrivate
{
public:
    int role = 1;
    QString content;
    QString reasoning;
    QString name;
    QString toolCallId;
    QString toolCalls;
};

class PlainMessage
{
public:
    PlainMessage() : d(new PlainMessagePrivate) {}
    PlainMessage(int role, const QString& content) : d(new PlainMessagePrivate)
    {
        d->role = role;
        d->content = content;
    }
    // Deep-copied private, as the native value classes are.
    PlainMessage(const PlainMessage& o) : d(new PlainMessagePrivate(*o.d)) {}
    PlainMessage& operator=(const PlainMessage& o)
    {
        if (this != &o)
            *d = *o.d;
        return *this;
    }
    PlainMessage(PlainMessage&&) noexcept = default;
    PlainMessage& operator=(PlainMessage&&) noexcept = default;
    ~PlainMessage() = default;
    QString getContent() const { return d->content; }
    PlainMessage& setContent(const QString& c)
    {
        d->content = c;
        return *this;
    }
    int getRole() const { return d->role; }

private:
    std::unique_ptr<PlainMessagePrivate> d;
};

const char* roleName(int role)
{
    static const char* names[] = {"system", "user", "assistant", "tool", "prompt"};
    return names[role % 5];
}

QString text300(int i)
{
    QString s = QStringLiteral("Message %1: ").arg(i);
    const QString filler = QStringLiteral("The quick brown fox jumps over the lazy dog — café naïve. ");
    while (s.size() < 300)
        s += filler;
    s.truncate(300);
    return s;
}

// ---- 5a. Message create + get ----------------------------------------------------------------
void messageCases(int n)
{
    const QString content = QStringLiteral("Hello, how can I help you today? Ask me anything.");
    {
        double t = bench::now();
        qsizetype total = 0;
        for (int i = 0; i < n; ++i) {
            Message m(Message::Role::User, content);
            total += m.getContent().size();
        }
        bench::keep(total);
        bench::report("message_create_get_100k", "ours", bench::now() - t);
    }
    {
        double t = bench::now();
        qsizetype total = 0;
        for (int i = 0; i < n; ++i) {
            PlainMessage m(1, content);
            total += m.getContent().size();
        }
        bench::keep(total);
        bench::report("message_create_get_100k", "qt", bench::now() - t);
    }
    {
        Message src(Message::Role::User, content);
        double t = bench::now();
        qsizetype total = 0;
        for (int i = 0; i < n; ++i) {
            Message copy(src);
            copy.setContent(content);
            total += copy.getContent().size();
        }
        bench::keep(total);
        bench::report("message_copy_set_get_100k", "ours", bench::now() - t);
    }
    {
        PlainMessage src(1, content);
        double t = bench::now();
        qsizetype total = 0;
        for (int i = 0; i < n; ++i) {
            PlainMessage copy(src);
            copy.setContent(content);
            total += copy.getContent().size();
        }
        bench::keep(total);
        bench::report("message_copy_set_get_100k", "qt", bench::now() - t);
    }
}

// ---- 5b. getMessages() on a 10,000-message dialog ×1,000 --------------------------------------
void getMessagesCase()
{
    Dialog dialog;
    QList<PlainMessage> plain;
    for (int i = 0; i < 10000; ++i) {
        dialog.appendMessage(i % 2 ? Message::Role::Assistant : Message::Role::User, QStringLiteral("m%1").arg(i));
        plain.append(PlainMessage(i % 2 ? 2 : 1, QStringLiteral("m%1").arg(i)));
    }
    qsizetype total = dialog.getMessages().size(); // the first call builds the cache
    const int calls = 1000;
    double t = bench::now();
    for (int i = 0; i < calls; ++i)
        total += dialog.getMessages().size();
    bench::report("getmessages_10k_x1000", "ours", bench::now() - t);
    // Baseline: the native member list returned by value (implicitly shared).
    t = bench::now();
    for (int i = 0; i < calls; ++i) {
        const QList<PlainMessage> copy = plain;
        total += copy.size();
    }
    bench::report("getmessages_10k_x1000", "qt", bench::now() - t);
    // One change, then the rebuild: the price of the first call after an append.
    dialog.appendMessage(Message::Role::User, QStringLiteral("more"));
    t = bench::now();
    total += dialog.getMessages().size();
    bench::report("getmessages_10k_after_change", "ours", bench::now() - t);
    bench::keep(total);
}

// ---- 5c. Provider::pickFirst over 1,000 models --------------------------------------------------
struct PlainModel
{
    QString id;
    int caps = 1;
    bool valid = true;
};

// The native module's way: copy the (priority, id) list, sort it, take the first model that
// qualifies.
QString sortPerCallPick(const QHash<QString, int>& priorities, const QHash<QString, PlainModel>& models, int required)
{
    QList<QPair<int, QString>> order;
    order.reserve(priorities.size());
    for (auto it = priorities.cbegin(); it != priorities.cend(); ++it)
        order.append({it.value(), it.key()});
    std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    for (const auto& entry : order) {
        auto m = models.constFind(entry.second);
        if (m != models.cend() && m->valid && (m->caps & required) == required)
            return entry.second;
    }
    return {};
}

void pickFirstCases(int calls, int baselineCalls)
{
    Center* center = Center::getInstance();
    Provider provider(QStringLiteral("bench"));
    QHash<QString, int> priorities;
    QHash<QString, PlainModel> plainModels;
    QString lastId;
    for (int i = 0; i < 1000; ++i) {
        Model m;
        const bool last = i == 999;
        m.setName(QStringLiteral("model-%1").arg(i))
            .setUrl(QUrl(QStringLiteral("http://127.0.0.1:9/v1")))
            .setToken(QStringLiteral("t"))
            .setCapabilities(last ? Model::Capabilities(Model::Capability::Text | Model::Capability::Image)
                                  : Model::Capabilities(Model::Capability::Text));
        center->addModel(m);
        provider.addModel(m.getId(), 1000 - i);
        priorities.insert(m.getId(), 1000 - i);
        plainModels.insert(m.getId(), PlainModel{m.getId(), last ? 3 : 1, true});
        if (last)
            lastId = m.getId();
    }
    center->addProvider(provider);
    const auto text = Model::Capabilities(Model::Capability::Text);
    const auto image = Model::Capabilities(Model::Capability::Image);
    if (provider.pickFirst(image) != lastId || sortPerCallPick(priorities, plainModels, 2) != lastId)
        std::fprintf(stderr, "pickFirst: unexpected answer\n");

    qsizetype total = 0;
    double t = bench::now();
    for (int i = 0; i < calls; ++i)
        total += provider.pickFirst(text).size();
    bench::report("pickfirst_first_x10000", "ours", (bench::now() - t) * 10000.0 / calls);
    t = bench::now();
    for (int i = 0; i < baselineCalls; ++i)
        total += sortPerCallPick(priorities, plainModels, 1).size();
    bench::report("pickfirst_first_x10000", "qt", (bench::now() - t) * 10000.0 / baselineCalls);
    t = bench::now();
    for (int i = 0; i < calls; ++i)
        total += provider.pickFirst(image).size();
    bench::report("pickfirst_last_x10000", "ours", (bench::now() - t) * 10000.0 / calls);
    t = bench::now();
    for (int i = 0; i < baselineCalls; ++i)
        total += sortPerCallPick(priorities, plainModels, 2).size();
    bench::report("pickfirst_last_x10000", "qt", (bench::now() - t) * 10000.0 / baselineCalls);
    bench::keep(total);
    for (auto it = priorities.cbegin(); it != priorities.cend(); ++it)
        center->removeModel(it.key());
    center->removeProvider(provider.getId());
}

// ---- 3. Center persistence: 200 dialogs × 200 messages of ~300 characters ------------------------
struct PlainDialog
{
    QString id;
    QList<PlainMessage> messages;
};

QJsonObject plainMessageJson(const PlainMessage& m)
{
    return QJsonObject{{QStringLiteral("role"), QString::fromLatin1(roleName(m.getRole()))},
                       {QStringLiteral("content"), m.getContent()}};
}

// The native module's save: build the whole Center document with QJsonObject, then write it.
QByteArray plainSave(const QList<PlainDialog>& dialogs)
{
    QJsonArray dialogArray;
    for (const PlainDialog& d : dialogs) {
        QJsonArray messages;
        for (const PlainMessage& m : d.messages)
            messages.append(plainMessageJson(m));
        dialogArray.append(QJsonObject{{QStringLiteral("id"), d.id},
                                       {QStringLiteral("branchFromId"), QString()},
                                       {QStringLiteral("providerId"), QString()},
                                       {QStringLiteral("modelId"), QString()},
                                       {QStringLiteral("capabilityRequirement"), 0},
                                       {QStringLiteral("messages"), messages},
                                       {QStringLiteral("skills"), QJsonArray()},
                                       {QStringLiteral("mcps"), QJsonArray()},
                                       {QStringLiteral("prompts"), QJsonArray()}});
    }
    QJsonObject root{{QStringLiteral("models"), QJsonArray()},       {QStringLiteral("providers"), QJsonArray()},
                     {QStringLiteral("skills"), QJsonArray()},       {QStringLiteral("mcps"), QJsonArray()},
                     {QStringLiteral("prompts"), QJsonArray()},      {QStringLiteral("defaultProviderId"), QString()},
                     {QStringLiteral("dialogs"), dialogArray}};
    return QJsonDocument(root).toJson(QJsonDocument::Compact);
}

// The native module's load: parse with QJsonDocument, walk it into the value classes.
QList<PlainDialog> plainLoad(const QByteArray& text)
{
    QList<PlainDialog> out;
    const QJsonObject root = QJsonDocument::fromJson(text).object();
    const QJsonArray dialogs = root.value(QStringLiteral("dialogs")).toArray();
    out.reserve(dialogs.size());
    for (const QJsonValue& dv : dialogs) {
        const QJsonObject d = dv.toObject();
        PlainDialog pd;
        pd.id = d.value(QStringLiteral("id")).toString();
        const QJsonArray messages = d.value(QStringLiteral("messages")).toArray();
        pd.messages.reserve(messages.size());
        for (const QJsonValue& mv : messages) {
            const QJsonObject m = mv.toObject();
            const QString role = m.value(QStringLiteral("role")).toString();
            PlainMessage pm(role == QLatin1String("user") ? 1 : 2, m.value(QStringLiteral("content")).toString());
            pd.messages.append(std::move(pm));
        }
        out.append(std::move(pd));
    }
    return out;
}

void persistenceCases(int dialogsCount, int messagesCount, int reps)
{
    Center* center = Center::getInstance();
    QList<PlainDialog> plain;
    for (int d = 0; d < dialogsCount; ++d) {
        Dialog* dialog = center->createDialog();
        PlainDialog pd;
        pd.id = dialog->getId();
        for (int i = 0; i < messagesCount; ++i) {
            const QString t = text300(i);
            dialog->appendMessage(i % 2 ? Message::Role::Assistant : Message::Role::User, t);
            pd.messages.append(PlainMessage(i % 2 ? 2 : 1, t));
        }
        plain.append(std::move(pd));
    }
    for (int r = 0; r < reps; ++r) {
        double t = bench::now();
        const QString saved = center->toJson().toString(QJsonDocument::Compact);
        const double save = bench::now() - t;
        bench::report("center_save_13MB", "ours", save, "\"bytes\":" + std::to_string(saved.toUtf8().size()));

        t = bench::now();
        const QByteArray plainText = plainSave(plain);
        bench::report("center_save_13MB", "qt", bench::now() - t, "\"bytes\":" + std::to_string(plainText.size()));

        t = bench::now();
        JsonConfig config;
        config.parse(saved);
        const bool ok = center->fromJson(config);
        bench::report("center_load_13MB", "ours", bench::now() - t);
        if (!ok || center->getDialogIds().size() != dialogsCount)
            std::fprintf(stderr, "center load: unexpected result\n");
        // The replaced dialogs are freed on the library's reclaiming thread (src/reclaim.rs);
        // let it finish, so that the baseline runs on a quiet machine.
        QThread::msleep(100);

        t = bench::now();
        QList<PlainDialog> loaded = plainLoad(plainText);
        bench::report("center_load_13MB", "qt", bench::now() - t);
        if (loaded.size() != dialogsCount)
            std::fprintf(stderr, "plain load: unexpected result\n");
    }
}

// ---- 4. request body of a 10,000-message dialog: the Qt-native way --------------------------------
// (ours is measured by the Rust bench `cargo bench --bench core`, which calls the core's body
// builder directly; the request body is not reachable through the public C++ API.)
void requestBodyBaseline(int reps)
{
    QList<PlainMessage> messages;
    for (int i = 0; i < 10000; ++i)
        messages.append(PlainMessage(i % 2 ? 2 : 1, text300(i)));
    for (int r = 0; r < reps; ++r) {
        double t = bench::now();
        QJsonArray array;
        array.append(QJsonObject{{QStringLiteral("role"), QStringLiteral("system")},
                                 {QStringLiteral("content"), QStringLiteral("You are helpful.")}});
        for (const PlainMessage& m : messages)
            array.append(plainMessageJson(m));
        QJsonObject body{{QStringLiteral("messages"), array},
                         {QStringLiteral("stream"), true},
                         {QStringLiteral("temperature"), 0.7},
                         {QStringLiteral("model"), QStringLiteral("gpt-test")}};
        const QByteArray text = QJsonDocument(body).toJson(QJsonDocument::Compact);
        bench::report("request_body_10k", "qt", bench::now() - t, "\"bytes\":" + std::to_string(text.size()));
    }
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    const bool quick = app.arguments().contains(QStringLiteral("--quick"));
    messageCases(100000);
    getMessagesCase();
    pickFirstCases(10000, quick ? 100 : 1000);
    persistenceCases(quick ? 20 : 200, 200, 1);
    requestBodyBaseline(1);
    return 0;
}
