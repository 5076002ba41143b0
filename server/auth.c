/*
 * auth.c -- optional static bearer tokens.
 *
 * The tokens file holds one token per line (blank lines and lines starting
 * with '#' are ignored).  A request is accepted when its token equals any
 * configured token; every token is compared, in constant time, so neither
 * the position of a mismatch nor which token matched leaks through timing.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "server.h"

void srv_tokens_free(char **tokens)
{
    if (tokens) {
        for (char **t = tokens; *t; t++)
            free(*t);
        free(tokens);
    }
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

int srv_tokens_load(const char *path, char ***out, char *err, size_t errlen)
{
    int rc = -1;
    char **list = calloc(1, sizeof *list);
    size_t n = 0;
    char line[1024];
    FILE *f = fopen(path, "r");
    if (!f || !list) {
        snprintf(err, errlen, "cannot read the tokens file %s", path);
        goto done;
    }
    while (fgets(line, sizeof line, f)) {
        char *t = trim(line);
        if (!*t || *t == '#')
            continue;
        char **grown = realloc(list, (n + 2) * sizeof *list);
        if (!grown)
            goto done;
        list = grown;
        if (!(list[n] = strdup(t)))
            goto done;
        list[++n] = NULL;
    }
    if (n == 0) {
        snprintf(err, errlen, "the tokens file %s holds no token", path);
        goto done;
    }
    rc = 0;
done:
    if (f)
        fclose(f);
    if (rc != 0) {
        srv_tokens_free(list);
        list = NULL;
    }
    *out = list;
    return rc;
}

int srv_auth_ok(const char *authorization)
{
    if (!srv.tokens)
        return 1;
    if (!authorization || strncasecmp(authorization, "Bearer ", 7) != 0)
        return 0;
    const char *given = authorization + 7;
    while (*given == ' ')
        given++;
    int ok = 0;
    for (char **t = srv.tokens; *t; t++)
        ok |= srv_ct_equal(given, *t);
    return ok && *given;
}
