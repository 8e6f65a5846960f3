#include "CNIOShim.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <idn2.h>
#include <malloc.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <zlib.h>

// MARK: libcurl

CURLcode shim_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode shim_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode shim_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode shim_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode shim_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode shim_curl_setopt_write_callback(CURL *handle, shim_curl_data_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}
CURLcode shim_curl_setopt_header_callback(CURL *handle, shim_curl_data_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback);
}
CURLcode shim_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

// MARK: zlib

int shim_gzip(const uint8_t *input, size_t length, int level, int max_chain, uint8_t **out, size_t *out_length) {
    z_stream stream;
    memset(&stream, 0, sizeof(stream));
    // windowBits 15 + 16 selects the gzip wrapper; memLevel 8 is zlib's default.
    if (deflateInit2(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return -1;
    // Level 9's match lengths (good 32, lazy 258, nice 258) with a shorter hash chain.
    if (max_chain > 0 && deflateTune(&stream, 32, 258, 258, max_chain) != Z_OK) { deflateEnd(&stream); return -1; }
    gz_header header;
    memset(&header, 0, sizeof(header));
    header.time = 0;
    header.os = 255;
    if (deflateSetHeader(&stream, &header) != Z_OK) { deflateEnd(&stream); return -1; }
    uLong bound = deflateBound(&stream, (uLong)length) + 32;
    uint8_t *buffer = malloc(bound);
    if (!buffer) { deflateEnd(&stream); return -1; }
    stream.next_in = (Bytef *)input;
    stream.avail_in = (uInt)length;
    stream.next_out = buffer;
    stream.avail_out = (uInt)bound;
    int result = deflate(&stream, Z_FINISH);
    if (result != Z_STREAM_END) { free(buffer); deflateEnd(&stream); return -1; }
    *out_length = stream.total_out;
    *out = buffer;
    deflateEnd(&stream);
    return 0;
}

int shim_gunzip(const uint8_t *input, size_t length, size_t max_output, uint8_t **out, size_t *out_length) {
    z_stream stream;
    memset(&stream, 0, sizeof(stream));
    if (inflateInit2(&stream, 15 + 32) != Z_OK) return -1;
    size_t capacity = length * 4 + 1024;
    if (capacity > max_output + 1) capacity = max_output + 1;
    uint8_t *buffer = malloc(capacity);
    if (!buffer) { inflateEnd(&stream); return -1; }
    stream.next_in = (Bytef *)input;
    stream.avail_in = (uInt)length;
    size_t produced = 0;
    for (;;) {
        if (produced == capacity) {
            if (capacity > max_output) { free(buffer); inflateEnd(&stream); return -2; }
            size_t next = capacity * 2;
            if (next > max_output + 1) next = max_output + 1;
            uint8_t *grown = realloc(buffer, next);
            if (!grown) { free(buffer); inflateEnd(&stream); return -1; }
            buffer = grown;
            capacity = next;
        }
        stream.next_out = buffer + produced;
        stream.avail_out = (uInt)(capacity - produced);
        int result = inflate(&stream, Z_NO_FLUSH);
        produced = capacity - stream.avail_out;
        if (result == Z_STREAM_END) break;
        if (result != Z_OK) { free(buffer); inflateEnd(&stream); return -1; }
        if (stream.avail_in == 0 && stream.avail_out != 0) { free(buffer); inflateEnd(&stream); return -3; }
    }
    if (produced > max_output) { free(buffer); inflateEnd(&stream); return -2; }
    inflateEnd(&stream);
    *out = buffer;
    *out_length = produced;
    return 0;
}

// MARK: libcrypto

void shim_sha256(const void *data, size_t length, uint8_t digest[32]) {
    SHA256((const unsigned char *)data, length, digest);
}

int shim_constant_time_equal(const void *a, size_t a_length, const void *b, size_t b_length) {
    if (a_length != b_length) return 0;
    if (a_length == 0) return 1;
    return CRYPTO_memcmp(a, b, a_length) == 0 ? 1 : 0;
}

// MARK: libidn2

int shim_domain_to_ascii(const char *utf8, char **out) {
    int flags = IDN2_NONTRANSITIONAL | IDN2_NFC_INPUT;
    int result = idn2_to_ascii_8z(utf8, out, flags);
    if (result != IDN2_OK) {
        // Fall back to transitional processing, as browsers did for some legacy names.
        result = idn2_to_ascii_8z(utf8, out, IDN2_TRANSITIONAL | IDN2_NFC_INPUT);
    }
    return result;
}

// MARK: sockets

int shim_set_nonblocking(int fd) {
    int flags = fcntl(fd, F_GETFL, 0);
    if (flags < 0) return -1;
    return fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

int shim_set_int_option(int fd, int level, int option, int value) {
    return setsockopt(fd, level, option, &value, sizeof(value));
}

void shim_ignore_sigpipe(void) {
    signal(SIGPIPE, SIG_IGN);
}

void shim_block_termination_signals(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
}

// MARK: epoll

#include <sys/epoll.h>

// Declared by <sys/socket.h> only under _GNU_SOURCE, which this file does not define.
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);

int shim_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

int shim_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data) {
    struct epoll_event event;
    memset(&event, 0, sizeof(event));
    event.events = events;
    event.data.u64 = data;
    return epoll_ctl(epfd, op, fd, &event);
}

int shim_epoll_wait(int epfd, uint32_t *events, uint64_t *data, int max, int timeout_ms) {
    struct epoll_event buffer[256];
    if (max > 256) max = 256;
    int count = epoll_wait(epfd, buffer, max, timeout_ms);
    for (int i = 0; i < count; i++) {
        events[i] = buffer[i].events;
        data[i] = buffer[i].data.u64;
    }
    return count;
}

int shim_accept_nonblocking(int fd) {
    return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

// Declared by <sys/mman.h> only under _GNU_SOURCE.
extern int memfd_create(const char *name, unsigned int flags);

int shim_memfd_create(const char *name) {
    return memfd_create(name, 0x0001U /* MFD_CLOEXEC */);
}

int shim_malloc_set_mmap_threshold(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}

int shim_malloc_trim(void) {
    return malloc_trim(0);
}

// MARK: libzstd (RFC 9842 dcz patches) ---- begin: patches block

#include <zstd.h>
#include <zstd_errors.h>

int shim_zstd_compress_with_prefix(const uint8_t *prefix, size_t prefix_length,
                                   const uint8_t *input, size_t length,
                                   int level, int window_log, int content_size_flag, int checksum_flag,
                                   int long_distance, uint8_t **out, size_t *out_length, const char **error) {
    *error = NULL;
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    if (!cctx) { *error = "out of memory"; return -1; }
    size_t status = 0;
    const ZSTD_cParameter keys[] = {ZSTD_c_nbWorkers, ZSTD_c_compressionLevel, ZSTD_c_windowLog,
                                    ZSTD_c_contentSizeFlag, ZSTD_c_checksumFlag, ZSTD_c_dictIDFlag,
                                    ZSTD_c_enableLongDistanceMatching};
    const int values[] = {0, level, window_log, content_size_flag, checksum_flag, 0, long_distance ? 1 : 2};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]) && !ZSTD_isError(status); i++) {
        status = ZSTD_CCtx_setParameter(cctx, keys[i], values[i]);
    }
    if (!ZSTD_isError(status)) status = ZSTD_CCtx_refPrefix(cctx, prefix, prefix_length);
    if (ZSTD_isError(status)) { *error = ZSTD_getErrorName(status); ZSTD_freeCCtx(cctx); return -1; }
    size_t bound = ZSTD_compressBound(length);
    uint8_t *buffer = malloc(bound);
    if (!buffer) { *error = "out of memory"; ZSTD_freeCCtx(cctx); return -1; }
    size_t written = ZSTD_compress2(cctx, buffer, bound, input, length);
    ZSTD_freeCCtx(cctx);
    if (ZSTD_isError(written)) { *error = ZSTD_getErrorName(written); free(buffer); return -1; }
    *out = buffer;
    *out_length = written;
    return 0;
}

