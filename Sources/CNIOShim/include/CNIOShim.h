// Thin, typed wrappers over C APIs that Swift cannot call cleanly:
// libcurl's variadic setopt/getinfo, zlib's init macros, libcrypto SHA-256,
// libidn2 domain conversion and a few socket helpers.
#ifndef CNIOSHIM_H
#define CNIOSHIM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <curl/curl.h>

// MARK: libcurl

CURLcode shim_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode shim_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
CURLcode shim_curl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode shim_curl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode shim_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);

typedef size_t (*shim_curl_data_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
CURLcode shim_curl_setopt_write_callback(CURL *handle, shim_curl_data_callback callback);
CURLcode shim_curl_setopt_header_callback(CURL *handle, shim_curl_data_callback callback);

CURLcode shim_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);

// MARK: zlib

/// Deterministic gzip: mtime 0, OS byte 255 (unknown), no file name, so the same input gives
/// the same bytes on every machine with the same zlib. max_chain > 0 keeps level 9's match
/// lengths but follows at most that many hash-chain links (deflateTune); 0 is the level's own
/// setting. Returns 0 on success; *out is malloc'd.
int shim_gzip(const uint8_t *input, size_t length, int level, int max_chain, uint8_t **out, size_t *out_length);

/// Inflates gzip or zlib data (auto-detected). Fails with -2 if the output would exceed max_output.
/// Returns 0 on success; *out is malloc'd.
int shim_gunzip(const uint8_t *input, size_t length, size_t max_output, uint8_t **out, size_t *out_length);

// MARK: libcrypto

/// SHA-256 of a buffer into 32 bytes.
void shim_sha256(const void *data, size_t length, uint8_t digest[32]);

/// Constant-time comparison; returns 1 when equal (lengths must match too).
int shim_constant_time_equal(const void *a, size_t a_length, const void *b, size_t b_length);

// MARK: libidn2

/// Converts a UTF-8 domain to lowercase ASCII (punycode) per IDNA2008/UTS#46.
/// Returns 0 on success and a malloc'd string in *out; a negative libidn2 code otherwise.
int shim_domain_to_ascii(const char *utf8, char **out);

// MARK: sockets

/// Sets O_NONBLOCK. Returns 0 or -1 with errno.
int shim_set_nonblocking(int fd);
int shim_set_int_option(int fd, int level, int option, int value);
/// Ignores SIGPIPE process-wide so a peer reset is an EPIPE, not a crash.
void shim_ignore_sigpipe(void);
/// Blocks SIGTERM/SIGINT in the calling thread so Dispatch signal sources receive them.
void shim_block_termination_signals(void);

// MARK: epoll (the HTTP server's event loops; <sys/epoll.h> is not in Swift's Glibc module)

#define SHIM_EPOLLIN 0x001u
#define SHIM_EPOLLOUT 0x004u
#define SHIM_EPOLLERR 0x008u
#define SHIM_EPOLLHUP 0x010u
#define SHIM_EPOLLRDHUP 0x2000u
#define SHIM_EPOLLEXCLUSIVE (1u << 28)
#define SHIM_EPOLLET (1u << 31)
/// epoll_create1(EPOLL_CLOEXEC).
int shim_epoll_create(void);
/// op: 1 add, 2 delete, 3 modify (EPOLL_CTL_*); data comes back from shim_epoll_wait.
int shim_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data);
/// Waits for up to max events, writing their flags and data into the two arrays.
int shim_epoll_wait(int epfd, uint32_t *events, uint64_t *data, int max, int timeout_ms);
/// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC.
int shim_accept_nonblocking(int fd);
/// memfd_create(name, MFD_CLOEXEC): an anonymous in-memory file the HTTP server fills with a
/// response body once, so it can be sent with sendfile (no user-space copy per response).
int shim_memfd_create(const char *name);

/// mallopt(M_MMAP_THRESHOLD, bytes): blocks at least this large get their own mapping, which goes
/// back to the system when freed (setting it also stops glibc from raising the mmap and trim
/// thresholds by itself). 1 on success.
int shim_malloc_set_mmap_threshold(int bytes);
/// malloc_trim(0): returns free heap pages of every arena to the system (glibc). 1 if any were.
int shim_malloc_trim(void);

// MARK: Ed25519 (signed manifests, issue #13): its own header and ed25519.c
#include "CNIOShimEd25519.h"

// MARK: libzstd (RFC 9842 dcz patches) ---- begin: patches block
// Raw-content prefix dictionaries (ZSTD_CCtx_refPrefix / ZSTD_DCtx_refPrefix), one frame per call.

/// Compresses `input` into one zstd frame against `prefix` as a raw-content dictionary, single-threaded
/// (the same bytes on every run of the same libzstd), at `level` with window log `window_log` (zstd may
/// lower it to what dictionary + input need). No dictionary ID is written; the content size and the
/// checksum are written when their flags are 1; `long_distance` 1 enables long-distance matching.
/// Returns 0 on success (*out malloc'd), or -1 with a static message in *error.
int shim_zstd_compress_with_prefix(const uint8_t *prefix, size_t prefix_length,
                                   const uint8_t *input, size_t length,
                                   int level, int window_log, int content_size_flag, int checksum_flag,
                                   int long_distance, uint8_t **out, size_t *out_length, const char **error);

#define SHIM_ZSTD_OK 0
/// The frame would decode to more than `capacity - 1` bytes (the caller passes its bound + 1).
#define SHIM_ZSTD_OUTPUT_LIMIT 1
/// The input ends before the frame does.
#define SHIM_ZSTD_TRUNCATED 2
/// The frame's window is above 2^window_log_max (ZSTD_d_windowLogMax).
#define SHIM_ZSTD_WINDOW_TOO_LARGE 3
/// Anything else libzstd refuses (bad magic, checksum, corrupt blocks, bytes after the frame).
#define SHIM_ZSTD_CORRUPT 4
#define SHIM_ZSTD_NO_MEMORY 5

/// Decodes exactly one zstd frame against `prefix` as a raw-content dictionary into the caller's `out`
/// (at most `capacity` bytes are ever written), refusing windows above 2^window_log_max.
/// Returns one of SHIM_ZSTD_*; *out_length is the bytes produced; *error is a static message or NULL.
int shim_zstd_decompress_with_prefix(const uint8_t *prefix, size_t prefix_length,
                                     const uint8_t *frame, size_t frame_length, int window_log_max,
                                     uint8_t *out, size_t capacity, size_t *out_length, const char **error);
// ---- end: patches block

#endif
