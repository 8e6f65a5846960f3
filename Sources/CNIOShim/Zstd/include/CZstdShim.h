// libzstd: one frame against a raw-content prefix dictionary (RFC 9842 dcz). Links libzstd.
#ifndef CZSTDSHIM_H
#define CZSTDSHIM_H

#include <stddef.h>
#include <stdint.h>

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

#endif