static int shim_zstd_classify(size_t code) {
    switch (ZSTD_getErrorCode(code)) {
    case ZSTD_error_frameParameter_windowTooLarge: return SHIM_ZSTD_WINDOW_TOO_LARGE;
    case ZSTD_error_memory_allocation: return SHIM_ZSTD_NO_MEMORY;
    case ZSTD_error_dstSize_tooSmall: return SHIM_ZSTD_OUTPUT_LIMIT;
    case ZSTD_error_srcSize_wrong: return SHIM_ZSTD_TRUNCATED;
    default: return SHIM_ZSTD_CORRUPT;
    }
}

int shim_zstd_decompress_with_prefix(const uint8_t *prefix, size_t prefix_length,
                                     const uint8_t *frame, size_t frame_length, int window_log_max,
                                     uint8_t *out, size_t capacity, size_t *out_length, const char **error) {
    *error = NULL;
    *out_length = 0;
    ZSTD_DCtx *dctx = ZSTD_createDCtx();
    if (!dctx) { *error = "out of memory"; return SHIM_ZSTD_NO_MEMORY; }
    size_t status = ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax, window_log_max);
    if (!ZSTD_isError(status)) status = ZSTD_DCtx_refPrefix(dctx, prefix, prefix_length);
    if (ZSTD_isError(status)) {
        *error = ZSTD_getErrorName(status);
        ZSTD_freeDCtx(dctx);
        return SHIM_ZSTD_CORRUPT;
    }
    ZSTD_inBuffer input = {frame, frame_length, 0};
    ZSTD_outBuffer output = {out, capacity, 0};
    int result = SHIM_ZSTD_OK;
    for (;;) {
        size_t before_in = input.pos, before_out = output.pos;
        size_t hint = ZSTD_decompressStream(dctx, &output, &input);
        if (ZSTD_isError(hint)) { *error = ZSTD_getErrorName(hint); result = shim_zstd_classify(hint); break; }
        if (hint == 0) {  // the frame is complete
            if (input.pos < input.size) { *error = "bytes after the end of the zstd frame"; result = SHIM_ZSTD_CORRUPT; }
            break;
        }
        if (output.pos == output.size) { *error = "output exceeds its bound"; result = SHIM_ZSTD_OUTPUT_LIMIT; break; }
        if (input.pos == input.size || (input.pos == before_in && output.pos == before_out)) {
            *error = "the input ends inside the zstd frame";
            result = SHIM_ZSTD_TRUNCATED;
            break;
        }
    }
    *out_length = output.pos;
    ZSTD_freeDCtx(dctx);
    return result;
}
// ---- end: patches block
