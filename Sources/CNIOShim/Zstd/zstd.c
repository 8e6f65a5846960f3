#include "CZstdShim.h"

#include <stdlib.h>
#include <string.h>
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
