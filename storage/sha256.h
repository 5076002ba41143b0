/*
 * sha256.h -- SHA-256 (FIPS 180-4), self-contained so the store needs no
 * crypto library.  Used for content-addressed dataset ids and for the
 * request hash that guards idempotency keys.
 */
#ifndef IRCG_STORE_SHA256_H
#define IRCG_STORE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define STORE_SHA256_LEN 32

typedef struct store_sha256_ctx {
    uint32_t h[8];
    uint64_t nbytes;     /* total length so far */
    uint8_t buf[64];     /* partial block */
    size_t nbuf;
} store_sha256_ctx;

void store_sha256_init(store_sha256_ctx *c);
void store_sha256_update(store_sha256_ctx *c, const void *data, size_t len);
void store_sha256_final(store_sha256_ctx *c, uint8_t out[STORE_SHA256_LEN]);

/* One shot.  data may be NULL when len == 0. */
void store_sha256(const void *data, size_t len, uint8_t out[STORE_SHA256_LEN]);
/* 64 lowercase hex digits + NUL into hex[65]. */
void store_sha256_hex(const uint8_t d[STORE_SHA256_LEN], char hex[65]);

#endif /* IRCG_STORE_SHA256_H */
