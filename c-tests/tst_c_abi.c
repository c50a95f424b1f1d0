/* The C ABI used from plain C11, without Qt: build a Center with a model and a provider,
 * pick a model, run a dialog's streaming primitives through the event callback, and check
 * the documented failure statuses. Exit 0 when every check passes. */

#include <visindigo_agent.h>

#include <stdio.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "%s:%d: check failed: %s (last error: %s)\n",        \
                    __FILE__, __LINE__, #cond, vi_last_error());                 \
            ++failures;                                                          \
        }                                                                        \
    } while (0)

#define LIT(s) (s), (sizeof(s) - 1)

static int equals(ViStr view, const char* text)
{
    return view.len == strlen(text) && memcmp(view.data, text, view.len) == 0;
}

/* Takes an owned string, compares it and frees it. */
static int take_equals(ViString* owned, const char* text)
{
    int same = equals(vi_string_view(owned), text);
    vi_string_free(owned);
    return same;
}

struct recorded {
    int began, deltas, appended, ended;
    char text[64];
};

static void on_one_event(struct recorded* r, const ViEvent* event)
{
    switch (event->kind) {
    case VI_EVENT_KIND_STREAM_BEGAN: r->began++; break;
    case VI_EVENT_KIND_STREAM_DELTA: r->deltas++; break;
    case VI_EVENT_KIND_MESSAGE_APPENDED: r->appended++; break;
    case VI_EVENT_KIND_STREAM_ENDED:
        r->ended++;
        if (event->text.len < sizeof r->text) {
            memcpy(r->text, event->text.data, event->text.len);
            r->text[event->text.len] = '\0';
        }
        break;
    default: break;
    }
}

static void on_event(void* user_data, const ViEvent* events, size_t count)
{
    for (size_t i = 0; i < count; ++i)
        on_one_event(user_data, &events[i]);
}

/* The Center's dialog list events, as a string of letters: a(dded), r(emoved), R(eset). */
struct center_log {
    char kinds[16];
    size_t count;
    int released;
};

static void on_center_event(void* user_data, const ViCenterEvent* events, size_t count)
{
    struct center_log* log = user_data;
    for (size_t i = 0; i < count && log->count + 1 < sizeof log->kinds; ++i) {
        char kind = events[i].kind == VI_CENTER_EVENT_KIND_DIALOG_ADDED     ? 'a'
                    : events[i].kind == VI_CENTER_EVENT_KIND_DIALOG_REMOVED ? 'r'
                    : events[i].kind == VI_CENTER_EVENT_KIND_DIALOGS_RESET  ? 'R'
                                                                            : '?';
        /* An added or removed event names its dialog; a reset names none. */
        if ((kind == 'R') != (events[i].dialog_id.len == 0))
            kind = '!';
        log->kinds[log->count++] = kind;
        log->kinds[log->count] = '\0';
    }
}

static void on_center_release(void* user_data)
{
    ((struct center_log*)user_data)->released++;
}

/* One vi_center_request_mcp outcome. */
struct mcp_reply {
    int called, released;
    char error[128];
};

static void on_mcp_result(void* user_data, ViStr result_json, ViStr error)
{
    struct mcp_reply* r = user_data;
    r->called++;
    if (result_json.len == 0 && error.len < sizeof r->error) {
        memcpy(r->error, error.data, error.len);
        r->error[error.len] = '\0';
    }
}

static void on_mcp_release(void* user_data)
{
    ((struct mcp_reply*)user_data)->released++;
}

