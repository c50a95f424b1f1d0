// SPDX-License-Identifier: MIT
//
// The chat window's state outside the window: the whole Center, saved to
// QStandardPaths::AppDataLocation on quit and restored at start, and the model answers come
// from — the one set in the settings dialog, or, with none, the offline demo.
#ifndef VI_CHAT_WINDOW_WORKSPACE_H
#define VI_CHAT_WINDOW_WORKSPACE_H

#include "../common/OfflineDemo.h"

#include <Agent/Model.h>

#include <QtCore/QString>

class Workspace
{
public:
    // Restores the saved Center (a missing file is a first start) and chooses the model; false
    // with `error` set when the saved file is unreadable or the demo server does not start.
    bool open(QString* error);
    // The whole Center as JSON (tokens included: the file is the user's own).
    bool save(QString* error) const;

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
};

#endif // VI_CHAT_WINDOW_WORKSPACE_H
