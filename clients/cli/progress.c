/*
 * progress.c -- a running job's progress as people expect it from their
 * tools: on a terminal, one line redrawn in place (iteration, it/s, g, f,
 * gap, ETA); to a pipe or file, a plain line per report; with --json, each
 * event as one JSON object on stdout; with --quiet, nothing.
 */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "remote.h"

void cli_progress_init(cli_progress *p, const remote_opts *o, const ircg_client_job *j)
{
    memset(p, 0, sizeof *p);
    p->json = o->json;
    p->quiet = o->quiet && !o->json;
    p->out = o->json ? stdout : stderr;
    p->tty = !o->json && isatty(fileno(stderr));
    p->max_iter = j ? j->max_iter : 0;
    p->time_limit = j ? j->time_limit : NAN;
}

/* "1:02:03", "2:03", or "-" when unknown. */
static const char *hms(char *buf, size_t cap, double s)
{
    if (!isfinite(s) || s < 0 || s > 1e8) {
        snprintf(buf, cap, "-");
    } else {
        long t = lround(s);
        if (t >= 3600)
            snprintf(buf, cap, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
        else
            snprintf(buf, cap, "%ld:%02ld", t / 60, t % 60);
    }
    return buf;
}

/* Seconds left: the nearer of the iteration and the time limit. */
static double eta(const cli_progress *p, const ircg_client_event *ev)
{
    double left = INFINITY;
    if (p->max_iter > 0 && p->rate > 0)
        left = (double)(p->max_iter - ev->iteration) / p->rate;
    if (isfinite(p->time_limit) && p->time_limit > 0 && isfinite(ev->elapsed))
        left = fmin(left, p->time_limit - ev->elapsed);
    return left;
}

static void update_rate(cli_progress *p, const ircg_client_event *ev)
{
    if (!isfinite(ev->elapsed))
        return;
    if (!p->have0) {
        p->it0 = ev->iteration;
        p->el0 = ev->elapsed;
        p->have0 = 1;
        p->rate = ev->elapsed > 0 ? (double)ev->iteration / ev->elapsed : 0;
    } else if (ev->elapsed > p->el0) {
        p->rate = (double)(ev->iteration - p->it0) / (ev->elapsed - p->el0);
    }
}

static void show_progress(cli_progress *p, const ircg_client_event *ev)
{
    char e[32], line[256];
    update_rate(p, ev);
    snprintf(line, sizeof line, "iteration %lld  %.*f it/s  g %.6g  f %.6g  gap %.3g  ETA %s",
             (long long)ev->iteration, p->rate < 10 ? 2 : 0, p->rate, ev->g_x, ev->f_x, ev->gap,
             hms(e, sizeof e, eta(p, ev)));
    if (p->tty) {
        fprintf(p->out, "\r\033[K%s", line);
        p->drawn = 1;
    } else {
        fprintf(p->out, "%s\n", line);
    }
    fflush(p->out);
}

int cli_progress_event(void *user, const ircg_client_event *ev)
{
    cli_progress *p = user;
    if (p->json) {
        printf("{\"event\":\"%s\",\"id\":%lld,\"data\":%s}\n", ev->type,
               (long long)ev->event_id, ev->data && *ev->data ? ev->data : "null");
        fflush(stdout);
    } else if (p->quiet) {
        return 0;
    } else if (!strcmp(ev->type, "progress")) {
        show_progress(p, ev);
    } else if (!strcmp(ev->type, "state") && !p->tty) {
        fprintf(p->out, "state: %s\n", ircg_client_state_name(ev->state));
    }
    return 0;
}

void cli_progress_end(cli_progress *p)
{
    if (p->drawn)
        fputc('\n', p->out);
    p->drawn = 0;
}