int main(void)
{
    ViCenter* center = NULL;
    ViModel* model = NULL;
    ViProvider* provider = NULL;
    ViDialog* dialog = NULL;
    ViString* owned = NULL;
    struct recorded rec;
    memset(&rec, 0, sizeof rec);

    CHECK(strcmp(vi_version(), VI_VERSION) == 0);
    CHECK(vi_center_new(&center) == VI_STATUS_OK);

    CHECK(vi_model_new(&model) == VI_STATUS_OK);
    CHECK(vi_model_set_name(model, LIT("gpt-test")) == VI_STATUS_OK);
    CHECK(vi_model_set_url(model, LIT("http://127.0.0.1:9/v1")) == VI_STATUS_OK);
    CHECK(vi_model_set_token(model, LIT("secret")) == VI_STATUS_OK);
    CHECK(vi_model_add_capability(model, VI_CAPABILITY_TOOL_USE) == VI_STATUS_OK);
    CHECK(vi_model_is_valid(model));
    CHECK(vi_model_has_capability(model, VI_CAPABILITY_TEXT));
    CHECK(vi_model_id(model).len == 36);
    /* SPEC §I.2: the API version ("" = the newest) and prompt caching. */
    CHECK(vi_model_api_version(model).len == 0 && !vi_model_prompt_caching(model));
    CHECK(vi_model_set_api_version(model, LIT("2023-06-01")) == VI_STATUS_OK);
    CHECK(vi_model_set_prompt_caching(model, true) == VI_STATUS_OK);
    CHECK(equals(vi_model_api_version(model), "2023-06-01") && vi_model_prompt_caching(model));
    CHECK(vi_model_set_api_version(model, "\xff", 1) == VI_STATUS_INVALID_UTF8);
    CHECK(vi_model_set_prompt_caching(NULL, true) == VI_STATUS_NULL_ARGUMENT);
    CHECK(!vi_model_prompt_caching(NULL) && vi_model_api_version(NULL).len == 0);
    CHECK(vi_model_set_api_version(model, LIT("")) == VI_STATUS_OK);
    CHECK(vi_model_set_prompt_caching(model, false) == VI_STATUS_OK);
    CHECK(vi_center_add_model(center, model) == VI_STATUS_OK);

    CHECK(vi_provider_new(LIT("acme"), &provider) == VI_STATUS_OK);
    CHECK(vi_provider_add_model(provider, vi_model_id(model).data, vi_model_id(model).len, 3) == VI_STATUS_OK);
    CHECK(vi_provider_pick_first(provider, center, VI_CAPABILITY_TOOL_USE, &owned) == VI_STATUS_OK);
    CHECK(owned && vi_string_view(owned).len == 36);
    vi_string_free(owned);
    CHECK(vi_provider_pick_first(provider, center, VI_CAPABILITY_IMAGE, &owned) == VI_STATUS_OK);
    CHECK(take_equals(owned, ""));

    /* The streaming primitives report through the callback, on this thread. */
    CHECK(vi_center_create_dialog(center, &dialog) == VI_STATUS_OK);
    CHECK(vi_dialog_set_event_callback(dialog, on_event, &rec, NULL) == VI_STATUS_OK);
    CHECK(vi_dialog_begin_assistant_message(dialog) == VI_STATUS_OK);
    CHECK(vi_dialog_append_delta(dialog, LIT("Hello, ")) == VI_STATUS_OK);
    CHECK(vi_dialog_append_delta(dialog, LIT("C")) == VI_STATUS_OK);
    CHECK(vi_dialog_end_assistant_message(dialog) == VI_STATUS_OK);
    CHECK(rec.began == 1 && rec.deltas == 2 && rec.appended == 1 && rec.ended == 1);
    CHECK(strcmp(rec.text, "Hello, C") == 0);
    CHECK(vi_dialog_message_count(dialog) == 1);
    CHECK(vi_dialog_find_last_assistant_message(dialog) == 0);

    /* Documented failures: a status, a message, and nothing changed. */
    CHECK(vi_dialog_append_delta(NULL, LIT("x")) == VI_STATUS_NULL_ARGUMENT);
    CHECK(strstr(vi_last_error(), "NULL") != NULL);
    CHECK(vi_model_set_name(model, "\xff\xfe", 2) == VI_STATUS_INVALID_UTF8);
    CHECK(equals(vi_model_name(model), "gpt-test"));
    CHECK(vi_dialog_from_json(dialog, LIT("{not json"), NULL) == VI_STATUS_INVALID_JSON);
    CHECK(vi_dialog_message_count(dialog) == 1);
    CHECK(vi_center_get_model(center, LIT("unknown"), &model) == VI_STATUS_NOT_FOUND);

    /* Saving and restoring keeps the conversation. */
    {
        ViString* saved = NULL;
        ViCenter* copy = NULL;
        ViStr text;
        CHECK(vi_center_to_json(center, &saved) == VI_STATUS_OK);
        text = vi_string_view(saved);
        bool replaced = false;
        struct center_log log;
        ViDialog* added = NULL;
        ViDialog* cloned = NULL;
        memset(&log, 0, sizeof log);
        CHECK(vi_center_new(&copy) == VI_STATUS_OK);
        CHECK(vi_center_set_event_callback(copy, on_center_event, &log, on_center_release) == VI_STATUS_OK);
        CHECK(vi_center_from_json(copy, text.data, text.len, &replaced) == VI_STATUS_OK && replaced);
        CHECK(vi_center_dialog_ids(copy, &owned) == VI_STATUS_OK);
        CHECK(vi_string_view(owned).len == 36 + 4); /* ["<uuid>"] */
        vi_string_free(owned);

        /* The dialog list's events: reset, created, cloned, removed twice (told once). */
        CHECK(vi_center_create_dialog(copy, &added) == VI_STATUS_OK);
        CHECK(vi_dialog_id(added, &owned) == VI_STATUS_OK);
        CHECK(vi_center_clone_dialog(copy, vi_string_view(owned).data, vi_string_view(owned).len, &cloned) == VI_STATUS_OK);
        vi_string_free(owned);
        CHECK(vi_dialog_id(cloned, &owned) == VI_STATUS_OK);
        CHECK(vi_center_remove_dialog(copy, vi_string_view(owned).data, vi_string_view(owned).len) == VI_STATUS_OK);
        CHECK(vi_center_remove_dialog(copy, vi_string_view(owned).data, vi_string_view(owned).len) == VI_STATUS_OK);
        vi_string_free(owned);
        CHECK(strcmp(log.kinds, "Raar") == 0);
        CHECK(vi_center_set_event_callback(NULL, on_center_event, &log, on_center_release) == VI_STATUS_OK);
        CHECK(vi_center_set_event_callback(NULL, NULL, NULL, NULL) == VI_STATUS_OK);
        CHECK(log.released == 1); /* the global Center's, released when cleared */
        CHECK(vi_center_set_event_callback(copy, NULL, NULL, NULL) == VI_STATUS_OK);
        CHECK(log.released == 2);

        /* An MCP request to a server the Center does not have: the callback says why, at once,
         * then user_data is released. Bad arguments: an error status, no call, released. */
        struct mcp_reply reply;
        memset(&reply, 0, sizeof reply);
        CHECK(vi_center_request_mcp(copy, LIT("nobody"), LIT("resources/list"), NULL, 0, on_mcp_result, &reply,
                                    on_mcp_release) == VI_STATUS_OK);
        CHECK(reply.called == 1 && reply.released == 1);
        CHECK(strcmp(reply.error, "no MCP server named \"nobody\" is registered with the Center") == 0);
        CHECK(vi_center_request_mcp(copy, LIT("nobody"), LIT("resources/list"), LIT("[1]"), on_mcp_result, &reply,
                                    on_mcp_release) == VI_STATUS_INVALID_JSON);
        CHECK(vi_center_request_mcp(copy, LIT("nobody"), LIT("resources/list"), NULL, 0, NULL, &reply, on_mcp_release)
              == VI_STATUS_NULL_ARGUMENT);
        CHECK(reply.called == 1 && reply.released == 3);

        vi_dialog_free(cloned);
        vi_dialog_free(added);
        vi_string_free(saved);
        vi_center_free(copy);
    }

    vi_dialog_free(dialog);
    vi_provider_free(provider);
    vi_model_free(model);
    vi_center_free(center);
    if (failures == 0)
        printf("tst_c_abi: ok\n");
    return failures == 0 ? 0 : 1;
}
