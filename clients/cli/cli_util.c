/*
 * cli_util.c -- file helpers of the command-line tool and `ircg validate`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "cli.h"
#include "spec.h"

char *cli_read_file(const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    api_buf b = {0};
    char chunk[65536];
    size_t got;
    if (!f) {
        fprintf(stderr, "ircg: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0 && !b.nomem)
        api_buf_add(&b, chunk, got);
    if (ferror(f))
        fprintf(stderr, "ircg: cannot read %s: %s\n", path, strerror(errno));
    else if (b.nomem)
        fprintf(stderr, "ircg: out of memory reading %s\n", path);
    size_t n = b.len;
    char *text = ferror(f) ? NULL : api_buf_take(&b);
    api_buf_free(&b);
    if (f != stdin)
        fclose(f);
    if (text)
        *len = n;
    return text;
}

char *cli_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash || !strcmp(path, "-"))
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

static void print_errors(const char *path, const api_errors *e)
{
    fprintf(stderr, "%s: %d error%s\n", path, e->count, e->count == 1 ? "" : "s");
    for (int i = 0; i < e->count; i++)
        fprintf(stderr, "  %s: %s\n", e->items[i].pointer[0] ? e->items[i].pointer : "(root)",
                e->items[i].reason);
}

api_spec *cli_load_spec(const char *path)
{
    size_t len = 0;
    api_spec *s = NULL;
    api_errors errs;
    api_parse_options opt;
    char *text = cli_read_file(path, &len);
    char *dir = cli_dirname(path);
    api_errors_init(&errs);
    api_parse_options_default(&opt);
    opt.base_dir = dir;
    /* ircg solve certifies IR-CG on a core of its own where a spec's
     * threads leave one (cmd_solve.c, use_machine): the estimate of a
     * spec that names its threads counts the copies */
    opt.certify_async = sysconf(_SC_NPROCESSORS_ONLN) > 1;
    if (text && dir && api_spec_parse(text, len, &opt, &s, &errs) != 0)
        print_errors(path, &errs);
    else if (text && !dir)
        fprintf(stderr, "ircg: out of memory\n");
    api_errors_clear(&errs);
    free(text);
    free(dir);
    return s;
}

FILE *cli_open_output(const char *path)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
    if (!f)
        fprintf(stderr, "ircg: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

int cli_write_close(FILE *f, const char *path, const char *text)
{
    int rc = fputs(text, f) >= 0 && fflush(f) == 0 ? 0 : -1;
    int saved = errno;
    if (f != stdout && fclose(f) != 0 && rc == 0) {
        rc = -1;
        saved = errno;
    }
    if (rc)
        fprintf(stderr, "ircg: cannot write %s: %s\n", path, strerror(saved));
    return rc;
}

int cli_parse_count(const char *text, long long max, long long *out)
{
    long long v = 0;
    if (!text || !*text)
        return 0;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9')
            return 0;
        if (v > (max - (*p - '0')) / 10) /* v * 10 + digit > max */
            return 0;
        v = v * 10 + (*p - '0');
    }
    if (v < 1)
        return 0;
    *out = v;
    return 1;
}

int cmd_validate(int argc, char **argv)
{
    static const struct option opts[] = {CLI_OPT_HELP, {0}};
    static const cli_command cmd = {
        "validate",
        "usage: ircg validate SPEC.json\n"
        "  print every error with its JSON pointer, or \"valid\", the normalized spec\n"
        "  and the estimate of the memory the job holds at its peak\n",
        NULL, opts};
    int code = CLI_INVALID, first = 0, rc = cli_getopt(argc, argv, &cmd, cli_no_options, NULL, &first);
    if (rc != CLI_OK)
        return rc == CLI_HELP ? CLI_OK : rc;
    if (argc - first != 1)
        return cli_usage_error(&cmd, "%s", "one SPEC.json is needed");
    api_spec *s = cli_load_spec(argv[first]);
    char *norm = s ? api_spec_normalized_json(s, 0) : NULL, *est = NULL;
    api_estimate e = {0};
    if (s)
        api_spec_estimate(s, &e);
    if (s && e.memory > 0)
        est = api_estimate_text(&e);
    if (s && (!norm || (e.memory > 0 && !est))) {
        fprintf(stderr, "ircg: out of memory\n");
        code = CLI_FAILED;
    } else if (norm) {
        printf("valid\n%s\n%s%s", norm, est ? est : "", est ? "\n" : "");
        code = CLI_OK;
    }
    free(est);
    free(norm);
    api_spec_free(s);
    return code;
}
