// chat — a Qt console chat over Visindigo::Agent, the README's first command.
//
//   chat [--model model.json] [--history file.json] [--once "question"] [--approve]
//
// --once: exit 1 if it failed. --approve: ask before each tool call ("run get_current_time?
// [y/N]", answered by the next input line). Ctrl-C during an answer stops it and keeps what was
// said (Dialog::stop); at the prompt it quits.
//
// The endpoint comes from a model JSON in the native Model::toJson() format (--model), else
// from OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL. With neither, it runs an offline demo
// against the project's scripted server (a local process replaying a script, not a model) and
// says so. Answers stream to the terminal as they arrive, reasoning dimmed; one built-in tool
// tells the time, so tool calls are visible; the conversation is kept in --history between runs.

#include "../common/Clock.h"
#include "../common/OfflineDemo.h"

#include <Agent/Center.h>
#include <Agent/Dialog.h>
#include <Agent/Model.h>
#include <Agent/Provider.h>
#include <Utility/JsonConfig.h>

#include <QtCore/QCommandLineParser>
#include <QtCore/QCoreApplication>
#include <QtCore/QFile>
#include <QtCore/QSocketNotifier>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <utility>
#include <sys/socket.h>
#include <unistd.h>

using Visindigo::Agent::Center;
using Visindigo::Agent::Dialog;
using Visindigo::Agent::Message;
using Visindigo::Agent::Model;
using Visindigo::Agent::Provider;
using Visindigo::Utility::JsonConfig;

namespace {

const char* const kDim = "\033[2m";
const char* const kReset = "\033[0m";

void out(const QString& text)
{
    const QByteArray bytes = text.toUtf8();
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stdout);
    std::fflush(stdout);
}

// Ctrl-C reaches the event loop through a socket pair: a signal handler may only write().
int sigintPipe[2] = {-1, -1};

