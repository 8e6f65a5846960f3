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

// MARK: Ed25519 (signed manifests, issue #13): its own header and ed25519.c
#include "CNIOShimEd25519.h"

#endif
