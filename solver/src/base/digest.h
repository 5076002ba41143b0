/*
 * digest.h -- a 64-bit digest of byte streams (the XXH64 construction of
 * Yann Collet's xxHash, seed 0), fed in pieces of any size.  It names an
 * instance's data so that a checkpoint is never restored into another
 * instance: a fast check against accidents, not a cryptographic hash.
 * Multi-byte words are read little-endian whatever the host, so a digest
 * is the same on every machine.
 */
#ifndef IRCG_DIGEST_H
#define IRCG_DIGEST_H

#include <stddef.h>
#include <stdint.h>

typedef struct slv_digest {
    uint64_t v[4];
    uint64_t total;         /* bytes fed so far                        */
    unsigned char buf[32];  /* a partial stripe                        */
    size_t nbuf;
} slv_digest;

void slv_digest_init(slv_digest *h);
void slv_digest_update(slv_digest *h, const void *data, size_t len);
uint64_t slv_digest_final(const slv_digest *h);

/* Typed helpers: the values' little-endian bytes. */
void slv_digest_i64(slv_digest *h, int64_t v);
void slv_digest_f64s(slv_digest *h, const double *v, size_t n);
void slv_digest_i32s(slv_digest *h, const int32_t *v, size_t n);
void slv_digest_i64s(slv_digest *h, const int64_t *v, size_t n);

#endif /* IRCG_DIGEST_H */
