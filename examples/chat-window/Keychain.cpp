// SPDX-License-Identifier: MIT
#include "Keychain.h"

#ifdef VI_HAVE_QTKEYCHAIN
#include <QtCore/QCoreApplication>
#include <QtCore/QEventLoop>
#include <qt6keychain/keychain.h>
#endif

namespace Keychain {

namespace {

#ifdef VI_HAVE_QTKEYCHAIN
// Starts `job` and waits for its `finished` signal (QtKeychain emits it for every outcome).
Result run(QKeychain::Job& job)
{
    job.setAutoDelete(false);
    QEventLoop loop;
    QObject::connect(&job, &QKeychain::Job::finished, &loop, &QEventLoop::quit);
    job.start();
    loop.exec();
    Result result;
    switch (job.error()) {
    case QKeychain::NoError:
        result.status = Result::Ok;
        break;
    case QKeychain::EntryNotFound:
        result.status = Result::NotFound;
        break;
    default:
        result.status = Result::Failed;
        // QtKeychain's text names the cause (no D-Bus session, no secret service, locked, …).
        result.error = job.errorString().isEmpty() ? QStringLiteral("error %1").arg(int(job.error())) : job.errorString();
        break;
    }
    return result;
}

QString service()
{
    return QCoreApplication::applicationName();
}
#endif

} // namespace

bool built()
{
#ifdef VI_HAVE_QTKEYCHAIN
    return true;
#else
    return false;
#endif
}

Result read(const QString& key)
{
#ifdef VI_HAVE_QTKEYCHAIN
    QKeychain::ReadPasswordJob job(service());
    job.setKey(key);
    Result result = run(job);
    if (result.status == Result::Ok)
        result.data = job.textData().toUtf8();
    return result;
#else
    Q_UNUSED(key)
    return {Result::Failed, {}, QStringLiteral("this build has no QtKeychain")};
#endif
}

Result write(const QString& key, const QByteArray& data)
{
#ifdef VI_HAVE_QTKEYCHAIN
    QKeychain::WritePasswordJob job(service());
    job.setKey(key);
    // As text (JSON), so that the entry reads plainly in a keychain manager such as Seahorse.
    job.setTextData(QString::fromUtf8(data));
    return run(job);
#else
    Q_UNUSED(key)
    Q_UNUSED(data)
    return {Result::Failed, {}, QStringLiteral("this build has no QtKeychain")};
#endif
}

} // namespace Keychain
