// SPDX-License-Identifier: MIT
//
// Records every signal of a Dialog as a short text, in order, and checks that each arrives on
// the recorder's (the dialog's) thread: the tests compare these logs to the documented
// signal orders (SPEC §D.1, §H.3).
#ifndef VI_TESTS_SIGNAL_RECORDER_H
#define VI_TESTS_SIGNAL_RECORDER_H

#include <Agent/Dialog.h>

#include <QtCore/QObject>
#include <QtCore/QStringList>
#include <QtCore/QThread>

class SignalRecorder : public QObject
{
public:
    explicit SignalRecorder(Visindigo::Agent::Dialog* dialog)
    {
        using Visindigo::Agent::Dialog;
        connect(dialog, &Dialog::messageAppended, this, [this](qint32 i) { add(QStringLiteral("appended:%1").arg(i)); });
        connect(dialog, &Dialog::streamBegan, this, [this] { add(QStringLiteral("began")); });
        connect(dialog, &Dialog::streamDelta, this, [this](const QString& t) { add(QStringLiteral("delta:") + t); });
        connect(dialog, &Dialog::streamReasoning, this, [this](const QString& t) { add(QStringLiteral("reasoning:") + t); });
        connect(dialog, &Dialog::streamEnded, this, [this](const QString& t) {
            add(QStringLiteral("ended:") + t);
            ++ended;
        });
        connect(dialog, &Dialog::runFailed, this, [this](const QString& t) {
            add(QStringLiteral("failed:") + t);
            ++failed;
        });
        connect(dialog, &Dialog::modelFallback, this, [this](const QString& from, const QString& to, const QString&) {
            add(QStringLiteral("fallback:%1>%2").arg(from, to));
        });
        connect(dialog, &Dialog::runFinished, this, [this] {
            add(QStringLiteral("runFinished"));
            ++finished;
        });
        connect(dialog, &Dialog::toolApprovalRequested, this, [this](const QString& id, const QString& tool, const QString& args) {
            add(QStringLiteral("approval:%1:%2:%3").arg(id, tool, args));
        });
        connect(dialog, &Dialog::toolCallStarted, this, [this](const QString& id, const QString& tool, const QString&) {
            add(QStringLiteral("toolStarted:%1:%2").arg(id, tool));
        });
        connect(dialog, &Dialog::toolCallFinished, this, [this](const QString& id, const QString&, const QString& result) {
            add(QStringLiteral("toolFinished:%1:%2").arg(id, result));
        });
    }
    void add(const QString& entry)
    {
        if (QThread::currentThread() != thread())
            wrongThread = true;
        log << entry;
    }
    QStringList log;
    int ended = 0;
    int failed = 0;
    int finished = 0;
    bool wrongThread = false;
};

#endif // VI_TESTS_SIGNAL_RECORDER_H