void onSigint(int)
{
    const char byte = 1;
    [[maybe_unused]] const ssize_t written = ::write(sigintPipe[0], &byte, 1);
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("chat"));
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("A console chat over Visindigo::Agent."));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("model"), QStringLiteral("Model JSON (Model::toJson format)."), QStringLiteral("file")});
    parser.addOption({QStringLiteral("history"), QStringLiteral("Conversation file."), QStringLiteral("file"),
                      QStringLiteral("chat-history.json")});
    parser.addOption({QStringLiteral("once"), QStringLiteral("Ask one question and exit."), QStringLiteral("question")});
    parser.addOption({QStringLiteral("approve"), QStringLiteral("Ask before each tool call.")});
    parser.process(app);

    Model model;
    OfflineDemo offlineDemo;
    bool demo = false;
    if (parser.isSet(QStringLiteral("model"))) {
        QFile file(parser.value(QStringLiteral("model")));
        if (!file.open(QIODevice::ReadOnly)) {
            out(QStringLiteral("Cannot read %1: %2\n").arg(file.fileName(), file.errorString()));
            return 2;
        }
        model.fromJson(JsonConfig(QString::fromUtf8(file.readAll())));
    } else if (qEnvironmentVariableIsSet("OPENAI_BASE_URL")) {
        model.setName(qEnvironmentVariable("OPENAI_MODEL", QStringLiteral("gpt-4o-mini")))
            .setUrl(QUrl(qEnvironmentVariable("OPENAI_BASE_URL")))
            .setToken(qEnvironmentVariable("OPENAI_API_KEY"));
    } else {
        demo = true;
        const QString base = offlineDemo.start();
        if (base.isEmpty()) {
            out(QStringLiteral("No endpoint configured and the offline demo server did not start.\n"));
            return 2;
        }
        model.setName(QStringLiteral("offline-demo")).setUrl(QUrl(base)).setToken(QStringLiteral("demo"));
        out(QStringLiteral("[offline demo] No endpoint configured (OPENAI_BASE_URL / --model): answers come "
                           "from a scripted local server, not a model.\n"));
    }
    model.addCapability(Model::Capability::ToolUse);
    if (!model.isValid()) {
        out(QStringLiteral("The model needs a name, a url with a scheme and a token.\n"));
        return 2;
    }

    Center* center = Center::getInstance();
    center->addModel(model);
    Provider provider(QStringLiteral("chat"));
    provider.addModel(model.getId());
    center->addProvider(provider);
    center->setDefaultProvider(provider.getId());
    center->addFunction(new Clock);

    const QString historyPath = parser.value(QStringLiteral("history"));
    Dialog* dialog = nullptr;
    QFile history(historyPath);
    if (!demo && history.open(QIODevice::ReadOnly))
        dialog = center->restoreDialog(JsonConfig(QString::fromUtf8(history.readAll())));
    if (!dialog)
        dialog = center->createDialog();
    if (dialog->getMessageCount() > 0)
        out(QStringLiteral("(%1 earlier messages from %2)\n").arg(dialog->getMessageCount()).arg(historyPath));

    auto save = [&] {
        if (demo)
            return; // the demo's answers are not worth keeping
        QFile file(historyPath);
        if (file.open(QIODevice::WriteOnly | QIODevice::Truncate))
            file.write(center->saveDialog(dialog).toString(QJsonDocument::Indented).toUtf8());
    };
    // Lines typed (or piped) while an answer streams wait their turn; at the end of input the
    // chat quits once the last answer is complete. With --approve, the first line that waits
    // when a tool call asks for approval is its answer.
    QStringList pending;
    bool inputClosed = parser.isSet(QStringLiteral("once"));
    if (inputClosed)
        pending << parser.value(QStringLiteral("once"));
    const bool approve = parser.isSet(QStringLiteral("approve"));
    dialog->setToolApproval(approve);
    QStringList approvals; // call ids waiting for a y/N line, oldest first
    bool stdinOpen = true;
    bool inReasoning = false;
    // From run() until that run's runFinished(): isStreaming() turns false inside stop(), but
    // runFinished() may still be queued then, and the next line must wait for it.
    bool running = false;
    // With --once, the exit status says whether the question was answered: 1 after a failure.
    bool failed = false;

    auto askNext = [&] {
        while (!pending.isEmpty()) {
            const QString text = pending.takeFirst();
            if (text.trimmed().isEmpty())
                continue;
            if (!parser.isSet(QStringLiteral("once")) && !isatty(STDIN_FILENO))
                out(QStringLiteral("you> ") + text + QStringLiteral("\n")); // piped input: show it
            dialog->appendMessage(Message::Role::User, text);
            running = true;
            dialog->run();
            return;
        }
        if (inputClosed || !stdinOpen)
            QCoreApplication::exit(failed ? 1 : 0);
        else if (isatty(STDIN_FILENO))
            out(QStringLiteral("\nyou> "));
    };
    // Answers the oldest waiting approval with `line` (y/yes approves).
    auto decide = [&](const QString& line) {
        const QString callId = approvals.takeFirst();
        const QString answer = line.trimmed().toLower();
        if (!isatty(STDIN_FILENO))
            out(line + QStringLiteral("\n")); // piped input: show it
        if (answer == QLatin1String("y") || answer == QLatin1String("yes"))
            dialog->approveToolCall(callId);
        else
            dialog->rejectToolCall(callId, QStringLiteral("the user said no"));
    };

    QObject::connect(dialog, &Dialog::streamBegan, [&] { out(QStringLiteral("model> ")); });
    QObject::connect(dialog, &Dialog::streamReasoning, [&](const QString& delta) {
        out(QString::fromLatin1(kDim) + delta + QString::fromLatin1(kReset));
        inReasoning = true;
    });
    QObject::connect(dialog, &Dialog::streamDelta, [&](const QString& delta) {
        if (inReasoning) {
            out(QStringLiteral("\n"));
            inReasoning = false;
        }
        out(delta);
    });
    QObject::connect(dialog, &Dialog::messageAppended, [&](qint32 index) {
        const Message m = dialog->getMessages().value(index);
        if (m.getRole() == Message::Role::Tool)
            out(QStringLiteral("\n  [tool %1 → %2]\n").arg(m.getName(), m.getContent()));
    });
    QObject::connect(dialog, &Dialog::toolApprovalRequested, [&](const QString& callId, const QString& tool, const QString&) {
        out(QStringLiteral("\n  run %1? [y/N] ").arg(tool));
        approvals << callId;
        if (!pending.isEmpty())
            decide(pending.takeFirst());
        else if (!stdinOpen)
            dialog->rejectToolCall(approvals.takeFirst(), QStringLiteral("no answer (end of input)"));
    });
    QObject::connect(dialog, &Dialog::modelFallback, [&](const QString& from, const QString& to, const QString& why) {
        out(QStringLiteral("\n  [model %1 failed (%2); trying %3]\n").arg(from, why, to));
    });
    QObject::connect(dialog, &Dialog::retrying, [&](qint32 attempt, qint32 delayMs, const QString& why) {
        out(QStringLiteral("\n  [every model failed (%1); retry %2 in %3 ms]\n").arg(why).arg(attempt).arg(delayMs));
    });
    QObject::connect(dialog, &Dialog::runFailed, [&](const QString& message) {
        out(QStringLiteral("\n  [failed: %1]").arg(message));
        failed = failed || parser.isSet(QStringLiteral("once"));
    });
    QObject::connect(dialog, &Dialog::runFinished, [&] {
        running = false;
        approvals.clear();
        out(QStringLiteral("\n"));
        save();
        askNext();
    });

    // Ctrl-C: stop the answer in progress, keeping it; at the prompt, quit.
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, sigintPipe) == 0)
        std::signal(SIGINT, onSigint);
    QSocketNotifier interrupt(sigintPipe[1], QSocketNotifier::Read);
    QObject::connect(&interrupt, &QSocketNotifier::activated, [&] {
        char byte;
        [[maybe_unused]] const ssize_t read = ::read(sigintPipe[1], &byte, 1);
        if (running) {
            if (dialog->isStreaming()) {
                out(QStringLiteral("\n  [stopped]"));
                dialog->stop(); // runFinished follows: saved, next question
            }
        } else {
            out(QStringLiteral("\n"));
            QCoreApplication::exit(130);
        }
    });

    // Standard input is read from its descriptor, not through QTextStream(stdin): after a
    // Ctrl-C interrupted the event loop's poll(), errno stays EINTR, and Qt's FILE* reader
    // retries fgetc() at end of input for as long as errno says EINTR — forever.
    QSocketNotifier input(STDIN_FILENO, QSocketNotifier::Read);
    QByteArray unread; // bytes of a line not complete yet
    // A line without its end ("\n" or "\r\n"), as QTextStream::readLine gave it.
    auto text = [](QByteArray bytes) {
        if (bytes.endsWith('\r'))
            bytes.chop(1);
        return QString::fromUtf8(bytes);
    };
    auto onLine = [&](const QString& line) {
        if (!approvals.isEmpty()) {
            decide(line);
            return;
        }
        pending << line;
        if (!running && !inputClosed)
            askNext();
    };
    auto onEnd = [&] {
        input.setEnabled(false);
        stdinOpen = false;
        inputClosed = true;
        if (!approvals.isEmpty())
            dialog->rejectToolCall(approvals.takeFirst(), QStringLiteral("no answer (end of input)"));
        if (!running)
            askNext();
    };
    QObject::connect(&input, &QSocketNotifier::activated, [&] {
        char buffer[4096];
        const ssize_t got = ::read(STDIN_FILENO, buffer, sizeof buffer);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            return; // the notifier comes again
        if (got > 0)
            unread.append(buffer, qsizetype(got));
        for (qsizetype end; (end = unread.indexOf('\n')) >= 0; unread.remove(0, end + 1))
            onLine(text(unread.left(end)));
        if (got <= 0) { // end of input (or an error reading it): a last unterminated line counts
            if (!unread.isEmpty())
                onLine(text(std::exchange(unread, {})));
            onEnd();
        }
    });
    if (inputClosed) {
        // --once: standard input only answers approvals.
        input.setEnabled(approve);
        stdinOpen = approve;
        askNext();
    } else {
        out(QStringLiteral("Type a message and press Enter (Ctrl-D quits, Ctrl-C stops an answer).\n"));
        if (isatty(STDIN_FILENO))
            out(QStringLiteral("you> "));
    }
    return app.exec();
}
