#include "CCryptoShim.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

void shim_sha256(const void *data, size_t length, uint8_t digest[32]) {
    SHA256((const unsigned char *)data, length, digest);
}

int shim_constant_time_equal(const void *a, size_t a_length, const void *b, size_t b_length) {
    if (a_length != b_length) return 0;
    if (a_length == 0) return 1;
    return CRYPTO_memcmp(a, b, a_length) == 0 ? 1 : 0;
}
