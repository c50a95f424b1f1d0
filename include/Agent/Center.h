// SPDX-License-Identifier: MIT
//
// Visindigo::Agent::Center — the process-wide registry of models, providers, skills, MCP
// servers, prompts, functions and dialogs.
//
// Thread-safe: every member may be called from any thread.
//
// Ownership: functions added with addFunction() belong to the Center (see Function.h).
// Dialogs made by createDialog(), restoreDialog(), cloneDialog() and regenerate() belong to
// the Center too: they have no QObject parent, and the Center deletes them in
// removeDialog(), when restoreDialog()/fromJson() replaces them, and when the process
// exits. Do not delete them yourself. Each such Dialog lives on (has the thread affinity
// of) the thread that called the creating member — the Qt default — and delivers its
// signals there; use QObject::moveToThread() to change that.
#ifndef VISINDIGO_AGENT_CENTER_H
#define VISINDIGO_AGENT_CENTER_H

#include "Export.h"
#include "Dialog.h"
#include "MCP.h"
#include "Model.h"
#include "Prompt.h"
#include "Provider.h"
#include "Skill.h"
#include <Utility/JsonConfig.h>

#include <QtCore/QList>
#include <QtCore/QObject>
#include <QtCore/QString>
#include <QtCore/QStringList>

#include <memory>

namespace Visindigo::Agent {

class Function;
class CenterPrivate;

class VISINDIGO_AGENT_EXPORT Center : public QObject
{
    Q_OBJECT
public:
    static Center* getInstance();

    // ---- models (keyed by id) -----------------------------------------------------------
    // An empty key is ignored; an existing key is replaced.
    Center& addModel(const Model& model);
    Center& removeModel(const QString& id);
    // A default (invalid) Model when unknown.
    Model getModel(const QString& id) const;
    // Sorted by id.
    QList<Model> getModels() const;
    QStringList getModelIds() const;

    // ---- providers (keyed by id) ------------------------------------------------------------
    Center& addProvider(const Provider& provider);
    // Also clears the default provider when it was this id.
    Center& removeProvider(const QString& id);
    Provider getProvider(const QString& id) const;
    QList<Provider> getProviders() const;

    // ---- skills, MCP servers, prompts (keyed by name) ---------------------------------------
    Center& addSkill(const Skill& skill);
    Center& removeSkill(const QString& name);
    Skill getSkill(const QString& name) const;
    QList<Skill> getSkills() const;
    Center& addMCP(const MCP& mcp);
    Center& removeMCP(const QString& name);
    MCP getMCP(const QString& name) const;
    QList<MCP> getMCPs() const;

    // ---- functions (keyed by id; owned) ---------------------------------------------------
    Center& addFunction(Function* function);
    Center& removeFunction(const QString& id);
    // nullptr when unknown.
    Function* getFunction(const QString& id) const;
    QStringList getFunctionIds() const;

    Center& addPrompt(const Prompt& prompt);
    Center& removePrompt(const QString& name);
    Prompt getPrompt(const QString& name) const;
    QList<Prompt> getPrompts() const;

    // Stored unchecked.
    Center& setDefaultProvider(const QString& id);
    QString getDefaultProvider() const;

    // ---- dialogs (keyed by id; owned, see above) --------------------------------------------
    Dialog* createDialog();
    // Registers a dialog read from json; one with the same id is replaced and deleted.
    // nullptr when json is not an object.
    Dialog* restoreDialog(const Visindigo::Utility::JsonConfig& json);
    // An empty JsonConfig for nullptr.
    Visindigo::Utility::JsonConfig saveDialog(const Dialog* dialog) const;
    // Unregisters and deletes the dialog (its run is aborted).
    void removeDialog(const QString& id);
    // nullptr when unknown.
    Dialog* getDialog(const QString& id) const;
    QStringList getDialogIds() const;
    // A registered copy (new id, branch-from id = dialogId; functions not copied);
    // nullptr when unknown.
    Dialog* cloneDialog(const QString& dialogId);
    // The clone without the last assistant message and what follows, already running;
    // nullptr when unknown.
    Dialog* regenerate(const QString& dialogId);

    // models, providers, skills, mcps, prompts, defaultProviderId, dialogs (tokens included).
    Visindigo::Utility::JsonConfig toJson() const;
    // An empty object: false, nothing changes. Otherwise replaces everything but the
    // functions, deletes the old dialogs and restores the saved ones; true.
    bool fromJson(const Visindigo::Utility::JsonConfig& json);

Q_SIGNALS:
    // Extensions (SPEC §H.5.2), for lists of conversations (DialogListModel). Whoever
    // changed the registry — any thread, the C ABI — these are queued to the Center's
    // thread (the one that first called getInstance()) and need its event loop; by then
    // getDialog(id) finds the Dialog (or nullptr if it is gone again).
    // Registered: createDialog, restoreDialog, cloneDialog, regenerate.
    void dialogAdded(const QString& id);
    // Unregistered: removeDialog, or replaced by restoreDialog under the same id (then
    // dialogAdded(id) follows).
    void dialogRemoved(const QString& id);
    // fromJson() replaced every dialog: read getDialogIds() again.
    void dialogsReset();

private:
    Center();
    ~Center() override;
    Q_DISABLE_COPY_MOVE(Center)

    std::unique_ptr<CenterPrivate> d;
};

} // namespace Visindigo::Agent

#endif // VISINDIGO_AGENT_CENTER_H
