// SPDX-License-Identifier: MIT
//
// Stream delivery against the scripted server (benches/run.py starts it and sets the script).
//
//   bench_stream --port P --impl ours|qt|cabi --case NAME [--latency] [--api chat|responses|anthropic|gemini]
//                [--dialogs N]
//
// --dialogs N (ours, qt): N streams at once from the same server, timed from the first
// streamBegan to the last streamEnded (ours: N dialogs; qt: N readers, each with its own
// QNetworkAccessManager).
//
//   ours   Dialog::run(); every delta arrives as a streamDelta (or streamReasoning) signal on
//          the main thread.
//          Time = streamBegan → streamEnded.
//   qt     the Qt-native way: QNetworkAccessManager, SSE decoded on readyRead, every chunk
//          parsed with QJsonDocument, one Qt signal per delta. Time = request sent → finished.
//   cabi   the bare C ABI: a callback counting StreamDelta (and StreamReasoning) events on the
//          library thread.
//   raw, rawpost  (--latency only) the floors: a blocking socket reader with no HTTP client
//          and no JSON; rawpost hands each delta to the main thread's event loop.
//
// --api picks the wire protocol (SPEC §H.2): the model's Model::Api for ours and cabi, and for
// qt the request path and the events it reads (Responses: response.output_text.delta,
// Anthropic: content_block_delta with a text_delta or a thinking_delta, Gemini: the first candidate's text parts —
// each parsed with QJsonDocument; Chat Completions: the first choice's content, or its
// reasoning_content when the content is not a string). run.py's openai, google, deepseek and
// anthropic-thinking streams are read through chat, gemini, chat and anthropic.
//
// With --latency every delta's content is the server's send time in ns (the $paced
// directive's stamp_content), and the per-delta latency server write → signal (cabi: →
// callback on the library thread, the first of the two thread hand-offs) is reported.
#include "NativeReader.h"
#include "bench_common.h"

#include <Agent/Center.h>
#include <Agent/Dialog.h>
#include <Agent/Model.h>
#include <Agent/Provider.h>
#include <visindigo_agent.h>

#include <QtCore/QCommandLineParser>
#include <QtCore/QCoreApplication>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QObject>
#include <QtCore/QUrl>
#include <QtNetwork/QNetworkAccessManager>
#include <QtNetwork/QNetworkReply>
#include <QtNetwork/QNetworkRequest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

using namespace Visindigo::Agent;

