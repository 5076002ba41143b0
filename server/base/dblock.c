/*
 * dblock.c -- one ircgd per database.
 *
 * The store itself lets any number of processes share a file, but a
 * daemon's start-up recovery requeues every 'running' job: a second daemon
 * on a live daemon's file would take its jobs away.  So ircgd holds an
 * exclusive flock() on "<db>.lock" for as long as it runs.  flock is tied
 * to the open file description, so the kernel drops it when the process
 * dies in any way (kill -9 included): a stale lock cannot outlive its
 * owner, and the file is never deleted (unlinking a lock file races with
 * a process that has just opened it).  The owner's pid is written into the
 * file for the refusal message only; the lock is the flock, not the text.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "base/base.h"

/* The pid written by the current holder, or 0 when unreadable. */
static long holder_pid(int fd)
{
    char buf[32];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    long pid = 0;
    if (n > 0) {
        buf[n] = '\0';
        if (sscanf(buf, "%ld", &pid) != 1)
            pid = 0;
    }
    return pid;
}

static void record_pid(int fd)
{
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%ld\n", (long)getpid());
    /* Informational only: a failure here does not weaken the lock. */
    if (ftruncate(fd, 0) == 0 && pwrite(fd, buf, (size_t)n, 0) != n)
        srv_log("could not record the pid in the lock file");
}

int srv_db_lock(const char *db, int *fd_out, char *err, size_t errlen)
{
    char path[sizeof srv.cfg.db + 8];
    int fd = -1, rc = -1;
    *fd_out = -1;
    snprintf(path, sizeof path, "%s.lock", db);
    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0 && (errno == EROFS || errno == EACCES || errno == EPERM)) {
        /* a read-only file system or directory: the store cannot be
         * written either, which is what the operator must hear */
        snprintf(err, errlen, "refusing to start: the store %s cannot be written (its "
                 "lock file %s: %s); ircgd needs write access to it and to its directory",
                 db, path, strerror(errno));
        rc = 2;
        goto done;
    }
    if (fd < 0) {
        snprintf(err, errlen, "cannot open the lock file %s: %s", path, strerror(errno));
        goto done;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK) {
            long pid = holder_pid(fd);
            char who[48] = "";
            if (pid > 0)
                snprintf(who, sizeof who, " (pid %ld)", pid);
            snprintf(err, errlen,
                     "the database %s is in use by another ircgd%s: it holds %s; "
                     "stop that daemon first or give this one another --db",
                     db, who, path);
            rc = 1;
        } else {
            snprintf(err, errlen, "cannot lock %s: %s", path, strerror(errno));
        }
        goto done;
    }
    record_pid(fd);
    *fd_out = fd;
    fd = -1;
    rc = 0;
done:
    if (fd >= 0)
        close(fd);
    return rc;
}
