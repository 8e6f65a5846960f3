// zlib's deflate/inflate behind its init macros: deterministic gzip and bounded gunzip. Links zlib.
#ifndef CZLIBSHIM_H
#define CZLIBSHIM_H

#include <stddef.h>
#include <stdint.h>

/// Deterministic gzip: mtime 0, OS byte 255 (unknown), no file name, so the same input gives
/// the same bytes on every machine with the same zlib. max_chain > 0 keeps level 9's match
/// lengths but follows at most that many hash-chain links (deflateTune); 0 is the level's own
/// setting. Returns 0 on success; *out is malloc'd.
int shim_gzip(const uint8_t *input, size_t length, int level, int max_chain, uint8_t **out, size_t *out_length);

/// Inflates gzip or zlib data (auto-detected). Fails with -2 if the output would exceed max_output.
/// Returns 0 on success; *out is malloc'd.
int shim_gunzip(const uint8_t *input, size_t length, size_t max_output, uint8_t **out, size_t *out_length);

#endif
