// SPDX-License-Identifier: MIT
//
// Internal (not installed): the bridge between the public value classes and their Rust
// handles, for the rest of the Qt layer (Dialog, Center).
//
//   Message keeps its fields on the Qt side (Message.cpp), so it converts rather than
//   sharing a handle:
//   ViMessage* toHandle(const Message&)       a NEW core message with every field (the
//                                             caller frees it with vi_message_free; NULL
//                                             only when the core fails)
//   Message readMessage(const ViMessage*)     the fields of a borrowed core message
//                                             (NULL gives a default Message)
//   Message adoptMessage(ViMessage*)          readMessage, then frees the handle
//   The other value classes own one handle each:
//   const ViModel* handle(const Model&)       borrowed; valid while the object lives and
//                                             is not modified. NULL only for a
//                                             move-constructed-from object (the C ABI
//                                             treats NULL as an error / empty value).
//   … and the same for Provider, Skill, MCP, Prompt; adoptModel, adoptProvider, adoptSkill,
//   adoptMcp, adoptPrompt take ownership of a handle the C ABI gave out (NULL gives a
//   default object).
//
// fromJsonArray helpers: a JSON array text of objects (as vi_center_models etc. return)
// → a list of value objects, each read with X::fromJson:
//   QList<Model> modelsFromJson(ViString* owned)   (frees the string) — and providers…,
//   skillsFromJson, mcpsFromJson, promptsFromJson, messagesFromJson.
#ifndef VISINDIGO_AGENT_INTERNAL_HANDLES_H
#define VISINDIGO_AGENT_INTERNAL_HANDLES_H

#include <Agent/MCP.h>
#include <Agent/Message.h>
#include <Agent/Model.h>
#include <Agent/Prompt.h>
#include <Agent/Provider.h>
#include <Agent/Skill.h>
#include <visindigo_agent.h>

#include "Strings.h"

#include <QtCore/QList>

namespace Visindigo::Agent::Internal {

// ---- the copy rules every handle-owning value class shares ------------------------------------
// Model, Provider, Skill, MCP and Prompt each own one core handle: a copy clones it, an
// assignment replaces it, the destructor frees it.

inline ViStatus cloneInto(const ViModel* h, ViModel** out) { return vi_model_clone(h, out); }
inline ViStatus cloneInto(const ViProvider* h, ViProvider** out) { return vi_provider_clone(h, out); }
inline ViStatus cloneInto(const ViSkill* h, ViSkill** out) { return vi_skill_clone(h, out); }
inline ViStatus cloneInto(const ViMcp* h, ViMcp** out) { return vi_mcp_clone(h, out); }
inline ViStatus cloneInto(const ViPrompt* h, ViPrompt** out) { return vi_prompt_clone(h, out); }
inline void freeHandle(ViModel* h) { vi_model_free(h); }
inline void freeHandle(ViProvider* h) { vi_provider_free(h); }
inline void freeHandle(ViSkill* h) { vi_skill_free(h); }
inline void freeHandle(ViMcp* h) { vi_mcp_free(h); }
inline void freeHandle(ViPrompt* h) { vi_prompt_free(h); }

// An independent copy of `h` (NULL for NULL, or when the core cannot allocate).
template<typename H>
H* cloneHandle(const H* h)
{
    H* out = nullptr;
    if (!h || cloneInto(h, &out) != VI_STATUS_OK)
        return nullptr;
    return out;
}

// Copy assignment: `d` becomes a copy of `other` (self-assignment changes nothing).
template<typename H>
void assignHandle(H*& d, const H* other)
{
    if (d == other)
        return;
    H* copy = cloneHandle(other);
    freeHandle(d);
    d = copy;
}


// The one friend of every value class.
struct HandleAccess
{
    template<typename T>
    static auto get(const T& value) { return value.d; }
    template<typename T, typename H>
    static T adopt(H* handle) { return handle ? T(handle) : T(); }

    // Message (defined in Message.cpp).
    static ViMessage* messageToHandle(const Message& message);
    static Message messageFromHandle(const ViMessage* handle);
};

inline ViMessage* toHandle(const Message& m) { return HandleAccess::messageToHandle(m); }
inline Message readMessage(const ViMessage* h) { return HandleAccess::messageFromHandle(h); }
inline Message adoptMessage(ViMessage* h)
{
    Message out = HandleAccess::messageFromHandle(h);
    vi_message_free(h);
    return out;
}
inline const ViModel* handle(const Model& m) { return HandleAccess::get(m); }
inline const ViProvider* handle(const Provider& p) { return HandleAccess::get(p); }
inline const ViSkill* handle(const Skill& s) { return HandleAccess::get(s); }
inline const ViMcp* handle(const MCP& m) { return HandleAccess::get(m); }
inline const ViPrompt* handle(const Prompt& p) { return HandleAccess::get(p); }

inline Model adoptModel(ViModel* h) { return HandleAccess::adopt<Model>(h); }
inline Provider adoptProvider(ViProvider* h) { return HandleAccess::adopt<Provider>(h); }
inline Skill adoptSkill(ViSkill* h) { return HandleAccess::adopt<Skill>(h); }
inline MCP adoptMcp(ViMcp* h) { return HandleAccess::adopt<MCP>(h); }
inline Prompt adoptPrompt(ViPrompt* h) { return HandleAccess::adopt<Prompt>(h); }

// A JSON array of objects (owned text, freed here) → values read with fromJson.
template<typename T>
inline QList<T> listFromJson(ViString* owned)
{
    const QJsonArray array = QJsonDocument::fromJson(takeUtf8(owned)).array();
    QList<T> out;
    out.reserve(array.size());
    for (const QJsonValue& v : array) {
        T value;
        value.fromJson(jsonFromValue(v));
        out.append(std::move(value));
    }
    return out;
}

inline QList<Message> messagesFromJson(ViString* owned) { return listFromJson<Message>(owned); }
inline QList<Model> modelsFromJson(ViString* owned) { return listFromJson<Model>(owned); }
inline QList<Provider> providersFromJson(ViString* owned) { return listFromJson<Provider>(owned); }
inline QList<Skill> skillsFromJson(ViString* owned) { return listFromJson<Skill>(owned); }
inline QList<MCP> mcpsFromJson(ViString* owned) { return listFromJson<MCP>(owned); }
inline QList<Prompt> promptsFromJson(ViString* owned) { return listFromJson<Prompt>(owned); }

} // namespace Visindigo::Agent::Internal

#endif // VISINDIGO_AGENT_INTERNAL_HANDLES_H
