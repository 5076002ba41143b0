/*
 * test_data.c -- `make data` (datasets/fetch.sh through the Makefile's
 * variables) against a server on loopback: Python's http.server serving a
 * folder with a small archive, and a manifest of the test's own whose
 * entries the base URL (DATA_BASE_URL) sends there.  A file is fetched,
 * unpacked and checked; a wrong SHA-256 or MD5 is refused and leaves
 * nothing behind; an unreachable server is reported with the way out (a
 * local copy); a local copy is used without the network, and checked too;
 * `data-local` never downloads.  Also the project's own manifest: every
 * data set the docs name is in it, and every sum it records is well formed;
 * and its LIBSVM entries (a1a as published, rcv1 bzip2-compressed), served
 * with a real LIBSVM file in their place, give files the LIBSVM reader
 * reads.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "ircg.h"

#define RATINGS "1::1::5::0\n2::3::4::0\n3::2::1::0\n"

static char g_dir[600];  /* the test's folder: srv/ (served), out/, local/ */
static int g_port;       /* the loopback server's port, 0 when none runs  */
static pid_t g_server;

static int sh(const char *cmd)
{
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A port nothing listens on: bound, read, closed. */
static int closed_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0), port = 0;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

/* After each test (th_after_each): no process outlives its test
 * (tests/harness_guard.h), so each test that serves starts its own. */
static void stop_server(void)
{
    if (g_server > 0) {
        kill(g_server, SIGTERM);
        waitpid(g_server, NULL, 0);
        g_server = 0;
        g_port = 0;
    }
}

static int read_text(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
    return (int)n;
}

static void sha256_of(const char *path, char hex[65])
{
    char cmd[1200];
    hex[0] = '\0';
    snprintf(cmd, sizeof cmd, "sha256sum < '%s'", path);
    FILE *p = popen(cmd, "r");
    if (p) {
        if (fscanf(p, "%64s", hex) != 1)
            hex[0] = '\0';
        pclose(p);
    }
}

/* The folder served: fake.zip (RATINGS as ml-x/ratings.dat among other
 * members) and plain.bz2; a local copy: local/x/ratings.dat.xz.  Starts
 * the server for this test; 0 when something is missing (the test skips). */
static int setup(void)
{
    char cmd[2400], log[700], text[256];
    if (g_port)
        return 1;
    if (sh("command -v curl unzip bzip2 xz python3 sha256sum md5sum >/dev/null 2>&1") != 0)
        return 0;
    snprintf(g_dir, sizeof g_dir, "%s/data", th_tmpdir());
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%1$s/srv' '%1$s/local/x' && cd '%1$s' && printf '" RATINGS "' > ratings && "
             "python3 -c \"import zipfile; z = zipfile.ZipFile('srv/fake.zip', 'w', "
             "zipfile.ZIP_DEFLATED); z.writestr('ml-x/README', 'a readme'); "
             "z.write('ratings', 'ml-x/ratings.dat'); z.close()\" && "
             "bzip2 -c ratings > srv/plain.bz2 && xz -c ratings > local/x/ratings.dat.xz",
             g_dir);
    if (sh(cmd) != 0)
        return 0;
    snprintf(log, sizeof log, "%s/server.log", g_dir);
    unlink(log); /* an earlier test's server said its port there */
    snprintf(cmd, sizeof cmd, "%s/srv", g_dir);
    pid_t pid = fork();
    if (pid == 0) {
        FILE *f = freopen(log, "w", stdout);
        if (f && dup2(fileno(f), 2) >= 0)
            execlp("python3", "python3", "-u", "-m", "http.server", "0", "--bind",
                   "127.0.0.1", "--directory", cmd, (char *)NULL);
        _exit(127);
    }
    if (pid < 0)
        return 0;
    g_server = pid;
    th_after_each(stop_server);
    for (int i = 0; i < 200 && !g_port; i++) { /* "Serving HTTP on 127.0.0.1 port N" */
        const char *p;
        if (read_text(log, text, sizeof text) > 0 && (p = strstr(text, " port ")))
            g_port = atoi(p + 6);
        if (!g_port)
            usleep(50000);
    }
    return g_port > 0;
}

/* A manifest of the test's own, its lines given, in the test's folder. */
static void manifest(const char *name, const char *lines)
{
    char path[800];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("# the test's data sets\n", f);
        fputs(lines, f);
        fclose(f);
    }
}

