// SPDX-License-Identifier: MIT
//
/// \class Visindigo::Agent::Dialog
/// One conversation with a model (and, through <Agent/Message.h>,
/// the Message value class).
///
/// A Dialog is a QObject holding one reference to a dialog of the Rust core. Every change
/// (appendMessage, the streaming primitives, a run) is reported through the signals below,
/// always on the Dialog's own thread (QObject::thread()) and always in the order the core
/// produced the events: an event raised on the Dialog's thread while nothing is waiting in
/// its queue is emitted at once (so appendMessage() emits messageAppended before it
/// returns); events from library threads (a run) or raised while earlier ones still wait
/// are queued to the Dialog's thread. A Dialog therefore needs a running event loop on its
/// thread to receive the signals of a run. Functions called by a run are invoked on the
/// Dialog's thread too (Function::invokeAsync), in order with the signals.
///
/// Every member function may be called from any thread (the core is thread-safe); the
/// signals still arrive on the Dialog's thread.
///
/// Destroying a Dialog that is not registered in the Center (one made with `new Dialog`)
/// aborts its run silently: no signal is emitted afterwards. Dialogs made by the Center
/// belong to the Center (see Center.h).
#ifndef VISINDIGO_AGENT_DIALOG_H
#define VISINDIGO_AGENT_DIALOG_H

#include "Export.h"
#include "Message.h"
#include "Model.h"
#include "Skill.h"
#include "MCP.h"
#include "Prompt.h"
#include <Utility/JsonConfig.h>

#include <QtCore/QList>
#include <QtCore/QMap>
#include <QtCore/QObject>
#include <QtCore/QUrl>
#include <QtCore/QString>
#include <QtCore/QStringList>

#include <memory>

struct ViDialog;

namespace Visindigo::Agent {

class Center;
class CenterPrivate;
class Function;
class DialogPrivate;

class VISINDIGO_AGENT_EXPORT Dialog : public QObject
{
    Q_OBJECT
public:
    /// What a request that would not fit the model's context window does (extension, SPEC
    /// §I.4.2; Model::setContextWindow gives the window).
    enum class ContextPolicy {
        Fail = 0,        ///< Fail before sending: runFailed("[ContextOverflow] <estimated> of <window> tokens").
        DropOldest = 1,  ///< Leave the oldest turns out of the request; the history is unchanged.
        Summarize = 2,   ///< Replace the oldest turns in the request by a summary the dialog keeps.
    };
    Q_ENUM(ContextPolicy)

    /// A new dialog (fresh UUID id) resolving providers, models and functions in the Center,
    /// but not registered in it.
    Dialog();
    /// Clears the event callback and releases the reference; when it was the last one
    /// (an unregistered dialog) a run in progress is aborted without further signals.
    ~Dialog() override;

    /// \name Messages
    //@{
    /// Appends a copy of `message`; emits messageAppended(index).
    Dialog& appendMessage(const Message& message);
    /// Appends a message of `role` with `content`; emits messageAppended(index).
    Dialog& appendMessage(Message::Role role, const QString& content);
    /// Removes every message; emits messagesReset().
    Dialog& clearMessages();
    /// The messages in order; O(1) when they did not change since the last call (a cached,
    /// shared list).
    QList<Message> getMessages() const;
    /// The last message; a default (empty User) message when there is none.
    Message getLastMessage() const;
    /// How many messages there are.
    qint32 getMessageCount() const;
    /// Keeps the first messageCount messages (emits messagesReset()); negative or >= the
    /// count changes nothing.
    Dialog& truncateTo(qint32 messageCount);
    /// The index of the last Assistant message; -1 when there is none.
    qint32 findLastAssistantMessage() const;
    /// Copies messages, skills, MCP servers, prompts, provider, model and capability
    /// requirement (not functions), and the run settings (tool approval, parallel tool calls,
    /// max tool rounds, response schema), into target; false for null or this dialog.
    bool copyTo(Dialog* target) const;
    //@}

    /// \name Streaming primitives
    //@{
    /// Clears the streaming and reasoning buffers and starts streaming; emits streamBegan().
    void beginAssistantMessage();
    /// Adds `delta` to the answer in progress and emits streamDelta(); ignored unless streaming.
    void appendDelta(const QString& delta);
    /// Ends streaming: appends an Assistant message when content or reasoning is non-empty
    /// (messageAppended), then always emits streamEnded(content).
    void endAssistantMessage();
    /// True while streaming or while a run is in progress.
    bool isStreaming() const;
    /// The answer in progress ("" when not streaming).
    QString getStreamingContent() const;
    /// The reasoning of the answer in progress.
    QString getReasoningContent() const;
    //@}

