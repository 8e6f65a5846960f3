// WebKitGTK through dlopen: the prototypes below are the few public C functions used, declared here
// with opaque pointers so no GLib or WebKit header is needed at build time.
#include "CWebKitShim.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int gboolean;
typedef struct { uint32_t domain; int code; char *message; } GError;
typedef void (*GAsyncReadyCallback)(void *source, void *result, void *user_data);
typedef gboolean (*GSourceFunc)(void *user_data);

struct shim_webkit {
    void *library;
    void *store;
    unsigned (*major)(void), (*minor)(void), (*micro)(void);
    void *(*store_new)(const char *path);
    void (*save)(void *store, const char *identifier, void *bytes, void *cancellable, GAsyncReadyCallback, void *);
    void *(*save_finish)(void *store, void *result, GError **error);
    void (*remove)(void *store, const char *identifier, void *cancellable, GAsyncReadyCallback, void *);
    gboolean (*remove_finish)(void *store, void *result, GError **error);
    void (*filter_unref)(void *filter);
    void *(*bytes_new)(const void *data, size_t size);
    void (*bytes_unref)(void *bytes);
    void *(*loop_new)(void *context, gboolean is_running);
    void (*loop_run)(void *loop);
    void (*loop_quit)(void *loop);
    void (*loop_unref)(void *loop);
    unsigned (*timeout_add)(unsigned interval, GSourceFunc, void *data);
    gboolean (*source_remove)(unsigned tag);
    void (*error_free)(GError *error);
};

/// One outstanding save or remove. Heap-allocated: after a timeout WebKit may still call back, and
/// the callback then frees it.
struct pending {
    struct shim_webkit *webkit;
    void *loop;
    int done, abandoned;
    char *message;
};

static int resolve(void *library, const char *name, void **slot, char *error, size_t capacity) {
    *slot = dlsym(library, name);
    if (*slot == NULL) snprintf(error, capacity, "%s has no symbol %s", "WebKitGTK", name);
    return *slot != NULL;
}

shim_webkit *shim_webkit_open(const char *library_name, const char *store_directory, char *error, size_t capacity) {
    void *library = dlopen(library_name, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(error, capacity, "%s", dlerror());
        return NULL;
    }
    shim_webkit *webkit = calloc(1, sizeof *webkit);
    if (webkit == NULL) {
        snprintf(error, capacity, "out of memory");
        return NULL;
    }
    webkit->library = library;
    struct { const char *name; void **slot; } symbols[] = {
        {"webkit_get_major_version", (void **)&webkit->major},
        {"webkit_get_minor_version", (void **)&webkit->minor},
        {"webkit_get_micro_version", (void **)&webkit->micro},
        {"webkit_user_content_filter_store_new", (void **)&webkit->store_new},
        {"webkit_user_content_filter_store_save", (void **)&webkit->save},
        {"webkit_user_content_filter_store_save_finish", (void **)&webkit->save_finish},
        {"webkit_user_content_filter_store_remove", (void **)&webkit->remove},
        {"webkit_user_content_filter_store_remove_finish", (void **)&webkit->remove_finish},
        {"webkit_user_content_filter_unref", (void **)&webkit->filter_unref},
        // GLib comes with WebKitGTK: dlsym on its handle also searches its dependencies.
        {"g_bytes_new", (void **)&webkit->bytes_new},
        {"g_bytes_unref", (void **)&webkit->bytes_unref},
        {"g_main_loop_new", (void **)&webkit->loop_new},
        {"g_main_loop_run", (void **)&webkit->loop_run},
        {"g_main_loop_quit", (void **)&webkit->loop_quit},
        {"g_main_loop_unref", (void **)&webkit->loop_unref},
        {"g_timeout_add", (void **)&webkit->timeout_add},
        {"g_source_remove", (void **)&webkit->source_remove},
        {"g_error_free", (void **)&webkit->error_free},
    };
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        if (!resolve(library, symbols[i].name, symbols[i].slot, error, capacity)) {
            dlclose(library);
            free(webkit);
            return NULL;
        }
    }
    webkit->store = webkit->store_new(store_directory);
    if (webkit->store == NULL) {
        snprintf(error, capacity, "webkit_user_content_filter_store_new(%s) returned NULL", store_directory);
        dlclose(library);
        free(webkit);
        return NULL;
    }
    return webkit;
}

void shim_webkit_version(const shim_webkit *webkit, unsigned *major, unsigned *minor, unsigned *micro) {
    *major = webkit->major();
    *minor = webkit->minor();
    *micro = webkit->micro();
}

static void finish(struct pending *pending) {
    if (pending->abandoned) {
        free(pending->message);
        free(pending);
        return;
    }
    pending->done = 1;
    pending->webkit->loop_quit(pending->loop);
}

static void saved(void *store, void *result, void *data) {
    struct pending *pending = data;
    GError *error = NULL;
    void *filter = pending->webkit->save_finish(store, result, &error);
    if (filter != NULL) pending->webkit->filter_unref(filter);
    if (error != NULL) {
        pending->message = strdup(error->message ? error->message : "unknown WebKit error");
        pending->webkit->error_free(error);
    }
    finish(pending);
}

static void removed(void *store, void *result, void *data) {
    struct pending *pending = data;
    GError *error = NULL;
    pending->webkit->remove_finish(store, result, &error);
    if (error != NULL) pending->webkit->error_free(error);
    finish(pending);
}

static gboolean expired(void *data) {
    struct pending *pending = data;
    pending->webkit->loop_quit(pending->loop);
    return 0;
}

/// Runs the default main context until `pending` is done or the timeout fires; 1 when done.
static int wait_for(shim_webkit *webkit, struct pending *pending, unsigned timeout_milliseconds) {
    unsigned timer = webkit->timeout_add(timeout_milliseconds, expired, pending);
    webkit->loop_run(pending->loop);
    if (!pending->done) {
        pending->abandoned = 1;
        return 0;
    }
    webkit->source_remove(timer);
    return 1;
}

int shim_webkit_compile(shim_webkit *webkit, const char *identifier, const uint8_t *json, size_t length,
                        unsigned timeout_milliseconds, char **message) {
    *message = NULL;
    void *loop = webkit->loop_new(NULL, 0);
    struct pending *save = calloc(1, sizeof *save);
    if (save == NULL) {
        webkit->loop_unref(loop);
        *message = strdup("out of memory");
        return SHIM_WEBKIT_REJECTED;
    }
    save->webkit = webkit;
    save->loop = loop;
    void *bytes = webkit->bytes_new(json, length);
    webkit->save(webkit->store, identifier, bytes, NULL, saved, save);
    webkit->bytes_unref(bytes);
    if (!wait_for(webkit, save, timeout_milliseconds)) {
        webkit->loop_unref(loop);
        return SHIM_WEBKIT_TIMED_OUT;
    }
    int status = SHIM_WEBKIT_COMPILED;
    if (save->message != NULL) {
        *message = save->message;
        status = SHIM_WEBKIT_REJECTED;
    } else {
        // Keep the store small: the compiled list is not needed after the check.
        struct pending *removal = calloc(1, sizeof *removal);
        if (removal != NULL) {
            removal->webkit = webkit;
            removal->loop = loop;
            webkit->remove(webkit->store, identifier, NULL, removed, removal);
            if (wait_for(webkit, removal, timeout_milliseconds)) free(removal);
        }
    }
    free(save);
    webkit->loop_unref(loop);
    return status;
}

void shim_webkit_free_message(char *message) { free(message); }
