/*
 * auth.c -- bearer tokens with scopes, stored hashed.
 *
 * The tokens file holds one entry per line, "sha256:<64 hex digits> SCOPE"
 * (blank lines and lines starting with '#' are ignored): the SHA-256 of a
 * token, never the token itself, so a leaked file or backup grants
 * nothing.  Tokens are random strings (`ircgd --hash-token` refuses short
 * ones), so one unsalted SHA-256 is enough: there is no dictionary to try.
 *
 * Scopes are ordered, each including the ones below it:
 *   read   < submit (create jobs and datasets, cancel jobs) < admin (delete)
 * A request's token is hashed and compared with every entry in constant
 * time (Nettle's memeql_sec), so neither where a digest differs nor which
 * entry matched leaks through timing.  No token is ever logged.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <nettle/memops.h>
#include <nettle/sha2.h>

#include "base/base.h"

static const char *const SCOPE_NAMES[] = {"none", "read", "submit", "admin"};

const char *srv_scope_name(srv_scope s)
{
    return s >= SRV_SCOPE_NONE && s <= SRV_SCOPE_ADMIN ? SCOPE_NAMES[s] : "?";
}

int srv_scope_parse(const char *name, srv_scope *out)
{
    for (int s = SRV_SCOPE_READ; s <= SRV_SCOPE_ADMIN; s++)
        if (!strcmp(name, SCOPE_NAMES[s])) {
            *out = (srv_scope)s;
            return 0;
        }
    return -1;
}

void srv_token_digest(const char *token, size_t len, uint8_t digest[SRV_DIGEST_LEN])
{
    struct sha256_ctx ctx;
    sha256_init(&ctx);
    sha256_update(&ctx, len, (const uint8_t *)token);
    sha256_digest(&ctx, SRV_DIGEST_LEN, digest);
}

static int hex_value(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* "sha256:<64 hex>" into digest; 0 on success. */
static int parse_digest(const char *s, uint8_t digest[SRV_DIGEST_LEN])
{
    if (strncmp(s, "sha256:", 7) != 0 || strlen(s + 7) != 2 * SRV_DIGEST_LEN)
        return -1;
    for (int i = 0; i < SRV_DIGEST_LEN; i++) {
        int hi = hex_value((unsigned char)s[7 + 2 * i]);
        int lo = hex_value((unsigned char)s[8 + 2 * i]);
        if (hi < 0 || lo < 0)
            return -1;
        digest[i] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

/* One non-comment line into t; 0 on success, else a reason in why. */
static int parse_entry(char *line, srv_token *t, const char **why)
{
    char *save = NULL;
    char *hash = strtok_r(line, " \t\r\n", &save);
    char *scope = strtok_r(NULL, " \t\r\n", &save);
    char *extra = strtok_r(NULL, " \t\r\n", &save);
    if (!hash || parse_digest(hash, t->digest) != 0)
        *why = "expected \"sha256:<64 hex digits> SCOPE\" (make entries with "
               "`ircgd --hash-token SCOPE`; plain tokens are no longer accepted)";
    else if (!scope || srv_scope_parse(scope, &t->scope) != 0)
        *why = "the scope must be read, submit or admin";
    else if (extra)
        *why = "unexpected text after the scope";
    else
        return 0;
    return -1;
}

static bool is_blank_or_comment(const char *line)
{
    while (isspace((unsigned char)*line))
        line++;
    return *line == '\0' || *line == '#';
}

int srv_tokens_load(const char *path, srv_tokens *out, char *err, size_t errlen)
{
    srv_tokens ts = {0};
    char line[1024];
    const char *why = NULL;
    long ln = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot read the tokens file %s", path);
        return -1;
    }
    while (!why && fgets(line, sizeof line, f)) {
        ln++;
        if (is_blank_or_comment(line))
            continue;
        srv_token *grown = realloc(ts.list, (ts.n + 1) * sizeof *grown);
        if (!grown)
            why = "out of memory";
        else if (parse_entry(line, &(ts.list = grown)[ts.n], &why) == 0)
            ts.n++;
    }
    fclose(f);
    if (why)
        snprintf(err, errlen, "the tokens file %s, line %ld: %s", path, ln, why);
    else if (ts.n == 0)
        snprintf(err, errlen, "the tokens file %s holds no token", path);
    if (why || ts.n == 0) {
        srv_tokens_free(&ts);
        return -1;
    }
    *out = ts;
    return 0;
}

void srv_tokens_free(srv_tokens *ts)
{
    if (ts) {
        free(ts->list);
        ts->list = NULL;
        ts->n = 0;
    }
}

srv_scope srv_auth_scope(const char *authorization)
{
    if (!srv.tokens.list)
        return SRV_SCOPE_ADMIN; /* no tokens file: everything is allowed */
    if (!authorization || strncasecmp(authorization, "Bearer ", 7) != 0)
        return SRV_SCOPE_NONE;
    const char *given = authorization + 7;
    while (*given == ' ')
        given++;
    size_t len = strlen(given);
    while (len > 0 && given[len - 1] == ' ')
        len--;
    if (len == 0)
        return SRV_SCOPE_NONE;
    uint8_t digest[SRV_DIGEST_LEN];
    srv_token_digest(given, len, digest);
    /* every entry is compared: no early exit on a match */
    int best = SRV_SCOPE_NONE;
    for (size_t i = 0; i < srv.tokens.n; i++) {
        int eq = memeql_sec(digest, srv.tokens.list[i].digest, SRV_DIGEST_LEN);
        int s = (int)srv.tokens.list[i].scope;
        int take = -(eq & (s > best)); /* all ones or zero, branch-free */
        best = (best & ~take) | (s & take);
    }
    return (srv_scope)best;
}

/* The characters of an RFC 6750 token (b64token) */
static bool is_token_char(int c)
{
    return isalnum(c) || strchr("-._~+/=", c) != NULL;
}

int srv_hash_token_main(const char *scope_name)
{
    srv_scope scope;
    char tok[4096];
    if (srv_scope_parse(scope_name, &scope) != 0) {
        fprintf(stderr, "ircgd: --hash-token: the scope must be read, submit or admin\n");
        return 2;
    }
    size_t n = fread(tok, 1, sizeof tok - 1, stdin);
    tok[n] = '\0';
    while (n > 0 && (tok[n - 1] == '\n' || tok[n - 1] == '\r'))
        tok[--n] = '\0';
    int ok = n >= SRV_TOKEN_MIN && n < sizeof tok - 1;
    for (size_t i = 0; ok && i < n; i++)
        ok = is_token_char((unsigned char)tok[i]);
    if (!ok) {
        fprintf(stderr, "ircgd: --hash-token reads one token on standard input: %d to "
                        "4094 characters of A-Z a-z 0-9 - . _ ~ + / = (for example "
                        "`head -c 32 /dev/urandom | base64`)\n", SRV_TOKEN_MIN);
        return 2;
    }
    uint8_t d[SRV_DIGEST_LEN];
    srv_token_digest(tok, n, d);
    explicit_bzero(tok, sizeof tok); /* no copy of the token left behind */
    printf("sha256:");
    for (int i = 0; i < SRV_DIGEST_LEN; i++)
        printf("%02x", d[i]);
    printf(" %s\n", srv_scope_name(scope));
    return 0;
}
