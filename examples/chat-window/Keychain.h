// SPDX-License-Identifier: MIT
//
// The chat window's one entry in the system keychain (SPEC §I.5.2), through QtKeychain when the
// build found it (VI_HAVE_QTKEYCHAIN; CMake option VISINDIGO_AGENT_KEYCHAIN). QtKeychain's jobs
// are asynchronous; each call here starts one and waits for its `finished` signal in a local
// event loop, because its callers need the answer before they go on: Workspace::open() before
// the window exists, Workspace::save() on quit after the application's loop has ended, and after
// the settings dialog (where the wait is a keychain round trip, or the user unlocking it).
#ifndef VI_CHAT_WINDOW_KEYCHAIN_H
#define VI_CHAT_WINDOW_KEYCHAIN_H

#include <QtCore/QByteArray>
#include <QtCore/QString>

namespace Keychain {

struct Result
{
    enum Status {
        Ok,       // written, or read into `data`
        NotFound, // a read of an entry that does not exist (nothing saved there yet)
        Failed,   // no keychain service, locked and not unlocked, access denied, …: see `error`
    };
    Status status = Failed;
    QByteArray data;
    QString error;
};

// Whether this build has QtKeychain; without it every call fails, saying so.
bool built();
// The entry `key` of the service "<application name>" (one entry per saved file).
Result read(const QString& key);
Result write(const QString& key, const QByteArray& data);

} // namespace Keychain

#endif // VI_CHAT_WINDOW_KEYCHAIN_H
