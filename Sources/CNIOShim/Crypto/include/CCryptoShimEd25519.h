// Ed25519 through libcrypto (OpenSSL 3): key generation, PKCS#8 PEM, raw public keys, sign and
// verify. Used to sign published manifests (minisign format) and to verify them in ListSync on Linux.
// Kept in its own header and source file.
#ifndef CCRYPTOSHIM_ED25519_H
#define CCRYPTOSHIM_ED25519_H

#include <stddef.h>
#include <stdint.h>

/// An Ed25519 private key (an EVP_PKEY inside); free with shim_ed25519_key_free.
typedef struct shim_ed25519_key shim_ed25519_key;

/// Return codes of the functions below.
#define SHIM_ED25519_OK 0
/// libcrypto failed (out of memory, no entropy).
#define SHIM_ED25519_ERR_CRYPTO (-1)
/// The PEM text is not a readable, unencrypted private key.
#define SHIM_ED25519_ERR_NOT_PEM (-2)
/// The PEM holds a private key of another type (RSA, EC, X25519, ...).
#define SHIM_ED25519_ERR_NOT_ED25519 (-3)

/// Generates a fresh key from the system's CSPRNG. NULL on failure.
shim_ed25519_key *shim_ed25519_generate(void);

/// Reads an unencrypted private key from PEM text (PKCS#8 "PRIVATE KEY", what `openssl genpkey`
/// and `openssl pkey` write). Never prompts for a password. Returns SHIM_ED25519_OK and *out.
int shim_ed25519_read_private_pem(const char *pem, size_t length, shim_ed25519_key **out);

/// Writes the private key as unencrypted PKCS#8 PEM into a malloc'd buffer (*out, *out_length).
/// The caller wipes it (shim_ed25519_wipe_free) when done.
int shim_ed25519_write_private_pem(const shim_ed25519_key *key, char **out, size_t *out_length);

/// Frees a buffer after overwriting it with zeros (OPENSSL_cleanse).
void shim_ed25519_wipe_free(void *buffer, size_t length);

/// The raw 32-byte public key (RFC 8032 encoding).
int shim_ed25519_public_key(const shim_ed25519_key *key, uint8_t public_key[32]);

/// Signs message bytes (pure Ed25519, no prehash) into 64 bytes.
int shim_ed25519_sign(const shim_ed25519_key *key, const uint8_t *message, size_t length, uint8_t signature[64]);

/// Verifies a 64-byte signature over message bytes with a raw 32-byte public key.
/// Returns 1 when valid, 0 when not (including a malformed key), SHIM_ED25519_ERR_CRYPTO on failure.
int shim_ed25519_verify(const uint8_t public_key[32], const uint8_t *message, size_t length,
                        const uint8_t signature[64]);

void shim_ed25519_key_free(shim_ed25519_key *key);

#endif
