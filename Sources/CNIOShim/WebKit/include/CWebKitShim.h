// WebKitGTK 4.1's content-filter compiler, reached at run time with dlopen/dlsym so the server
// builds without WebKitGTK's headers and runs without the library. Links libdl (libc) only.
#ifndef CWEBKITSHIM_H
#define CWEBKITSHIM_H

#include <stddef.h>
#include <stdint.h>

/// One loaded WebKitGTK and one filter store in a directory the caller owns.
typedef struct shim_webkit shim_webkit;

/// Loads `library` (a soname such as libwebkit2gtk-4.1.so.0, or a path) and opens a filter store in
/// `store_directory`. Returns NULL with the reason in `error` (dlerror's text or the missing symbol).
shim_webkit *shim_webkit_open(const char *library, const char *store_directory, char *error, size_t error_capacity);

/// WebKitGTK's version, e.g. 2 50 6.
void shim_webkit_version(const shim_webkit *webkit, unsigned *major, unsigned *minor, unsigned *micro);

#define SHIM_WEBKIT_COMPILED 0
/// WebKit rejected the list; *message holds its error (free with shim_webkit_free_message).
#define SHIM_WEBKIT_REJECTED 1
/// No answer within the timeout; the store may still be busy, so the caller should stop using it.
#define SHIM_WEBKIT_TIMED_OUT 2

/// Compiles one list and removes it from the store again. Iterates the default GMainContext until
/// WebKit answers, so every call must come from the same thread (WebKit's main run loop).
int shim_webkit_compile(shim_webkit *webkit, const char *identifier, const uint8_t *json, size_t length,
                        unsigned timeout_milliseconds, char **message);

void shim_webkit_free_message(char *message);

#endif