    /// \name Dialog-local skills, MCP servers, functions and prompts
    /// They add to the Center's; adding one replaces the entry of the same name (moving it to
    /// the end).
    //@{
    /// Adds a copy of `skill`.
    Dialog& addSkill(const Skill& skill);
    /// Removes skill `name`.
    Dialog& removeSkill(const QString& name);
    /// The dialog's own skills, in order.
    QList<Skill> getSkills() const;
    /// Adds a copy of `mcp`: its tools are offered to this dialog's runs.
    Dialog& addMCP(const MCP& mcp);
    /// Removes MCP server `name`.
    Dialog& removeMCP(const QString& name);
    /// The dialog's own MCP servers, in order.
    QList<MCP> getMCPs() const;
    /// Takes ownership (see Function.h); a function with the same id is replaced.
    Dialog& addFunction(Function* function);
    /// Removes and deletes the dialog's function `id`.
    Dialog& removeFunction(const QString& id);
    /// The dialog's function id, else the Center's; nullptr when none.
    Function* getFunction(const QString& id) const;
    /// The dialog's own function ids.
    QStringList getFunctionIds() const;
    /// Adds a copy of `prompt`.
    Dialog& addPrompt(const Prompt& prompt);
    /// Removes prompt `name`.
    Dialog& removePrompt(const QString& name);
    /// The dialog's own prompts, in order.
    QList<Prompt> getPrompts() const;
    /// Renders the dialog's prompt `name`, else the Center's, with `variables` and appends it.
    Dialog& appendPrompt(const QString& name, const QMap<QString, QString>& variables = {});
    //@}

    /// \name Identity and model choice
    //@{
    /// The dialog's id (a UUID unless restored from JSON).
    QString getId() const;
    /// Records the id of the dialog this one branched from.
    Dialog& setBranchFromID(const QString& id);
    /// The id of the dialog this one branched from ("" for none).
    QString getBranchFromID() const;
    /// The provider whose models answer; empty or invalid: the Center's default provider.
    Dialog& setProviderId(const QString& id);
    /// The provider id ("" for the default).
    QString getProviderId() const;
    /// A model that answers instead of the provider's pick, when that model is valid.
    Dialog& setModelId(const QString& id);
    /// The fixed model id ("" for the provider's pick).
    QString getModelId() const;
    /// What a picked model must be able to do (default Text).
    Dialog& setCapabilityRequirement(Model::Capabilities requirement);
    /// What a picked model must be able to do.
    Model::Capabilities getCapabilityRequirement() const;
    //@}

    /// Starts a run (SPEC §D.1): requests answers, calls the tools they ask for, until an
    /// answer without tool calls. Returns at once; the outcome arrives through the signals.
    void run();

    /// The dialog as JSON: id, branchFromId, providerId, modelId, capabilityRequirement, messages, skills,
    /// mcps, prompts; and, only when not at their defaults, the extensions toolApproval,
    /// parallelToolCalls, maxToolRounds and responseSchema.
    Visindigo::Utility::JsonConfig toJson() const;
    /// Reads what toJson() wrote (emits messagesReset()); returns whether an id was restored.
    bool fromJson(const Visindigo::Utility::JsonConfig& json);

    /// \name Extensions (not in the native module)
    //@{
    /// Cancels the run in progress: when this returns isStreaming() is false and
    /// runFailed("[Aborted] Run aborted.") has been emitted, or is queued behind earlier
    /// signals not yet delivered (called off the dialog's thread, or while the stream's own
    /// signals wait in the event queue): wait for runFinished() before the next run().
    void abort();
    /// The `usage` object the server last reported (empty when none): the provider's own keys
    /// (e.g. prompt_tokens), and on every API inputTokens (every prompt token, cached or not),
    /// outputTokens (reasoning included), cachedInputTokens, cacheWriteTokens, reasoningTokens
    /// and raw (the provider's object unchanged) (SPEC §I.2.2; README, "Usage").
    Visindigo::Utility::JsonConfig getLastUsage() const;

    /// "Stop generating" (SPEC §H.3.2), keeping what was said: while an answer streams, the
    /// partial text and reasoning become the assistant message (messageAppended when
    /// non-empty, then streamEnded(partial)) and incomplete tool calls are dropped; while
    /// tools run, every call without an answer is answered {"error":"stopped by the user"}
    /// (a call that already finished keeps its result). No further round; runFinished()
    /// last. The request is cancelled at once. When this returns isStreaming() is false and
    /// those signals have been emitted, or are queued behind earlier ones not yet delivered
    /// (called off the dialog's thread, or while the stream's own signals wait in the event
    /// queue): wait for runFinished() before the next run(). Nothing happens without a run.
    void stop();

