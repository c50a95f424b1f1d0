// SPDX-License-Identifier: MIT
//
/// \class Visindigo::Agent::Center
/// The process-wide registry of models, providers, skills, MCP
/// servers, prompts, functions and dialogs.
///
/// Thread-safe: every member may be called from any thread.
///
/// Ownership: functions added with addFunction() belong to the Center (see Function.h).
/// Dialogs made by createDialog(), restoreDialog(), cloneDialog() and regenerate() belong to
/// the Center too: they have no QObject parent, and the Center deletes them in
/// removeDialog(), when restoreDialog()/fromJson() replaces them, and when the process
/// exits. Do not delete them yourself. Each such Dialog lives on (has the thread affinity
/// of) the thread that called the creating member — the Qt default — and delivers its
/// signals there; use QObject::moveToThread() to change that.
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

#include <functional>
#include <memory>

namespace Visindigo::Agent {

class Function;
class CenterPrivate;

class VISINDIGO_AGENT_EXPORT Center : public QObject
{
    Q_OBJECT
public:
    /// The process-wide Center, made on first use; that thread is the Center's thread.
    static Center* getInstance();

    /// \name Models (keyed by id)
    //@{
    /// Registers a copy of `model` under its id; an empty id is ignored, an existing one replaced.
    Center& addModel(const Model& model);
    /// Unregisters model `id` (unknown: nothing happens).
    Center& removeModel(const QString& id);
    /// A copy of model `id`; a default (invalid) Model when unknown.
    Model getModel(const QString& id) const;
    /// Every model, sorted by id.
    QList<Model> getModels() const;
    /// Every model id, sorted.
    QStringList getModelIds() const;
    //@}

    /// \name Providers (keyed by id)
    //@{
    /// Registers a copy of `provider` under its id; an empty id is ignored, an existing one replaced.
    Center& addProvider(const Provider& provider);
    /// Unregisters provider `id`; also clears the default provider when it was this id.
    Center& removeProvider(const QString& id);
    /// A copy of provider `id`; a default (invalid) Provider when unknown.
    Provider getProvider(const QString& id) const;
    /// Every provider, sorted by id.
    QList<Provider> getProviders() const;
    /// Makes `id` the provider of dialogs that name none; stored unchecked.
    Center& setDefaultProvider(const QString& id);
    /// The default provider's id ("" for none).
    QString getDefaultProvider() const;
    //@}

    /// \name Skills, MCP servers and prompts (keyed by name)
    //@{
    /// Registers a copy of `skill` under its name; an empty name is ignored, an existing one replaced.
    Center& addSkill(const Skill& skill);
    /// Unregisters skill `name`.
    Center& removeSkill(const QString& name);
    /// A copy of skill `name`; a default Skill when unknown.
    Skill getSkill(const QString& name) const;
    /// Every skill, sorted by name.
    QList<Skill> getSkills() const;
    /// Registers a copy of `mcp` under its name; an empty name is ignored, an existing one
    /// replaced (its running server is stopped when the configuration changed).
    Center& addMCP(const MCP& mcp);
    /// Unregisters MCP server `name` and stops its process or connection.
    Center& removeMCP(const QString& name);
    /// A copy of MCP server `name`; a default MCP when unknown.
    MCP getMCP(const QString& name) const;
    /// Every MCP server, sorted by name.
    QList<MCP> getMCPs() const;
    /// What MCP server `serverName` speaks while connected (SPEC §I.3.1):
    /// `{protocolVersion, serverInfo, capabilities}` — "2026-07-28" for a server that answered
    /// `server/discover`, the version `initialize` agreed on otherwise; empty while it is not
    /// connected (before its first use, after it stopped) or when no entry has that name.
    Visindigo::Utility::JsonConfig getMCPServerInfo(const QString& serverName) const;
    /// Registers a copy of `prompt` under its name; an empty name is ignored, an existing one replaced.
    Center& addPrompt(const Prompt& prompt);
    /// Unregisters prompt `name`.
    Center& removePrompt(const QString& name);
    /// A copy of prompt `name`; a default Prompt when unknown.
    Prompt getPrompt(const QString& name) const;
    /// Every prompt, sorted by name.
    QList<Prompt> getPrompts() const;
    //@}

    /// \name Functions (keyed by id; owned)
    //@{
    /// Takes ownership of `function` (see Function.h) and registers it under its id; one with
    /// the same id is replaced and deleted.
    Center& addFunction(Function* function);
    /// Unregisters and deletes function `id` (once no run is calling it).
    Center& removeFunction(const QString& id);
    /// Function `id`; nullptr when unknown.
    Function* getFunction(const QString& id) const;
    /// Every function id, sorted.
    QStringList getFunctionIds() const;
    //@}

