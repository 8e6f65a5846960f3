// Ed25519 through libcrypto; see include/CNIOShimEd25519.h.
#include "CCryptoShimEd25519.h"

#include <stdlib.h>
#include <string.h>
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

struct shim_ed25519_key {
    EVP_PKEY *pkey;
};

// Swift passes NULL for an empty buffer; libcrypto wants a pointer even for zero bytes.
static const uint8_t empty_message[1] = {0};

static shim_ed25519_key *wrap(EVP_PKEY *pkey) {
    if (pkey == NULL) return NULL;
    shim_ed25519_key *key = malloc(sizeof *key);
    if (key == NULL) {
        EVP_PKEY_free(pkey);
        return NULL;
    }
    key->pkey = pkey;
    return key;
}

shim_ed25519_key *shim_ed25519_generate(void) {
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, NULL);
    if (context == NULL) return NULL;
    EVP_PKEY *pkey = NULL;
    if (EVP_PKEY_keygen_init(context) != 1 || EVP_PKEY_keygen(context, &pkey) != 1) pkey = NULL;
    EVP_PKEY_CTX_free(context);
    return wrap(pkey);
}

// A password callback that refuses: an encrypted key fails to load instead of prompting on a tty.
static int no_password(char *buffer, int size, int rwflag, void *userdata) {
    (void)buffer; (void)size; (void)rwflag; (void)userdata;
    return -1;
}

int shim_ed25519_read_private_pem(const char *pem, size_t length, shim_ed25519_key **out) {
    *out = NULL;
    if (length > (size_t)INT32_MAX) return SHIM_ED25519_ERR_NOT_PEM;
    BIO *bio = BIO_new_mem_buf(pem, (int)length);
    if (bio == NULL) return SHIM_ED25519_ERR_CRYPTO;
    EVP_PKEY *pkey = PEM_read_bio_PrivateKey(bio, NULL, no_password, NULL);
    BIO_free(bio);
    if (pkey == NULL) return SHIM_ED25519_ERR_NOT_PEM;
    if (EVP_PKEY_get_id(pkey) != EVP_PKEY_ED25519) {
        EVP_PKEY_free(pkey);
        return SHIM_ED25519_ERR_NOT_ED25519;
    }
    *out = wrap(pkey);
    return *out == NULL ? SHIM_ED25519_ERR_CRYPTO : SHIM_ED25519_OK;
}

int shim_ed25519_write_private_pem(const shim_ed25519_key *key, char **out, size_t *out_length) {
    *out = NULL;
    *out_length = 0;
    BIO *bio = BIO_new(BIO_s_secmem());
    if (bio == NULL) return SHIM_ED25519_ERR_CRYPTO;
    int result = SHIM_ED25519_ERR_CRYPTO;
    // PEM_write_bio_PrivateKey writes PKCS#8 ("BEGIN PRIVATE KEY"); no cipher, so no password.
    if (PEM_write_bio_PrivateKey(bio, key->pkey, NULL, NULL, 0, NULL, NULL) == 1) {
        char *data = NULL;
        long count = BIO_get_mem_data(bio, &data);
        if (count > 0 && (*out = malloc((size_t)count)) != NULL) {
            memcpy(*out, data, (size_t)count);
            *out_length = (size_t)count;
            result = SHIM_ED25519_OK;
        }
    }
    BIO_free(bio);
    return result;
}

void shim_ed25519_wipe_free(void *buffer, size_t length) {
    if (buffer == NULL) return;
    OPENSSL_cleanse(buffer, length);
    free(buffer);
}

int shim_ed25519_public_key(const shim_ed25519_key *key, uint8_t public_key[32]) {
    size_t length = 32;
    if (EVP_PKEY_get_raw_public_key(key->pkey, public_key, &length) != 1 || length != 32) {
        return SHIM_ED25519_ERR_CRYPTO;
    }
    return SHIM_ED25519_OK;
}

int shim_ed25519_sign(const shim_ed25519_key *key, const uint8_t *message, size_t length, uint8_t signature[64]) {
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    if (context == NULL) return SHIM_ED25519_ERR_CRYPTO;
    size_t signature_length = 64;
    // Ed25519 takes no digest (NULL): it hashes the message itself, in one shot.
    int ok = EVP_DigestSignInit(context, NULL, NULL, NULL, key->pkey) == 1
        && EVP_DigestSign(context, signature, &signature_length, message ? message : empty_message, length) == 1
        && signature_length == 64;
    EVP_MD_CTX_free(context);
    return ok ? SHIM_ED25519_OK : SHIM_ED25519_ERR_CRYPTO;
}

int shim_ed25519_verify(const uint8_t public_key[32], const uint8_t *message, size_t length,
                        const uint8_t signature[64]) {
    EVP_PKEY *pkey = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, public_key, 32);
    if (pkey == NULL) return 0;
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    if (context == NULL) {
        EVP_PKEY_free(pkey);
        return SHIM_ED25519_ERR_CRYPTO;
    }
    int result = 0;
    if (EVP_DigestVerifyInit(context, NULL, NULL, NULL, pkey) == 1) {
        result = EVP_DigestVerify(context, signature, 64, message ? message : empty_message, length) == 1 ? 1 : 0;
    } else {
        result = SHIM_ED25519_ERR_CRYPTO;
    }
    EVP_MD_CTX_free(context);
    EVP_PKEY_free(pkey);
    return result;
}

void shim_ed25519_key_free(shim_ed25519_key *key) {
    if (key == NULL) return;
    EVP_PKEY_free(key->pkey);
    free(key);
}
