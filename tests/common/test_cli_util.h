/*
 * test_cli_util.h -- running the `ircg` binary from the tests: spawn with
 * captured stderr, exit codes, temporary files, JSON and line counts.
 */
#ifndef TEST_CLI_UTIL_H
#define TEST_CLI_UTIL_H

#include <stdio.h>
#include <sys/types.h>

#include <cJSON.h>

/* build/bin/ircg under IRCG_BUILD_DIR, or NULL when absent. */
const char *tcli_path(void);
/* Start args[0] with args; stdout to out_path (or /dev/null), stderr to a
 * pipe whose read end goes to *err_fd (or /dev/null when err_fd is NULL). */
pid_t tcli_spawn(char *const args[], const char *out_path, int *err_fd);
/* Run to the end: the exit code (128 + signal when killed), -1 on error. */
int tcli_run(char *const args[], const char *out_path);
/* Run and capture stderr (up to n - 1 bytes, NUL-terminated) too. */
int tcli_run_err(char *const args[], const char *out_path, char *err, size_t n);
/* A path in the test's temporary directory (8 rotating buffers). */
char *tcli_tmp(const char *name);
/* Write text to path; 0 on success. */
int tcli_write(const char *path, const char *text);
/* The whole file, NUL-terminated and malloc'ed; NULL when unreadable. */
char *tcli_read_text(const char *path);
cJSON *tcli_read_json(const char *path);
/* A new .npy file of a rows x cols float64 array (cols 0: a vector of
 * rows), its header written: the caller writes the rows * max(cols, 1)
 * little-endian doubles and closes it.  NULL when it cannot be made. */
FILE *tcli_npy_create(const char *path, long rows, long cols);
int tcli_count_lines(const char *path); /* -1 when it cannot be read */
/* Read from fd until text appears in what was read (or EOF); 1 if seen. */
int tcli_wait_for(int fd, const char *text, char *seen, size_t n);

#define NEED_CLI()                                                           \
    const char *bin = tcli_path();                                           \
    if (!bin)                                                                \
        SKIP("no ircg binary (IRCG_BUILD_DIR unset or not built)")

#endif /* TEST_CLI_UTIL_H */