    /// Tool approval (SPEC §H.3.4; default off, Dialog JSON "toolApproval" only when on):
    /// before each call (functions and MCP tools alike) toolApprovalRequested() is emitted
    /// and the call waits for approveToolCall() or rejectToolCall(), which may be called from
    /// any thread, in any order. abort() and stop() end the wait. Both return false when no
    /// call waits under that id (decided already, or the run is over).
    Dialog& setToolApproval(bool on);
    /// Whether tool calls wait for approval.
    bool getToolApproval() const;
    /// Lets the waiting call `callId` run; false when none waits under that id.
    bool approveToolCall(const QString& callId);
    /// Declines the waiting call `callId`: its answer is
    /// {"error":"the user declined this call: <reason>"}; false when none waits under that id.
    bool rejectToolCall(const QString& callId, const QString& reason = QString());
    /// Answers the MCP elicitation `requestId` (mcpElicitationRequested(), SPEC §H.4.5, or
    /// mcpUrlElicitationRequested(), §I.3.5) from any thread: `action` "accept" with `content`
    /// (an object the requested schema describes; none for a url), "decline" or "cancel"
    /// (content ignored). False when nothing waits under that id (answered already, or the
    /// run is over) or for another action.
    bool answerMCPElicitation(const QString& requestId, const QString& action,
                              const Visindigo::Utility::JsonConfig& content = Visindigo::Utility::JsonConfig());

    /// The calls of one answer start together (default true): each Function's invokeAsync is
    /// called without waiting for the previous one's answer, MCP calls run concurrently; the
    /// Tool messages are appended in call order either way. false: one after another
    /// (Dialog JSON "parallelToolCalls" only when false).
    Dialog& setParallelToolCalls(bool on);
    /// Whether the calls of one answer start together.
    bool getParallelToolCalls() const;

    /// How many answers with tool calls a run follows with another round (default 8; Dialog
    /// JSON "maxToolRounds" only when not 8; negative is 0). Tool calls in the answer after
    /// that end the run with streamEnded, then runFailed("Too many tool call rounds.").
    Dialog& setMaxToolRounds(qint32 rounds);
    /// How many tool rounds a run follows.
    qint32 getMaxToolRounds() const;

    /// Structured output (SPEC §H.2.3): every answer must be JSON matching `schema` (a JSON
    /// Schema object), asked for in the API's own way (Chat response_format, Responses
    /// text.format, Anthropic output_config.format). An empty schema asks for nothing. Dialog
    /// JSON "responseSchema":{"name","schema"} only when set.
    Dialog& setResponseSchema(const QString& name, const Visindigo::Utility::JsonConfig& schema);
    /// The response schema (empty when none).
    Visindigo::Utility::JsonConfig getResponseSchema() const;
    /// The response schema's name.
    QString getResponseSchemaName() const;

