// SPDX-License-Identifier: MIT
//
// A streamed answer shown in a QListView (SPEC §H.5, issue 13): how responsive the GUI thread
// stays while the deltas arrive (benches/run.py starts the scripted server and sets the script).
//
//   bench_view --port P --impl ours|qt --case NAME
//
//   ours  Dialog::run() with a MessageModel in the view: the answer in progress is one row,
//         its dataChanged coalesced to one per event-loop pass.
//   qt    the plain way: the Qt-native reader (NativeReader.h) and a QStandardItemModel whose
//         answer item gets setText() per delta.
//
// Both views are shown (offscreen platform) and paint what changes. A 1 ms precise timer
// probes the event loop during the stream: how late each tick fires is the latency a user's
// click or keystroke would see. Reported: its p50 / p99 / max (µs), the time streamBegan →
// streamEnded, and how many dataChanged the view received.
#include "NativeReader.h"
#include "bench_common.h"

#include <Agent/Center.h>
#include <Agent/Dialog.h>
#include <Agent/MessageModel.h>
#include <Agent/Model.h>
#include <Agent/Provider.h>

#include <QtCore/QCommandLineParser>
#include <QtCore/QElapsedTimer>
#include <QtCore/QTimer>
#include <QtGui/QStandardItemModel>
#include <QtWidgets/QApplication>
#include <QtWidgets/QListView>

#include <algorithm>
#include <string>
#include <vector>

using namespace Visindigo::Agent;

namespace {

struct Probe
{
    QTimer timer;
    QElapsedTimer clock;
    qint64 last = 0;
    bool on = false;
    std::vector<qint64> lateness; // µs past the 1 ms interval

    Probe()
    {
        timer.setTimerType(Qt::PreciseTimer);
        timer.setInterval(1);
        QObject::connect(&timer, &QTimer::timeout, [this] {
            const qint64 t = clock.nsecsElapsed() / 1000;
            if (on)
                lateness.push_back(std::max<qint64>(0, t - last - 1000));
            last = t;
        });
        clock.start();
        timer.start();
    }
    void begin()
    {
        last = clock.nsecsElapsed() / 1000;
        on = true;
    }
    void end() { on = false; }
};

qint64 percentile(std::vector<qint64> v, double p)
{
    if (v.empty())
        return -1;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, size_t(p * double(v.size() - 1) + 0.5))];
}

struct Result
{
    double seconds = 0;
    qint64 changes = 0;
    qint64 chars = 0;
    QString failure;
};

Result runOurs(int port, QListView& view, Probe& probe)
{
    Result r;
    Center* center = Center::getInstance();
    Model model;
    model.setName(QStringLiteral("bench-model"))
        .setUrl(QUrl(QStringLiteral("http://127.0.0.1:%1/v1").arg(port)))
        .setToken(QStringLiteral("k"));
    center->addModel(model);
    Provider provider(QStringLiteral("bench"));
    provider.addModel(model.getId(), 1);
    center->addProvider(provider);
    Dialog* dialog = center->createDialog();
    dialog->setProviderId(provider.getId());
    dialog->appendMessage(Message::Role::User, QStringLiteral("stream please"));
    MessageModel messages;
    view.setModel(&messages);
    messages.setDialog(dialog);
    QObject::connect(&messages, &QAbstractItemModel::dataChanged, [&] { ++r.changes; });
    double began = 0;
    QObject::connect(dialog, &Dialog::streamBegan, [&] {
        began = bench::now();
        probe.begin();
    });
    QObject::connect(dialog, &Dialog::streamEnded, [&](const QString& content) {
        r.seconds = bench::now() - began;
        r.chars = content.size();
        probe.end();
        QTimer::singleShot(0, qApp, &QCoreApplication::quit); // after the view took the last row
    });
    QObject::connect(dialog, &Dialog::runFailed, [&](const QString& m) {
        r.failure = m;
        QCoreApplication::quit();
    });
    dialog->run();
    QApplication::exec();
    view.setModel(nullptr);
    return r;
}

Result runQt(int port, QListView& view, Probe& probe)
{
    Result r;
    QStandardItemModel items;
    items.appendRow(new QStandardItem(QStringLiteral("stream please")));
    view.setModel(&items);
    QObject::connect(&items, &QAbstractItemModel::dataChanged, [&] { ++r.changes; });
    NativeReader reader(port, Model::Api::ChatCompletions);
    QStandardItem* answer = nullptr;
    double began = 0;
    QObject::connect(&reader, &NativeReader::streamBegan, [&] {
        began = bench::now();
        probe.begin();
        answer = new QStandardItem;
        items.appendRow(answer);
    });
    QObject::connect(&reader, &NativeReader::streamDelta, [&](const QString& delta) { answer->setText(answer->text() + delta); });
    QObject::connect(&reader, &NativeReader::streamEnded, [&](const QString& content) {
        r.seconds = bench::now() - began;
        r.chars = content.size();
        probe.end();
        QTimer::singleShot(0, qApp, &QCoreApplication::quit);
    });
    QObject::connect(&reader, &NativeReader::failed, [&](const QString& m) {
        r.failure = m;
        QCoreApplication::quit();
    });
    reader.start();
    QApplication::exec();
    view.setModel(nullptr);
    return r;
}

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addOption({QStringLiteral("port"), QStringLiteral("server port"), QStringLiteral("port")});
    parser.addOption({QStringLiteral("impl"), QStringLiteral("ours|qt"), QStringLiteral("impl")});
    parser.addOption({QStringLiteral("case"), QStringLiteral("case name"), QStringLiteral("case")});
    parser.process(app);
    const int port = parser.value(QStringLiteral("port")).toInt();
    const QString impl = parser.value(QStringLiteral("impl"));
    QListView view;
    view.setWordWrap(true);
    view.resize(600, 800);
    view.show();
    Probe probe;
    const Result r = impl == QLatin1String("ours") ? runOurs(port, view, probe) : runQt(port, view, probe);
    std::string extra = "\"chars\":" + std::to_string(r.chars) + ",\"data_changed\":" + std::to_string(r.changes)
                        + ",\"ticks\":" + std::to_string(probe.lateness.size())
                        + ",\"late_p50_us\":" + std::to_string(percentile(probe.lateness, 0.50))
                        + ",\"late_p99_us\":" + std::to_string(percentile(probe.lateness, 0.99))
                        + ",\"late_max_us\":" + std::to_string(percentile(probe.lateness, 1.0));
    if (!r.failure.isEmpty())
        extra += ",\"failure\":\"" + r.failure.toStdString() + "\"";
    bench::report(parser.value(QStringLiteral("case")).toUtf8().constData(), impl.toUtf8().constData(), r.seconds, extra);
    return r.failure.isEmpty() ? 0 : 1;
}
