/*
 * least_norm.c -- the C client library's example (clients/README.md):
 * reads a job spec on stdin, submits it to the ircgd at $IRCG_URL
 * (default http://127.0.0.1:8080), follows it, and writes trace.csv and
 * result.json.  Built against an installed library:
 *
 *   cc least_norm.c $(pkg-config --cflags --libs ircg-client) -o least_norm
 *   ircg example least-norm | ./least_norm
 */
#include <stdio.h>
#include <stdlib.h>

#include <ircg_client.h>

static int show(void *user, const ircg_client_event *ev)
{
    (void)user;
    if (ev->type[0] == 'p') /* "progress" */
        printf("iteration %lld  g(x) %.6g  f(x) %.6g\n", (long long)ev->iteration,
               ev->g_x, ev->f_x);
    else if (ev->type[0] == 's' && ev->type[1] == 't') /* "state" */
        printf("state: %s\n", ircg_client_state_name(ev->state));
    return 0; /* nonzero would stop waiting */
}

static char *slurp(FILE *f)
{
    size_t n = 0, cap = 4096;
    char *s = malloc(cap), *grown;
    while (s && (n += fread(s + n, 1, cap - n - 1, f)) == cap - 1) {
        if (!(grown = realloc(s, cap *= 2)))
            free(s);
        s = grown;
    }
    if (s)
        s[n] = '\0';
    return s;
}

int main(void)
{
    ircg_client *c = NULL;
    ircg_client_error err = {0};
    ircg_client_job job = {0};
    ircg_client_wait_options wo;
    const char *url = getenv("IRCG_URL") ? getenv("IRCG_URL") : "http://127.0.0.1:8080";
    char *spec = slurp(stdin), *csv = NULL, *result = NULL;
    int rc = 1;

    if (!spec || ircg_client_new(url, NULL, &c, &err) != IRCG_CLIENT_OK ||
        ircg_client_submit(c, spec, NULL, &job, &err) != IRCG_CLIENT_OK)
        goto fail;
    printf("submitted %s\n", job.id);
    ircg_client_wait_options_default(&wo);
    wo.on_event = show;
    if (ircg_client_wait(c, job.id, &wo, &job, &err) != IRCG_CLIENT_OK ||
        ircg_client_trace(c, job.id, IRCG_CLIENT_TRACE_CSV, 0, 0, &csv, NULL, NULL,
                          &err) != IRCG_CLIENT_OK ||
        ircg_client_result(c, job.id, &result, &err) != IRCG_CLIENT_OK)
        goto fail;
    printf("%s after %lld iterations (%s): f(z) = %.6g\n", ircg_client_state_name(job.state),
           (long long)job.iteration, job.result_status, job.f_z);
    FILE *t = fopen("trace.csv", "w"), *r = fopen("result.json", "w");
    if (t && r && fputs(csv, t) >= 0 && fputs(result, r) >= 0)
        rc = 0;
    if (t)
        fclose(t);
    if (r)
        fclose(r);
    goto done;
fail:
    fprintf(stderr, "error: %s\n", err.message);
    for (size_t i = 0; i < err.n_errors; i++)
        fprintf(stderr, "  %s: %s\n", err.errors[i].pointer, err.errors[i].reason);
done:
    free(csv);
    free(result);
    free(spec);
    ircg_client_job_clear(&job);
    ircg_client_error_clear(&err);
    ircg_client_free(c);
    return rc;
}
