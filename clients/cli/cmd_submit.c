/*
 * cmd_submit.c -- `ircg submit SPEC [--wait]` and `ircg watch ID`: a job
 * sent to an ircgd (its data uploaded first with --data or --upload:
 * remote_data.c), and followed through its events to the end.
 */
#include <stdlib.h>
#include <string.h>

#include "remote.h"

int remote_watch(ircg_client *c, const char *id, const remote_opts *o, ircg_client_job *job)
{
    ircg_client_error err = {0};
    ircg_client_wait_options wo;
    cli_progress p;
    int code = CLI_OK;
    if (ircg_client_get_job(c, id, job, &err) != IRCG_CLIENT_OK) {
        code = remote_fail("watch", &err);
        ircg_client_error_clear(&err);
        return code;
    }
    cli_progress_init(&p, o, job);
    ircg_client_wait_options_default(&wo);
    wo.timeout = o->timeout;
    wo.on_event = cli_progress_event;
    wo.user = &p;
    ircg_client_code rc = ircg_client_wait(c, id, &wo, job, &err);
    cli_progress_end(&p);
    if (rc == IRCG_CLIENT_ERR_TIMEOUT) {
        fprintf(stderr, "ircg: %s is still %s after %g s\n", id,
                ircg_client_state_name(job->state), o->timeout);
        code = CLI_FAILED;
    } else if (rc != IRCG_CLIENT_OK) {
        code = remote_fail("watch", &err);
    } else {
        code = remote_job_exit(job);
        if (o->json)
            remote_put_json("{\"event\":\"job\",\"data\":", job->json, "}");
        else
            remote_job_line(stdout, job);
    }
    ircg_client_error_clear(&err);
    return code;
}

static const struct option SUBMIT_OPTS[] = {
    {"wait", no_argument, NULL, 'w'}, {"quiet", no_argument, NULL, 'q'},
    {"json", no_argument, NULL, 'j'}, {"timeout", required_argument, NULL, 't'},
    {"data", required_argument, NULL, 'D'}, {"labels", required_argument, NULL, 'L'},
    {"val-data", required_argument, NULL, 'V'}, {"val-labels", required_argument, NULL, 'W'},
    {"type", required_argument, NULL, 'Y'}, {"upload", no_argument, NULL, 'U'},
    REMOTE_LONGOPTS, {0},
};
static const cli_command SUBMIT = {
    "submit",
    "usage: ircg submit SPEC.json [--upload] [--wait [--timeout S]] [--quiet] [--json]\n"
    "                   [--server URL] [--token TOKEN]\n"
    "       ircg submit [SPEC.json] --data A.npy --labels b.npy [--val-data Av.npy\n"
    "                   --val-labels bv.npy] [--type least_squares|logistic_regression] ...\n"
    "  send a job spec (\"-\" = stdin) to ircgd and print the job's id; with --wait,\n"
    "  follow it to its end (progress on stderr) and print how it ended.\n"
    "  --data FILE    upload FILE (.npy, .npz, LIBSVM, Matrix Market, CSV) as the\n"
    "                 problem's A and the spec's data becomes these datasets;\n"
    "                 --labels its b, --val-data and --val-labels the validation\n"
    "                 rows (then the outer objective is the validation loss unless\n"
    "                 the spec gives one); without SPEC: least squares (--type)\n"
    "                 with every other member at its default\n"
    "  --upload       upload the files the spec's data names (relative to the\n"
    "                 spec), for a daemon that cannot read them, and name the\n"
    "                 datasets instead\n"
    "  --json         the job resource, or with --wait each event, as JSON lines\n"
    "  --quiet        no progress\n" REMOTE_USAGE_TAIL
    "exit: 0 submitted (--wait: succeeded), 2 usage or invalid spec, 3 the request\n"
    "failed, 4 the job failed or was cancelled\n",
    "wqj", SUBMIT_OPTS};

int cmd_submit(int argc, char **argv)
{
    remote_opts o = {0};
    ircg_client *c = NULL;
    ircg_client_job job = {0};
    ircg_client_error err = {0};
    char *spec = NULL, *text = NULL, *dir = NULL;
    size_t len = 0;
    int first = 0, code = remote_parse(argc, argv, &SUBMIT, &o, 1, &first);
    if (code != CLI_OK)
        return code == CLI_HELP ? CLI_OK : code;
    if ((o.labels || o.val_data || o.val_labels || o.type) && !o.data)
        return cli_usage_error(&SUBMIT, "%s", "--labels, --val-data, --val-labels and --type "
                               "come with --data");
    if (o.upload && o.data)
        return cli_usage_error(&SUBMIT, "%s", "--upload or --data, not both");
    if (first < argc && !(text = cli_read_file(argv[first], &len)))
        return CLI_INVALID;
    if ((code = remote_connect(&o, &c)) != CLI_OK)
        goto done;
    dir = cli_dirname(first < argc ? argv[first] : "-");
    if (!(spec = remote_prepare_spec(c, text, dir ? dir : ".", &o, &code)))
        goto done;
    if (ircg_client_submit(c, spec, NULL, &job, &err) != IRCG_CLIENT_OK) {
        code = remote_fail("submit", &err);
    } else if (o.wait) {
        if (!o.quiet && !o.json)
            fprintf(stderr, "submitted %s\n", job.id);
        char id[sizeof job.id];
        snprintf(id, sizeof id, "%s", job.id);
        code = remote_watch(c, id, &o, &job);
    } else if (o.json) {
        remote_put_json("", job.json, "");
    } else {
        printf("%s\n", job.id);
    }
done:
    ircg_client_job_clear(&job);
    ircg_client_error_clear(&err);
    ircg_client_free(c);
    free(spec);
    free(text);
    free(dir);
    return code;
}

static const struct option WATCH_OPTS[] = {
    {"quiet", no_argument, NULL, 'q'}, {"json", no_argument, NULL, 'j'},
    {"timeout", required_argument, NULL, 't'}, REMOTE_LONGOPTS, {0},
};
static const cli_command WATCH = {
    "watch",
    "usage: ircg watch ID [--timeout S] [--quiet] [--json] [--server URL] [--token TOKEN]\n"
    "  follow a job to its end: progress on stderr (one line redrawn on a terminal),\n"
    "  how it ended on stdout; --json: each event as a JSON line\n" REMOTE_USAGE_TAIL
    "exit: 0 succeeded, 3 the request failed or timed out, 4 failed or cancelled\n",
    "qj", WATCH_OPTS};

int cmd_watch(int argc, char **argv)
{
    remote_opts o = {0};
    ircg_client *c = NULL;
    ircg_client_job job = {0};
    int first = 0, code = remote_parse(argc, argv, &WATCH, &o, 1, &first);
    if (code != CLI_OK)
        return code == CLI_HELP ? CLI_OK : code;
    if ((code = remote_connect(&o, &c)) == CLI_OK)
        code = remote_watch(c, argv[first], &o, &job);
    ircg_client_job_clear(&job);
    ircg_client_free(c);
    return code;
}
