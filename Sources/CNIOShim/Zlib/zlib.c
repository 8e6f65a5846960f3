#include "CZlibShim.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

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
