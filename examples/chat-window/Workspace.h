// SPDX-License-Identifier: MIT
//
// The chat window's state outside the window: the whole Center, saved to
// QStandardPaths::AppDataLocation on quit and restored at start, and the model answers come
// from — the one set in the settings dialog, or, with none, the offline demo.
//
// Its secrets (SPEC §I.5.2) — the models' tokens and the MCP headers that carry credentials —
// go to the system keychain when the build has QtKeychain and the keychain answers: the file
// then holds Center::toJson(Center::Secrets::Omit), and one keychain entry (Keychain.h) holds
// the secrets that document leaves out, as one JSON object. Otherwise the file holds the whole
// Center, tokens included, readable by its owner only (0600), and tokenNote() warns.
#ifndef VI_CHAT_WINDOW_WORKSPACE_H
#define VI_CHAT_WINDOW_WORKSPACE_H

#include "../common/OfflineDemo.h"

#include <Agent/Model.h>

#include <QtCore/QString>

class Workspace
{
public:
    // Restores the saved Center (a missing file is a first start) with its secrets from the
    // keychain (a token in the file wins: it is newer, written when the keychain failed) and
    // chooses the model; false with `error` set when the saved file is unreadable or the demo
    // server does not start. A keychain that cannot be read leaves its tokens out, says so in
    // tokenNote() and is not overwritten by save() with less than it holds. A file that holds
    // tokens is made readable by its owner only at once.
    bool open(QString* error);
    // Saves the Center: the secretless document to the file and the secrets to the keychain,
    // or — without a keychain, or when writing it fails — the whole Center to the file. The
    // file is written with permissions 0600 either way.
    bool save(QString* error);

    enum class TokenStore {
        Keychain, // the last save (or read) used the keychain, or nothing was saved yet
        File,     // the tokens are in the file: no QtKeychain, or the keychain failed
    };
    TokenStore tokenStore() const { return store; }
    // Where the tokens are kept, for the settings dialog.
    QString tokenNote() const { return note; }
    // What the status bar warns about the tokens (empty: nothing): kept in the file and why,
    // or not found in the keychain.
    QString tokenWarning() const { return warning; }

    bool isDemo() const { return demo; }
    // What the status bar says answers come from.
    QString describe() const;
    // The model of the settings dialog; a blank one (its fixed id) before the first setup.
    Visindigo::Agent::Model configuredModel() const;
    // Makes `model` (from the settings dialog) the one answers come from.
    void configure(Visindigo::Agent::Model model);

    static QString storagePath();

private:
    // The provider every dialog uses (the Center's default), holding just `modelId`.
    void useModel(const QString& modelId);

    OfflineDemo offline;
    bool demo = false;
    TokenStore store = TokenStore::Keychain;
    QString note;
    QString warning;
    // The keychain entry could not be read at open(): save() reads it again before writing it,
    // so that the tokens still in it are kept.
    bool unreadSecrets = false;
};

#endif // VI_CHAT_WINDOW_WORKSPACE_H
