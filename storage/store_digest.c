/*
 * store_digest.c -- SHA-256 for content-addressed dataset ids and the
 * request hash that guards idempotency keys, by Nettle (the library
 * GnuTLS, and so libmicrohttpd, already brings).
 */
#include <nettle/sha2.h>

#include "store.h"

void store_sha256(const void *data, size_t len, uint8_t out[STORE_SHA256_LEN])
{
    struct sha256_ctx c;
    sha256_init(&c);
    sha256_update(&c, len, data ? data : (const void *)"");
    sha256_digest(&c, STORE_SHA256_LEN, out);
}

void store_sha256_hex(const uint8_t d[STORE_SHA256_LEN], char hex[65])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < STORE_SHA256_LEN; i++) {
        hex[2 * i] = digits[d[i] >> 4];
        hex[2 * i + 1] = digits[d[i] & 15];
    }
    hex[64] = '\0';
}

_Static_assert(sizeof(struct sha256_ctx) <= sizeof(store_sha256_ctx),
               "store_sha256_ctx holds Nettle's context");

void store_sha256_init(store_sha256_ctx *c)
{
    sha256_init((struct sha256_ctx *)c->opaque);
}

void store_sha256_update(store_sha256_ctx *c, const void *data, size_t len)
{
    if (len)
        sha256_update((struct sha256_ctx *)c->opaque, len, data);
}

void store_sha256_final(store_sha256_ctx *c, uint8_t out[STORE_SHA256_LEN])
{
    sha256_digest((struct sha256_ctx *)c->opaque, STORE_SHA256_LEN, out);
}