    /// \name Dialogs (keyed by id; owned, see the class description)
    //@{
    /// A new dialog (fresh id), registered; it lives on the calling thread.
    Dialog* createDialog();
    /// Registers a dialog read from `json` (Dialog::toJson() format); one with the same id
    /// is replaced and deleted. nullptr when json is not an object.
    Dialog* restoreDialog(const Visindigo::Utility::JsonConfig& json);
    /// `dialog`'s Dialog::toJson(); an empty JsonConfig for nullptr.
    Visindigo::Utility::JsonConfig saveDialog(const Dialog* dialog) const;
    /// Unregisters and deletes the dialog (its run is aborted).
    void removeDialog(const QString& id);
    /// Dialog `id`; nullptr when unknown.
    Dialog* getDialog(const QString& id) const;
    /// Every dialog id, sorted.
    QStringList getDialogIds() const;
    /// A registered copy of dialog `dialogId` (new id, branch-from id = dialogId; messages,
    /// skills, MCP servers, prompts, provider, model and settings copied, functions not);
    /// nullptr when unknown.
    Dialog* cloneDialog(const QString& dialogId);
    /// A clone of dialog `dialogId` without its last assistant message and what follows,
    /// already running (the original stays); nullptr when unknown.
    Dialog* regenerate(const QString& dialogId);
    //@}

    /// \name MCP requests of the application (SPEC §H.4.4)
    //@{
    /// Sends request `method` with `params` (a JSON object; an empty JsonConfig for none) to
    /// the registered MCP server `serverName` — `resources/list`, `resources/read`,
    /// `resources/templates/list`, `resources/subscribe`, `prompts/list`, `prompts/get`,
    /// `completion/complete`, … — over the pooled connection the runs use, connecting it if
    /// needed. `callback` runs once on `context`'s thread (the Center's when `context` is
    /// nullptr) with the request's `result` and an empty `error`, or an empty result and the
    /// reason; not at all when `context` is destroyed first. Progress restarts the entry's call
    /// timeout (MCP::setCallTimeout). From then on the server's notifications arrive as
    /// mcpNotification().
    void requestMCP(const QString& serverName, const QString& method, const Visindigo::Utility::JsonConfig& params,
                    QObject* context, std::function<void(const Visindigo::Utility::JsonConfig& result, const QString& error)> callback);
    //@}

    /// \name JSON
    //@{
    /// Extension (SPEC §I.5.2): whether toJson(Secrets) writes the secrets.
    enum class Secrets {
        Include = 0, ///< Every model's token and MCP header: the native document.
        Omit = 1,    ///< No model token, no MCP header that carries a credential.
    };
    Q_ENUM(Secrets)

    /// Everything but the functions: models, providers, skills, mcps, prompts,
    /// defaultProviderId, dialogs (tokens included: the application decides where it is kept).
    Visindigo::Utility::JsonConfig toJson() const;
    /// Extension (SPEC §I.5.2): toJson(), or with Secrets::Omit without any model token, MCP
    /// header or stdio server environment variable whose name says it carries a credential
    /// (Authorization, Cookie, *-token, *-key, *-secret, *api-key*, *password*, *credential*;
    /// `_` and `-` alike, any case: GITHUB_TOKEN, DB_PASSWORD), marked "secretsOmitted":
    /// fromJson() of such a document keeps the tokens, credential headers and credential
    /// environment variables in memory for the same model ids and MCP entries, so an
    /// application keeps them elsewhere (a keychain) and the document anywhere.
    Visindigo::Utility::JsonConfig toJson(Secrets secrets) const;
    /// Replaces everything but the functions with what `json` holds, deletes the old dialogs
    /// and restores the saved ones; true. An empty object changes nothing: false.
    bool fromJson(const Visindigo::Utility::JsonConfig& json);
    //@}

    // The signals are extensions (SPEC §H.5.2), for lists of conversations (DialogListModel).
    // Whoever changed the registry — any thread, the C ABI — they are queued to the Center's
    // thread (the one that first called getInstance()) and need its event loop; by then
    // getDialog(id) finds the Dialog (or nullptr if it is gone again).
Q_SIGNALS:
    /// Dialog `id` was registered: createDialog(), restoreDialog(), cloneDialog(), regenerate()
    /// (queued to the Center's thread, like every signal of the Center).
    void dialogAdded(const QString& id);
    /// Dialog `id` was unregistered: removeDialog(), or replaced by restoreDialog() under the
    /// same id (then dialogAdded(id) follows).
    void dialogRemoved(const QString& id);
    /// fromJson() replaced every dialog: read getDialogIds() again.
    void dialogsReset();
    /// MCP server `serverName` (the entry's name), used by a run of one of this Center's
    /// dialogs or by requestMCP(), sent notification `method` (e.g.
    /// `notifications/resources/updated`, `notifications/message`) with `params` (SPEC §H.4.4).
    void mcpNotification(const QString& serverName, const QString& method, const Visindigo::Utility::JsonConfig& params);
    /// MCP server `serverName` needs the user to authorize this application (SPEC §H.4.6):
    /// open `authorizeUrl` in the user's browser, e.g. with QDesktopServices::openUrl(). The
    /// library listens on 127.0.0.1 for the browser's redirect and then goes on by itself; the
    /// request or run that needed the server waits for up to 300 s.
    void mcpAuthorizationRequired(const QString& serverName, const QUrl& authorizeUrl);
    /// MCP server `serverName` issued new tokens (after an authorization or a refresh): keep
    /// `tokens` where the application keeps secrets and give them back with
    /// MCP::setOAuthTokens() when the entry is registered again (e.g. in the next session).
    void mcpTokensChanged(const QString& serverName, const Visindigo::Utility::JsonConfig& tokens);

private:
    Center();
    ~Center() override;
    Q_DISABLE_COPY_MOVE(Center)

    std::unique_ptr<CenterPrivate> d;
};

} // namespace Visindigo::Agent

#endif // VISINDIGO_AGENT_CENTER_H
