/*
 * tls.c -- HTTPS: the certificate and key for libmicrohttpd (with GnuTLS),
 * checked before the daemon starts, and the TLS client of --healthcheck.
 *
 * The PEM files are read once at start into memory (MHD keeps pointers to
 * them while it runs) and checked with GnuTLS, so a missing file, a
 * garbled PEM or a key that does not belong to the certificate stops the
 * start with a message that says which, instead of MHD's generic failure.
 * The key's bytes are wiped when the daemon stops.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gnutls/gnutls.h>
#include <microhttpd.h>

#include "base/base.h"

/* The whole file, NUL-terminated (MHD wants C strings); NULL on error. */
static char *read_pem(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && n < (1L << 20) &&
        fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) != NULL &&
        fread(buf, 1, (size_t)n, f) == (size_t)n) {
        buf[n] = '\0';
        *len = (size_t)n;
    } else {
        snprintf(err, errlen, "cannot read %s: %s", path,
                 n >= (1L << 20) ? "larger than 1 MiB" : errno ? strerror(errno) : "read error");
        free(buf);
        buf = NULL;
    }
    if (f)
        fclose(f);
    return buf;
}

/* GnuTLS's own check: both parse, and the key is the certificate's. */
static int check_pair(const srv_config *c, const srv_tls *t, char *err, size_t errlen)
{
    gnutls_certificate_credentials_t cred = NULL;
    gnutls_datum_t cert = {(unsigned char *)t->cert, (unsigned)t->cert_len};
    gnutls_datum_t key = {(unsigned char *)t->key, (unsigned)t->key_len};
    int rc = gnutls_certificate_allocate_credentials(&cred);
    if (rc >= 0)
        rc = gnutls_certificate_set_x509_key_mem(cred, &cert, &key, GNUTLS_X509_FMT_PEM);
    if (cred)
        gnutls_certificate_free_credentials(cred);
    if (rc < 0)
        snprintf(err, errlen, "the TLS certificate %s and key %s cannot be used: %s",
                 c->tls_cert, c->tls_key, gnutls_strerror(rc));
    return rc < 0 ? -1 : 0;
}

int srv_tls_load(const srv_config *c, srv_tls *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    if (!c->tls_cert[0])
        return 0;
    if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
        snprintf(err, errlen, "HTTPS was asked for (--tls-cert) but this libmicrohttpd "
                 "(%s) was built without TLS support", MHD_get_version());
        return -1;
    }
    if (!(t->cert = read_pem(c->tls_cert, &t->cert_len, err, errlen)) ||
        !(t->key = read_pem(c->tls_key, &t->key_len, err, errlen)) ||
        check_pair(c, t, err, errlen) != 0) {
        srv_tls_free(t);
        return -1;
    }
    return 0;
}

void srv_tls_free(srv_tls *t)
{
    if (t->key)
        explicit_bzero(t->key, t->key_len);
    free(t->key);
    free(t->cert);
    memset(t, 0, sizeof *t);
}

/* ------------------------------------------------ healthcheck client -- */

/* A TLS session over the connected fd; the peer is not verified (this
 * is a liveness probe of our own daemon on the local address, not a
 * client trusting what it reads).  NULL on failure. */
static gnutls_session_t client_open(int fd, gnutls_certificate_credentials_t cred)
{
    gnutls_session_t s = NULL;
    int rc = gnutls_init(&s, GNUTLS_CLIENT);
    if (rc >= 0)
        rc = gnutls_set_default_priority(s);
    if (rc >= 0)
        rc = gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, cred);
    if (rc >= 0) {
        gnutls_transport_set_int(s, fd);
        gnutls_handshake_set_timeout(s, 3000);
        do
            rc = gnutls_handshake(s);
        while (rc < 0 && !gnutls_error_is_fatal(rc));
    }
    if (rc < 0 && s) {
        gnutls_deinit(s);
        s = NULL;
    }
    return s;
}

ssize_t srv_tls_exchange(int fd, const char *req, size_t len, char *resp, size_t cap)
{
    gnutls_certificate_credentials_t cred = NULL;
    gnutls_session_t s = NULL;
    ssize_t n = -1;
    if (gnutls_certificate_allocate_credentials(&cred) >= 0 && (s = client_open(fd, cred))) {
        if (gnutls_record_send(s, req, len) == (ssize_t)len)
            n = gnutls_record_recv(s, resp, cap);
        gnutls_bye(s, GNUTLS_SHUT_WR);
        gnutls_deinit(s);
    }
    if (cred)
        gnutls_certificate_free_credentials(cred);
    return n;
}
