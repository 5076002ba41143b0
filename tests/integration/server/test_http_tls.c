/*
 * test_http_tls.c -- HTTPS with a certificate made here: a CA and a
 * server certificate for 127.0.0.1 from certtool (gnutls-bin, installed
 * by `make deps`), a daemon started with --tls-cert/--tls-key, and libcurl
 * trusting only that CA.  A job runs over HTTPS; plain HTTP to the same
 * port gets no answer; a client without the CA refuses the server;
 * --healthcheck speaks TLS; a key that is not the certificate's, or a
 * certificate without its key, stops the start with a clear message.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "harness.h"
#include "common/http_util.h"

typedef struct pki {
    char dir[512], ca[600], cert[600], key[600], other_key[600];
} pki;

/* A CA, a server key and certificate (IP 127.0.0.1, DNS localhost)
 * signed by it, and a second key that belongs to nothing. */
static int make_pki(pki *p)
{
    char cmd[4096];
    snprintf(p->dir, sizeof p->dir, "%s/pki", th_tmpdir());
    snprintf(p->ca, sizeof p->ca, "%s/ca.pem", p->dir);
    snprintf(p->cert, sizeof p->cert, "%s/server.pem", p->dir);
    snprintf(p->key, sizeof p->key, "%s/server.key", p->dir);
    snprintf(p->other_key, sizeof p->other_key, "%s/other.key", p->dir);
    snprintf(cmd, sizeof cmd,
             "set -e; mkdir -p '%s'; cd '%s'; exec >certtool.log 2>&1\n"
             "printf 'cn = \"ircg test CA\"\\nca\\ncert_signing_key\\nexpiration_days = 2\\n' > ca.tmpl\n"
             "printf 'cn = \"127.0.0.1\"\\nip_address = \"127.0.0.1\"\\ndns_name = \"localhost\"\\n"
             "tls_www_server\\nexpiration_days = 2\\n' > server.tmpl\n"
             "certtool --generate-privkey --key-type=ecdsa --outfile ca.key\n"
             "certtool --generate-self-signed --load-privkey ca.key --template ca.tmpl --outfile ca.pem\n"
             "certtool --generate-privkey --key-type=ecdsa --outfile server.key\n"
             "certtool --generate-privkey --key-type=ecdsa --outfile other.key\n"
             "certtool --generate-certificate --load-privkey server.key --load-ca-certificate ca.pem "
             "--load-ca-privkey ca.key --template server.tmpl --outfile server.pem\n",
             p->dir, p->dir);
    if (system(cmd) == 0)
        return 0;
    th_fail(__FILE__, __LINE__, "certtool failed: see %s/certtool.log", p->dir);
    return -1;
}

/* certtool comes with gnutls-bin (make deps); its absence is a failure
 * of the set-up, not a reason to skip. */
static int have_certtool(void)
{
    if (system("command -v certtool >/dev/null 2>&1") == 0)
        return 1;
    th_fail(__FILE__, __LINE__, "certtool not found: run `make deps` (gnutls-bin)");
    return 0;
}

/* The exit status of `ircgd --healthcheck` against d (TLS flags as given). */
static int healthcheck(const hu_daemon *d, const pki *p, int tls)
{
    char cmd[2400];
    const char *bd = getenv("IRCG_BUILD_DIR");
    snprintf(cmd, sizeof cmd, "'%s/bin/ircgd' --healthcheck --listen 127.0.0.1:%d %s%s%s%s%s "
             ">/dev/null 2>&1", bd ? bd : "build", d->port, tls ? "--tls-cert '" : "",
             tls ? p->cert : "", tls ? "' --tls-key '" : "", tls ? p->key : "", tls ? "'" : "");
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(http_tls, https_with_a_generated_certificate)
{
    if (!have_certtool())
        return;
    pki p;
    hu_daemon d = {0};
    hu_resp r;
    char id[64], state[16];
    REQUIRE(make_pki(&p) == 0);
    snprintf(d.extra, sizeof d.extra, "--tls-cert %s --tls-key %s", p.cert, p.key);
    snprintf(d.cainfo, sizeof d.cainfo, "%s", p.ca);
    REQUIRE(hu_start(&d, "http_tls", 1) == 0);
    CHECK(!strncmp(d.base, "https://127.0.0.1:", 18));
    /* a job over HTTPS, verified against the CA */
    CHECK_INT(hu_get(&d, "/healthz", &r), 200);
    hu_resp_free(&r);
    char *spec = hu_ls_spec(4, 6, 1, 10, 20, 0, NULL);
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    CHECK(hu_wait_terminal(&d, id, 20, state) == 0);
    CHECK_STR(state, "succeeded");
    free(spec);
    /* plain HTTP to the TLS port: no HTTP answer */
    hu_daemon plain = d;
    snprintf(plain.base, sizeof plain.base, "http://127.0.0.1:%d", d.port);
    CHECK(hu_req(&plain, "GET", "/healthz", NULL, NULL, 0, NULL, &r) != 0);
    CHECK(r.status != 200);
    hu_resp_free(&r);
    /* a client that trusts only the system's CAs refuses the certificate */
    hu_daemon untrusting = d;
    untrusting.cainfo[0] = '\0';
    CHECK(hu_req(&untrusting, "GET", "/healthz", NULL, NULL, 0, NULL, &r) != 0);
    CHECK_INT(r.status, 0);
    hu_resp_free(&r);
    CHECK_INT(healthcheck(&d, &p, 1), 0);
    CHECK_INT(healthcheck(&d, &p, 0), 1); /* plain probe of a TLS port */
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

TEST(http_tls, unusable_certificates_stop_the_start)
{
    if (!have_certtool())
        return;
    pki p;
    hu_daemon d = {0};
    REQUIRE(make_pki(&p) == 0);
    hu_prepare(&d, "http_tls_bad", 1);
    static const struct { const char *fmt; int status; const char *log; } CASES[] = {
        {"--tls-cert %s --tls-key %s", 1, "cannot be used"},   /* key of another cert */
        {"--tls-cert %s", 2, NULL},                           /* no key: usage error */
        {"--tls-cert %s --tls-key %s/missing.key", 1, "cannot read"},
    };
    const char *second[] = {p.other_key, NULL, p.dir};
    for (int i = 0; i < 3; i++) {
        snprintf(d.extra, sizeof d.extra, CASES[i].fmt, p.cert, second[i]);
        remove(d.log);
        CHECK_INT(hu_start_refused(&d), CASES[i].status);
        char *log = hu_read_file(d.log);
        if (CASES[i].log && !(log && strstr(log, CASES[i].log)))
            th_fail(__FILE__, __LINE__, "case %d: the log lacks \"%s\": %s", i, CASES[i].log,
                    log ? log : "(no log)");
        free(log);
    }
}