    /// Extension (SPEC §I.4.2): what a request that would not fit the model's context window
    /// does. Never left out: System messages and the last user turn; a tool call and its
    /// answer go together. The provider's own overflow answer is "[ContextOverflow] …" too,
    /// and with DropOldest or Summarize the round is retried once after trimming. Default
    /// Fail; Dialog JSON "contextPolicy" ("dropOldest", "summarize") only when not Fail.
    Dialog& setContextPolicy(ContextPolicy policy);
    /// The context policy.
    ContextPolicy getContextPolicy() const;
    /// Extension (SPEC §I.4.2): the model whose one completion makes Summarize's summary —
    /// `modelId` in the Center, or the first model of `providerId` when modelId is empty;
    /// both empty (the default) = the run's own model, as is one that is unavailable. Dialog
    /// JSON "summaryModel" only when set.
    Dialog& setSummaryModel(const QString& providerId, const QString& modelId);
    /// The summary model's provider id ("" = the run's own).
    QString getSummaryProviderId() const;
    /// The summary model's id ("" = the run's own).
    QString getSummaryModelId() const;
    /// The summary Summarize keeps in place of the oldest turns ("" before one was made);
    /// Dialog JSON "contextSummary" {"text", "lastMessage": index of the last summarised
    /// message}.
    QString getContextSummary() const;
    //@}

Q_SIGNALS:
    /// Message `index` was appended (appendMessage, endAssistantMessage, a run).
    void messageAppended(qint32 index);
    /// An answer began streaming (beginAssistantMessage, each round of a run).
    void streamBegan();
    /// A piece of the answer in progress.
    void streamDelta(const QString& delta);
    /// A piece of the answer's reasoning.
    void streamReasoning(const QString& delta);
    /// The answer ended; `fullContent` is its whole text.
    void streamEnded(const QString& fullContent);
    /// The run failed: `message` reads "[Kind] text" (SPEC §D.1.7); nothing was appended for
    /// the failed round.
    void runFailed(const QString& message);
    /// Extension: model `fromModelId` failed for `reason`; `toModelId` is tried next.
    void modelFallback(const QString& fromModelId, const QString& toModelId, const QString& reason);
    /// Extension: MCP server `serverName` could not be used (`message` says why); the run goes
    /// on without its tools.
    void mcpFailed(const QString& serverName, const QString& message);
    /// Extension (SPEC §H.4.2): a running call of tool `toolName` (its name on the server) of
    /// MCP server `serverName` reported `progress` of `total` (0 when the server gave none: an
    /// indeterminate progress, as QProgressBar shows a range of 0..0), with `message` (may be
    /// empty). Each progress restarts the call's timeout (MCP::setCallTimeout).
    void mcpProgress(const QString& serverName, const QString& toolName, double progress, double total,
                     const QString& message);
    /// Extension (SPEC §H.4.5): MCP server `serverName` asks the user for input during a tool
    /// call of this dialog's run: show `message` and a form for `requestedSchema` (a flat JSON
    /// Schema object of strings, numbers, booleans and enums), then answerMCPElicitation().
    /// The call waits; the run's end (abort(), stop()) declines it.
    void mcpElicitationRequested(const QString& requestId, const QString& serverName, const QString& message,
                                 const Visindigo::Utility::JsonConfig& requestedSchema);
    /// Extension (SPEC §I.3.5, URL-mode elicitation): MCP server `serverName` asks the user to
    /// open `url` (http or https; QDesktopServices::openUrl) during a tool call, for what
    /// `message` says — a sign-in, a payment — that must not pass through the application.
    /// Answer with answerMCPElicitation(requestId, "accept") once the user went there, or
    /// "decline" / "cancel". The call waits; the run's end declines it.
    void mcpUrlElicitationRequested(const QString& requestId, const QString& serverName, const QString& message,
                                    const QUrl& url);
    /// Extension: every model of the provider failed (reason: the last failure); pass `attempt` (1, 2,
    /// …) over them starts after delayMs (SPEC §H.1.4). abort() ends the wait.
    void retrying(qint32 attempt, qint32 delayMs, const QString& reason);
    /// Extension (SPEC §I.2.2): a round reported usage — once at its end, before its
    /// streamEnded (or runFailed); `usage` is what getLastUsage() returns from then on.
    void usageUpdated(const Visindigo::Utility::JsonConfig& usage);
    /// Extension (SPEC §I.4.2): a request of the run left out `messagesLeftOut` of the
    /// dialog's messages (or replaced them by the summary) to fit the model's context window;
    /// `estimatedTokens` is the request's estimated size after the trim. The history itself
    /// is unchanged.
    void contextTrimmed(qint32 messagesLeftOut, qint32 estimatedTokens);
    /// The last signal of every run (SPEC §H.3.1), after the final streamEnded or runFailed:
    /// exactly once per run() — also when run() fails at once (no provider, no model, already
    /// running: then isStreaming() may still be true for the run in progress) and after
    /// abort() or stop().
    void runFinished();
    /// The messages changed other than by an append (clearMessages, truncateTo, fromJson, a
    /// copyTo into this dialog): a view reads them again (MessageModel does).
    void messagesReset();
    /// A tool call waits for approveToolCall(callId) or rejectToolCall(callId, reason)
    /// (setToolApproval). arguments: the JSON text the model wrote.
    void toolApprovalRequested(const QString& callId, const QString& toolName, const QString& arguments);
    /// Around every call that runs (SPEC §H.3.6): toolCallFinished follows each
    /// toolCallStarted exactly once (result: the Tool message content), unless the run is
    /// aborted. A rejected call never starts.
    void toolCallStarted(const QString& callId, const QString& toolName, const QString& arguments);
    /// Call `callId` of `toolName` has its `result` (the Tool message content); see
    /// toolCallStarted().
    void toolCallFinished(const QString& callId, const QString& toolName, const QString& result);

private:
    friend class Center;
    friend class CenterPrivate;
    friend class DialogPrivate;
    /// Wraps (and owns) a reference made by the Center.
    explicit Dialog(ViDialog* adopted);
    ViDialog* handle() const;

    std::unique_ptr<DialogPrivate> d;
};

} // namespace Visindigo::Agent

#endif // VISINDIGO_AGENT_DIALOG_H