/* `make data` (or `target`) with the test's manifest and output folder:
 * its exit status, stdout and stderr into out. */
static int make_data(const char *target, const char *man, const char *out_dir,
                     const char *extra, char *out, size_t cap)
{
    char cmd[3000];
    snprintf(cmd, sizeof cmd,
             "env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s --no-print-directory %s "
             "DATA_MANIFEST='%s/%s' DATA_OUT='%s/%s' %s 2>&1",
             target, g_dir, man, g_dir, out_dir, extra);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int exists(const char *dir, const char *name)
{
    char path[900];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s/%s", g_dir, dir, name);
    return stat(path, &st) == 0;
}

/* Nothing but the files named is in the output folder (no temporaries). */
static int only(const char *dir, int n_expected)
{
    char cmd[900];
    snprintf(cmd, sizeof cmd, "test $(ls -A '%s/%s' 2>/dev/null | wc -l) -eq %d", g_dir, dir,
             n_expected);
    return sh(cmd) == 0;
}

static int same_as_ratings(const char *dir, const char *name)
{
    char path[900], text[256];
    snprintf(path, sizeof path, "%s/%s/%s", g_dir, dir, name);
    return read_text(path, text, sizeof text) >= 0 && strcmp(text, RATINGS) == 0;
}

TEST(data, downloads_unpacks_and_checks)
{
    char sha[65], md5cmd[900], md5[40] = "", lines[1200], out[4096], url[80];
    if (!setup())
        SKIP("curl, unzip, bzip2, xz or python3 missing, or the loopback server did not start");
    snprintf(md5cmd, sizeof md5cmd, "%s/srv/fake.zip", g_dir);
    sha256_of(md5cmd, sha);
    snprintf(md5cmd, sizeof md5cmd, "md5sum < '%s/srv/fake.zip'", g_dir);
    FILE *p = popen(md5cmd, "r");
    REQUIRE(p && fscanf(p, "%32s", md5) == 1);
    pclose(p);
    struct stat st;
    snprintf(md5cmd, sizeof md5cmd, "%s/srv/fake.zip", g_dir);
    REQUIRE(stat(md5cmd, &st) == 0);
    /* every sum of the zip, the member by its path; the .bz2 with none */
    snprintf(lines, sizeof lines,
             "remote x https://files.example.invalid/d/fake.zip %s %s %lld ml-x/ratings.dat x.dat\n"
             "remote y https://other.example.invalid/e/plain.bz2 - - - - y.dat\n",
             sha, md5, (long long)st.st_size);
    manifest("good", lines);
    snprintf(url, sizeof url, "DATA_BASE_URL=http://127.0.0.1:%d DATASETS='x y'", g_port);
    int rc = make_data("data", "good", "out-good", url, out, sizeof out);
    if (rc != 0)
        printf("%s", out);
    CHECK_INT(rc, 0);
    CHECK(same_as_ratings("out-good", "x.dat"));
    CHECK(same_as_ratings("out-good", "y.dat"));
    CHECK(only("out-good", 2));
    /* no sha256 in the manifest: what was got is said, to be recorded */
    CHECK(strstr(out, "plain.bz2: ") && strstr(out, "record these there"));
    CHECK(strstr(out, "fake.zip: ") == NULL);
    /* a file already there is kept: no download (the server is not asked) */
    snprintf(url, sizeof url, "DATA_BASE_URL=http://127.0.0.1:%d DATASETS='x y'", closed_port());
    CHECK_INT(make_data("data", "good", "out-good", url, out, sizeof out), 0);
    CHECK(strstr(out, "downloading") == NULL);
}

TEST(data, a_wrong_checksum_is_refused)
{
    static const char *const wrong[] = {
        "remote x https://e.invalid/fake.zip "
        "0000000000000000000000000000000000000000000000000000000000000000 - - ml-x/ratings.dat x.dat\n",
        "remote x https://e.invalid/fake.zip - 00000000000000000000000000000000 - ml-x/ratings.dat x.dat\n",
        "remote x https://e.invalid/fake.zip - - 12 ml-x/ratings.dat x.dat\n",
    };
    static const char *const says[] = {"has sha256 ", "has md5 ", "bytes, the manifest says 12"};
    char out[4096], url[80];
    if (!setup())
        SKIP("curl, unzip, bzip2, xz or python3 missing, or the loopback server did not start");
    snprintf(url, sizeof url, "DATA_BASE_URL=http://127.0.0.1:%d DATASETS=x", g_port);
    for (int i = 0; i < 3; i++) {
        char dir[32];
        snprintf(dir, sizeof dir, "out-wrong-%d", i);
        manifest("wrong", wrong[i]);
        CHECK(make_data("data", "wrong", dir, url, out, sizeof out) != 0);
        if (!strstr(out, says[i]) || !strstr(out, "refused"))
            th_fail(__FILE__, __LINE__, "case %d: %s", i, out);
        CHECK(only(dir, 0)); /* neither x.dat nor the download is left */
    }
}

TEST(data, an_unreachable_server_says_what_to_do)
{
    char out[4096], url[80];
    if (!setup())
        SKIP("curl, unzip, bzip2, xz or python3 missing, or the loopback server did not start");
    manifest("down", "remote x https://e.invalid/fake.zip - - - ml-x/ratings.dat x.dat\n"
                     "local x x/ratings.dat.xz - - - - x.dat\n");
    snprintf(url, sizeof url, "DATA_BASE_URL=http://127.0.0.1:%d DATASETS=x", closed_port());
    CHECK(make_data("data", "down", "out-down", url, out, sizeof out) != 0);
    CHECK(strstr(out, "cannot download x from http://127.0.0.1:"));
    CHECK(strstr(out, "offline?"));
    CHECK(strstr(out, "DATA_DIR=DIR, DIR holding fake.zip or x/ratings.dat.xz"));
    CHECK(only("out-down", 0));
}

TEST(data, a_local_copy_is_used_and_checked)
{
    char sha[65], path[800], lines[1200], out[4096], args[1200];
    if (!setup())
        SKIP("curl, unzip, bzip2, xz or python3 missing, or the loopback server did not start");
    snprintf(path, sizeof path, "%s/ratings", g_dir);
    sha256_of(path, sha);
    snprintf(lines, sizeof lines,
             "remote x https://e.invalid/fake.zip - - - ml-x/ratings.dat x.dat\n"
             "local x x/ratings.dat.xz %s - %zu - x.dat\n", sha, strlen(RATINGS));
    manifest("copies", lines);
    /* the server is unreachable: the local copy alone must do */
    snprintf(args, sizeof args, "DATA_DIR='%s/local' DATA_BASE_URL=http://127.0.0.1:%d DATASETS=x",
             g_dir, closed_port());
    int rc = make_data("data", "copies", "out-local", args, out, sizeof out);
    if (rc != 0)
        printf("%s", out);
    CHECK_INT(rc, 0);
    CHECK(same_as_ratings("out-local", "x.dat"));
    CHECK(strstr(out, "x.dat from the local copy "));
    CHECK(strstr(out, "downloading") == NULL);
    /* the archive itself as the local copy (a mirror of the downloads) */
    snprintf(args, sizeof args, "DATA_DIR='%s/srv' DATA_BASE_URL=http://127.0.0.1:%d DATASETS=x",
             g_dir, closed_port());
    CHECK_INT(make_data("data", "copies", "out-mirror", args, out, sizeof out), 0);
    CHECK(same_as_ratings("out-mirror", "x.dat"));
    /* a local copy whose content is not the manifest's is refused */
    sha[0] = sha[0] == '0' ? '1' : '0';
    snprintf(lines, sizeof lines, "remote x https://e.invalid/fake.zip - - - - x.dat\n"
                                  "local x x/ratings.dat.xz %s - - - x.dat\n", sha);
    manifest("copies", lines);
    snprintf(args, sizeof args, "DATA_DIR='%s/local' DATASETS=x", g_dir);
    CHECK(make_data("data", "copies", "out-local-bad", args, out, sizeof out) != 0);
    CHECK(strstr(out, "the local copy ") && strstr(out, "refused"));
    CHECK(only("out-local-bad", 0));
}

TEST(data, data_local_never_downloads)
{
    char out[4096], url[80];
    if (!setup())
        SKIP("curl, unzip, bzip2, xz or python3 missing, or the loopback server did not start");
    manifest("net", "remote x https://e.invalid/fake.zip - - - ml-x/ratings.dat x.dat\n");
    /* a reachable server with the file: data-local still does not ask it */
    snprintf(url, sizeof url, "DATA_BASE_URL=http://127.0.0.1:%d DATASETS=x", g_port);
    CHECK_INT(make_data("data-local", "net", "out-net", url, out, sizeof out), 0);
    CHECK(strstr(out, "x.dat (x) is not here"));
    CHECK(strstr(out, "downloading") == NULL);
    CHECK(!exists("out-net", "x.dat"));
}

static int is_hex(const char *s, size_t n)
{
    if (strlen(s) != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!strchr("0123456789abcdef", s[i]))
            return 0;
    return 1;
}

/* The project's manifest: eight fields a line, sums that are hex of their
 * length or "-", https URLs, and every data set the docs promise. */
TEST(data, the_manifest_names_every_data_set)
{
    static const char *const sets[] = {"ml-100k", "ml-1m", "ml-10m", "ml-20m", "ml-25m",
                                       "a1a", "a9a", "rcv1", "YearPredictionMSD"};
    int seen[sizeof sets / sizeof sets[0]] = {0}, lines = 0;
    char line[1024];
    FILE *f = fopen("datasets/MANIFEST", "r");
    if (!f)
        SKIP("datasets/MANIFEST not found (run from the repository root)");
    while (fgets(line, sizeof line, f)) {
        char kind[16], name[64], src[400], sha[80], md5[48], bytes[32], member[200], out[200],
            more[8];
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        if (strspn(line, " \t\r\n") == strlen(line))
            continue;
        lines++;
        int n = sscanf(line, "%15s %63s %399s %79s %47s %31s %199s %199s %7s", kind, name, src,
                       sha, md5, bytes, member, out, more);
        if (n != 8) {
            th_fail(__FILE__, __LINE__, "MANIFEST: %d fields in: %s", n, line);
            continue;
        }
        CHECK(!strcmp(kind, "remote") || !strcmp(kind, "local"));
        CHECK(!strcmp(sha, "-") || is_hex(sha, 64));
        CHECK(!strcmp(md5, "-") || is_hex(md5, 32));
        CHECK(!strcmp(bytes, "-") || strspn(bytes, "0123456789") == strlen(bytes));
        CHECK(strchr(out, '/') == NULL);
        if (!strcmp(kind, "remote"))
            CHECK(!strncmp(src, "https://", 8));
        else
            CHECK(strcmp(sha, "-") != 0); /* a local copy is always checked */
        for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
            seen[i] |= !strcmp(kind, "remote") && !strcmp(name, sets[i]);
    }
    fclose(f);
    CHECK(lines > 0);
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
        if (!seen[i])
            th_fail(__FILE__, __LINE__, "MANIFEST has no data set %s", sets[i]);
}

/* The project's own manifest lines of a1a (a plain file) and rcv1 (a .bz2
 * decompressed whole), their files served by the loopback server with
 * Debian's heart_scale (a real LIBSVM file, `make deps` installs it) in
 * their place: `make data` fetches and unpacks them, and the LIBSVM
 * reader reads what it leaves, 270 rows of 13 features each time. */
TEST(data, libsvm_files_it_fetches_are_readable)
{
    static const char *const heart = "/usr/share/doc/liblinear-tools/examples/heart_scale";
    char cmd[4400], out[4096], url[120], path[900];
    if (access(heart, R_OK) != 0) {
        CHECK(!"heart_scale is missing: `make deps` installs liblinear-tools");
        return;
    }
    if (!setup())
        SKIP("curl, unzip, bzip2, xz or python3 missing, or the loopback server did not start");
    snprintf(cmd, sizeof cmd,
             "cp '%1$s' '%2$s/srv/a1a' && cp '%1$s' '%2$s/srv/a1a.t' && "
             "bzip2 -c '%1$s' > '%2$s/srv/rcv1_train.binary.bz2' && "
             "cp datasets/MANIFEST '%2$s/project'", heart, g_dir);
    REQUIRE(sh(cmd) == 0);
    snprintf(url, sizeof url, "DATA_BASE_URL=http://127.0.0.1:%d DATASETS='a1a rcv1'", g_port);
    int rc = make_data("data", "project", "out-svm", url, out, sizeof out);
    if (rc != 0)
        printf("%s", out);
    CHECK_INT(rc, 0);
    static const char *const names[] = {"a1a", "a1a.t", "rcv1_train.binary"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        ircg_svm *s = NULL;
        ircg_diag d = {0};
        snprintf(path, sizeof path, "%s/out-svm/%s", g_dir, names[i]);
        CHECK(ircg_svm_read_file(path, NULL, &s, &d) == IRCG_OK);
        CHECK(s && s->m == 270 && s->n == 13);
        ircg_svm_free(s);
    }
}
