/*
 * test_cli_util.c -- helpers of the CLI tests (see test_cli_util.h).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "test_cli_util.h"

const char *tcli_path(void)
{
    static char path[1024];
    const char *b = getenv("IRCG_BUILD_DIR");
    if (!b)
        return NULL;
    snprintf(path, sizeof path, "%s/bin/ircg", b);
    return access(path, X_OK) == 0 ? path : NULL;
}

pid_t tcli_spawn(char *const args[], const char *out_path, int *err_fd)
{
    int pfd[2] = {-1, -1};
    if (err_fd && pipe(pfd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        int out = open(out_path ? out_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int err = err_fd ? pfd[1] : open("/dev/null", O_WRONLY);
        dup2(out, 1);
        dup2(err, 2);
        if (err_fd)
            close(pfd[0]);
        execv(args[0], args);
        _exit(127);
    }
    if (err_fd) {
        close(pfd[1]);
        *err_fd = pfd[0];
    }
    return pid;
}

static int wait_code(pid_t pid)
{
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int tcli_run(char *const args[], const char *out_path)
{
    return wait_code(tcli_spawn(args, out_path, NULL));
}

int tcli_run_err(char *const args[], const char *out_path, char *err, size_t n)
{
    int fd = -1;
    size_t len = 0;
    pid_t pid = tcli_spawn(args, out_path, &fd);
    if (pid < 0)
        return -1;
    for (;;) { /* read it all, so the child never blocks on a full pipe */
        char buf[4096];
        ssize_t got = read(fd, buf, sizeof buf);
        if (got <= 0)
            break;
        size_t k = (size_t)got < n - 1 - len ? (size_t)got : n - 1 - len;
        memcpy(err + len, buf, k);
        len += k;
    }
    err[len] = '\0';
    close(fd);
    return wait_code(pid);
}

char *tcli_tmp(const char *name)
{
    static char buf[8][512];
    static int k;
    char *p = buf[k++ % 8];
    snprintf(p, 512, "%s/%s", th_tmpdir(), name);
    return p;
}

int tcli_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int rc = fputs(text, f) < 0;
    return fclose(f) != 0 || rc ? -1 : 0;
}

char *tcli_read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *b = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (b && fread(b, 1, (size_t)n, f) == (size_t)n) {
        b[n] = 0;
    } else {
        free(b);
        b = NULL;
    }
    fclose(f);
    return b;
}

cJSON *tcli_read_json(const char *path)
{
    char *b = tcli_read_text(path);
    cJSON *j = b ? cJSON_Parse(b) : NULL;
    free(b);
    return j;
}

int tcli_count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    int n = 0, ch;
    if (!f)
        return -1;
    while ((ch = fgetc(f)) != EOF)
        n += ch == '\n';
    fclose(f);
    return n;
}

int tcli_wait_for(int fd, const char *text, char *seen, size_t n)
{
    size_t len = 0;
    seen[0] = '\0';
    while (!strstr(seen, text) && len < n - 1) {
        ssize_t got = read(fd, seen + len, n - 1 - len);
        if (got <= 0)
            break;
        len += (size_t)got;
        seen[len] = '\0';
    }
    return strstr(seen, text) != NULL;
}

FILE *tcli_npy_create(const char *path, long rows, long cols)
{
    char dict[128];
    int n = cols ? snprintf(dict, sizeof dict,
                            "{'descr': '<f8', 'fortran_order': False, 'shape': (%ld, %ld), }",
                            rows, cols)
                 : snprintf(dict, sizeof dict,
                            "{'descr': '<f8', 'fortran_order': False, 'shape': (%ld,), }",
                            rows);
    /* version 1.0: magic, version, header length, the dict padded with
     * spaces and a newline to a multiple of 64 bytes */
    size_t total = (10 + (size_t)n + 1 + 63) / 64 * 64;
    FILE *f = fopen(path, "wb");
    if (!f)
        return NULL;
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    fputc((int)((total - 10) & 0xff), f);
    fputc((int)((total - 10) >> 8), f);
    fwrite(dict, 1, (size_t)n, f);
    for (size_t i = 10 + (size_t)n; i + 1 < total; i++)
        fputc(' ', f);
    fputc('\n', f);
    return f;
}
