// libcrypto (OpenSSL 3): SHA-256, constant-time comparison and Ed25519. Links libcrypto.
#ifndef CCRYPTOSHIM_H
#define CCRYPTOSHIM_H

#include <stddef.h>
#include <stdint.h>

/// SHA-256 of a buffer into 32 bytes.
void shim_sha256(const void *data, size_t length, uint8_t digest[32]);

/// Constant-time comparison; returns 1 when equal (lengths must match too).
int shim_constant_time_equal(const void *a, size_t a_length, const void *b, size_t b_length);

#include "CCryptoShimEd25519.h"

#endif