namespace {

struct Result
{
    qint64 deltas = 0;
    qint64 chars = 0;
    double seconds = 0;
    double firstDelta = 0; // bench::now() at the first delta (ours, qt)
    std::vector<long long> latencies; // ns
    QString failure;
};

// The API under test (--api).
Model::Api api = Model::Api::ChatCompletions;

void note(Result& r, const QString& delta, bool latency)
{
    if (r.deltas++ == 0)
        r.firstDelta = bench::now();
    r.chars += delta.size();
    if (latency) {
        bool ok = false;
        const long long sent = delta.toLongLong(&ok);
        if (ok)
            r.latencies.push_back(bench::wallNs() - sent);
    }
}

// ---- ours ---------------------------------------------------------------------------------------
Result runOurs(int port, bool latency, int dialogs)
{
    Result r;
    Center* center = Center::getInstance();
    Model model;
    model.setName(QStringLiteral("bench-model"))
        .setUrl(QUrl(QStringLiteral("http://127.0.0.1:%1/v1").arg(port)))
        .setToken(QStringLiteral("k"))
        .setTimeoutMs(600000)
        .setIdleTimeoutMs(60000)
        .setApi(api);
    center->addModel(model);
    Provider provider(QStringLiteral("bench"));
    provider.addModel(model.getId(), 1);
    center->addProvider(provider);
    center->setDefaultProvider(provider.getId());
    double began = 0;
    int running = dialogs;
    for (int i = 0; i < dialogs; ++i) {
        Dialog* dialog = center->createDialog();
        dialog->appendMessage(Message::Role::User, QStringLiteral("stream please"));
        QObject::connect(dialog, &Dialog::streamBegan, [&] {
            if (began == 0)
                began = bench::now();
        });
        QObject::connect(dialog, &Dialog::streamDelta, [&](const QString& d) { note(r, d, latency); });
        QObject::connect(dialog, &Dialog::streamReasoning, [&](const QString& d) { note(r, d, latency); });
        QObject::connect(dialog, &Dialog::streamEnded, [&](const QString&) {
            if (--running == 0) {
                r.seconds = bench::now() - began;
                r.firstDelta -= began;
                QCoreApplication::quit();
            }
        });
        QObject::connect(dialog, &Dialog::runFailed, [&](const QString& m) {
            r.failure = m;
            QCoreApplication::quit();
        });
    }
    for (const QString& id : center->getDialogIds())
        center->getDialog(id)->run();
    QCoreApplication::exec();
    return r;
}

// ---- the Qt-native baseline (NativeReader.h) -----------------------------------------------
Result runQt(int port, bool latency, int dialogs)
{
    // One reader, and so one QNetworkAccessManager, per dialog: Qt's six connections per
    // manager and host do not limit it.
    Result r;
    std::vector<std::unique_ptr<NativeReader>> readers;
    double began = 0;
    int running = dialogs;
    for (int i = 0; i < dialogs; ++i) {
        readers.push_back(std::make_unique<NativeReader>(port, api));
        NativeReader* reader = readers.back().get();
        QObject::connect(reader, &NativeReader::streamBegan, [&] {
            if (began == 0)
                began = bench::now();
        });
        QObject::connect(reader, &NativeReader::streamDelta, [&](const QString& d) { note(r, d, latency); });
        QObject::connect(reader, &NativeReader::streamEnded, [&](const QString&) {
            if (--running == 0) {
                r.seconds = bench::now() - began;
                r.firstDelta -= began;
                QCoreApplication::quit();
            }
        });
        QObject::connect(reader, &NativeReader::failed, [&](const QString& m) {
            r.failure = m;
            QCoreApplication::quit();
        });
    }
    for (const auto& reader : readers)
        reader->start();
    QCoreApplication::exec();
    return r;
}

// ---- the bare C ABI ---------------------------------------------------------------------------
struct CabiState
{
    std::mutex mutex;
    std::condition_variable done;
    bool finished = false;
    double began = 0;
    double ended = 0;
    qint64 deltas = 0;
    qint64 bytes = 0;
    std::string failure;
    bool latency = false;
    std::vector<long long> latencies; // ns, server write → callback on the library thread
};

void onCabiEvent(CabiState* s, const ViEvent* event)
{
    switch (event->kind) {
    case VI_EVENT_KIND_STREAM_BEGAN:
        s->began = bench::now();
        break;
    case VI_EVENT_KIND_STREAM_DELTA:
    case VI_EVENT_KIND_STREAM_REASONING:
        ++s->deltas;
        s->bytes += qint64(event->text.len);
        if (s->latency && event->text.len) {
            bool ok = false;
            const long long sent = QByteArray::fromRawData(event->text.data, qsizetype(event->text.len)).toLongLong(&ok);
            if (ok)
                s->latencies.push_back(bench::wallNs() - sent);
        }
        break;
    case VI_EVENT_KIND_STREAM_ENDED:
    case VI_EVENT_KIND_RUN_FAILED: {
        std::lock_guard<std::mutex> lock(s->mutex);
        s->ended = bench::now();
        if (event->kind == VI_EVENT_KIND_RUN_FAILED)
            s->failure.assign(event->text.data, event->text.len);
        s->finished = true;
        s->done.notify_all();
        break;
    }
    default:
        break;
    }
}

void onCabiEvents(void* userData, const ViEvent* events, size_t count)
{
    for (size_t i = 0; i < count; ++i)
        onCabiEvent(static_cast<CabiState*>(userData), &events[i]);
}

#define LIT(s) s, sizeof(s) - 1

Result runCabi(int port, bool latency)
{
    Result r;
    CabiState state;
    state.latency = latency;
    ViCenter* center = nullptr;
    ViModel* model = nullptr;
    ViProvider* provider = nullptr;
    ViDialog* dialog = nullptr;
    const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
    vi_center_new(&center);
    vi_model_new(&model);
    vi_model_set_name(model, LIT("bench-model"));
    vi_model_set_url(model, url.data(), url.size());
    vi_model_set_token(model, LIT("k"));
    vi_model_set_timeout_ms(model, 600000);
    vi_model_set_idle_timeout_ms(model, 60000);
    vi_model_set_api(model, uint32_t(api));
    vi_center_add_model(center, model);
    vi_provider_new(LIT("bench"), &provider);
    const ViStr modelId = vi_model_id(model);
    vi_provider_add_model(provider, modelId.data, modelId.len, 1);
    vi_center_add_provider(center, provider);
    const ViStr providerId = vi_provider_id(provider);
    vi_center_set_default_provider(center, providerId.data, providerId.len);
    vi_center_create_dialog(center, &dialog);
    ViMessage* message = nullptr;
    vi_message_new(1, LIT("stream please"), &message);
    vi_dialog_append_message(dialog, message);
    vi_message_free(message);
    vi_dialog_set_event_callback(dialog, &onCabiEvents, &state, nullptr);
    vi_dialog_run(dialog);
    {
        std::unique_lock<std::mutex> lock(state.mutex);
        state.done.wait(lock, [&] { return state.finished; });
    }
    r.seconds = state.ended - state.began;
    r.deltas = state.deltas;
    r.chars = state.bytes;
    r.failure = QString::fromStdString(state.failure);
    r.latencies = std::move(state.latencies);
    vi_dialog_set_event_callback(dialog, nullptr, nullptr, nullptr);
    vi_dialog_free(dialog);
    vi_provider_free(provider);
    vi_model_free(model);
    vi_center_free(center);
    return r;
}

// ---- the floors: no HTTP client, no JSON, no library -------------------------------------------
// A blocking socket reader that only finds each chunk's send time: `raw` notes it on the
// reading thread (one thread hand-off: server → reader), `rawpost` posts it to the main
// thread's event loop and notes it there (two hand-offs, as any design that reads the
// network off the GUI thread has). Latency only; they show what this machine allows.
Result runRaw(int port, bool post)
{
    Result r;
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(quint16(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
        r.failure = QStringLiteral("cannot connect");
        if (fd >= 0)
            ::close(fd);
        return r;
    }
    const std::string body = R"({"model":"bench-model","stream":true,"messages":[{"role":"user","content":"x"}]})";
    const std::string request = "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                                "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    ::send(fd, request.data(), request.size(), 0);
    std::thread reader([&] {
        const std::string key = "\"content\":\"";
        std::string pending;
        char buffer[65536];
        for (;;) {
            const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
            if (n <= 0)
                break;
            const long long received = bench::wallNs();
            pending.append(buffer, size_t(n));
            size_t at = 0;
            for (;;) {
                const size_t start = pending.find(key, at);
                const size_t end = start == std::string::npos ? start : pending.find('"', start + key.size());
                if (end == std::string::npos)
                    break;
                const long long sent = std::atoll(pending.c_str() + start + key.size());
                at = end;
                if (sent <= 0)
                    continue;
                if (post)
                    QMetaObject::invokeMethod(qApp, [&r, sent] { r.latencies.push_back(bench::wallNs() - sent); ++r.deltas; },
                                              Qt::QueuedConnection);
                else {
                    r.latencies.push_back(received - sent);
                    ++r.deltas;
                }
            }
            const bool done = pending.find("[DONE]") != std::string::npos;
            pending.erase(0, at);
            if (done)
                break;
        }
        QMetaObject::invokeMethod(qApp, [] { QCoreApplication::quit(); }, Qt::QueuedConnection);
    });
    QCoreApplication::exec();
    reader.join();
    ::close(fd);
    return r;
}

long long percentile(std::vector<long long> v, double p)
{
    if (v.empty())
        return -1;
    std::sort(v.begin(), v.end());
    const size_t at = std::min(v.size() - 1, size_t(p * double(v.size() - 1) + 0.5));
    return v[at];
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addOption({QStringLiteral("port"), QStringLiteral("server port"), QStringLiteral("port")});
    parser.addOption({QStringLiteral("impl"), QStringLiteral("ours|qt|cabi|raw|rawpost"), QStringLiteral("impl")});
    parser.addOption({QStringLiteral("case"), QStringLiteral("case name"), QStringLiteral("case")});
    parser.addOption({QStringLiteral("latency"), QStringLiteral("deltas carry send times")});
    parser.addOption({QStringLiteral("api"), QStringLiteral("chat|responses|anthropic|gemini"), QStringLiteral("api")});
    parser.addOption({QStringLiteral("dialogs"), QStringLiteral("streams at once (ours, qt)"), QStringLiteral("n"), QStringLiteral("1")});
    parser.process(app);
    const int dialogs = std::max(1, parser.value(QStringLiteral("dialogs")).toInt());
    const QString apiName = parser.value(QStringLiteral("api"));
    api = apiName == QLatin1String("responses")   ? Model::Api::Responses
          : apiName == QLatin1String("anthropic") ? Model::Api::AnthropicMessages
          : apiName == QLatin1String("gemini")    ? Model::Api::Gemini
                                                  : Model::Api::ChatCompletions;
    const int port = parser.value(QStringLiteral("port")).toInt();
    const QString impl = parser.value(QStringLiteral("impl"));
    const bool latency = parser.isSet(QStringLiteral("latency"));
    Result r;
    if (impl == QLatin1String("ours"))
        r = runOurs(port, latency, dialogs);
    else if (impl == QLatin1String("qt"))
        r = runQt(port, latency, dialogs);
    else if (impl == QLatin1String("raw") || impl == QLatin1String("rawpost"))
        r = runRaw(port, impl == QLatin1String("rawpost"));
    else
        r = runCabi(port, latency);
    std::string extra = "\"deltas\":" + std::to_string(r.deltas) + ",\"chars\":" + std::to_string(r.chars)
                        + ",\"peak_rss_kib\":" + std::to_string(bench::peakRssKiB());
    if (impl == QLatin1String("ours") || impl == QLatin1String("qt"))
        extra += ",\"first_delta_ms\":" + std::to_string(r.firstDelta * 1000);
    if (latency)
        extra += ",\"p50_ns\":" + std::to_string(percentile(r.latencies, 0.50))
                 + ",\"p99_ns\":" + std::to_string(percentile(r.latencies, 0.99))
                 + ",\"p999_ns\":" + std::to_string(percentile(r.latencies, 0.999))
                 + ",\"max_ns\":" + std::to_string(percentile(r.latencies, 1.0));
    if (!r.failure.isEmpty())
        extra += ",\"failure\":" + QJsonDocument(QJsonArray{r.failure}).toJson(QJsonDocument::Compact).toStdString();
    bench::report(parser.value(QStringLiteral("case")).toUtf8().constData(), impl.toUtf8().constData(), r.seconds, extra);
    return r.failure.isEmpty() ? 0 : 1;
}

#include "bench_stream.moc"
