/*
 * store_schema.c -- the schema as an ordered list of migrations.
 *
 * Migration i (0-based) brings PRAGMA user_version from i to i+1.  Never
 * edit a released migration: append a new one.  Each runs in its own
 * BEGIN IMMEDIATE transaction together with its user_version bump.
 */
#include "store_schema.h"

#include "store_int.h"

#define STR_(x) #x
#define STR(x) STR_(x)

static const char M1_JOBS[] =
    "PRAGMA application_id = " STR(STORE_APPLICATION_ID) ";"
    /* seq is the submission order; AUTOINCREMENT so a deleted job's seq is
     * never reused and cursors stay stable. */
    "CREATE TABLE jobs("
    " seq INTEGER PRIMARY KEY AUTOINCREMENT,"
    " id TEXT NOT NULL UNIQUE,"
    " state TEXT NOT NULL CHECK(state IN"
    "  ('queued','running','succeeded','failed','cancelled')),"
    " problem_type TEXT NOT NULL,"
    " created_at REAL NOT NULL,"
    " started_at REAL, finished_at REAL, heartbeat_at REAL,"
    " attempt INTEGER NOT NULL DEFAULT 0 CHECK(attempt >= 0),"
    " cancel_requested INTEGER NOT NULL DEFAULT 0"
    "  CHECK(cancel_requested IN (0,1)),"
    " prog_iteration INTEGER NOT NULL DEFAULT 0,"
    " prog_elapsed REAL, prog_g_x REAL, prog_f_x REAL, prog_g_z REAL,"
    " prog_f_z REAL, prog_gap REAL,"
    " idempotency_key TEXT UNIQUE,"
    " request_sha256 BLOB CHECK(request_sha256 IS NULL"
    "  OR length(request_sha256) = 32),"
    " version INTEGER NOT NULL DEFAULT 1,"
    " event_seq INTEGER NOT NULL DEFAULT 0,"
    /* Large texts last: reading the small columns of a listing then never
     * walks their overflow pages. */
    " spec_json TEXT NOT NULL,"
    " result_json TEXT, error_json TEXT);"
    /* claim_next and filtered listings walk (state, seq). */
    "CREATE INDEX jobs_state_seq ON jobs(state, seq);"
    /* A global change counter for long-polling, kept by triggers so no
     * code path can forget it. */
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL)"
    " WITHOUT ROWID;"
    "INSERT INTO meta(key, value) VALUES('changes', 0);"
    "CREATE TRIGGER jobs_ins AFTER INSERT ON jobs BEGIN"
    " UPDATE meta SET value = value + 1 WHERE key = 'changes'; END;"
    "CREATE TRIGGER jobs_upd AFTER UPDATE ON jobs BEGIN"
    " UPDATE meta SET value = value + 1 WHERE key = 'changes'; END;"
    "CREATE TRIGGER jobs_del AFTER DELETE ON jobs BEGIN"
    " UPDATE meta SET value = value + 1 WHERE key = 'changes'; END;";

static const char M2_TRACES_SNAPSHOTS[] =
    /* Small fixed rows keyed by (job, iteration): WITHOUT ROWID clusters a
     * job's trace so paging is one range scan. */
    "CREATE TABLE traces("
    " job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,"
    " iteration INTEGER NOT NULL,"
    " elapsed REAL, sigma REAL, alpha REAL,"
    " g_x REAL, f_x REAL, g_z REAL, f_z REAL, gap REAL,"
    " g_gap_x REAL, g_gap_z REAL,"
    " lmo_seconds REAL, lmo_matvecs INTEGER, top_sv REAL, rank INTEGER,"
    " PRIMARY KEY(job_id, iteration)) WITHOUT ROWID;"
    /* Large blobs: an ordinary rowid table (WITHOUT ROWID suits small rows
     * only); `bytes` lets listings skip the blob. */
    "CREATE TABLE snapshots("
    " job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,"
    " iteration INTEGER NOT NULL,"
    " kind TEXT NOT NULL CHECK(kind IN ('state','x','z')),"
    " bytes INTEGER NOT NULL,"
    " created_at REAL NOT NULL,"
    " data BLOB NOT NULL,"
    " UNIQUE(job_id, iteration, kind));";

static const char M3_EVENTS_DATASETS[] =
    "CREATE TABLE events("
    " job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,"
    " seq INTEGER NOT NULL,"
    " type TEXT NOT NULL CHECK(type IN ('state','progress','snapshot','end')),"
    " data TEXT NOT NULL,"
    " created_at REAL NOT NULL,"
    " PRIMARY KEY(job_id, seq)) WITHOUT ROWID;"
    "CREATE TABLE datasets("
    " id TEXT PRIMARY KEY,"   /* lowercase hex SHA-256 of data */
    " format TEXT NOT NULL,"
    " filename TEXT NOT NULL DEFAULT '',"
    " bytes INTEGER NOT NULL,"
    " created_at REAL NOT NULL,"
    " data BLOB NOT NULL);";

/* The solver reports four more per-iteration members; appended in the
 * order of ircg_iter_info (and of the CSV/JSON trace formats).  Rows of
 * earlier runs keep NULL there: unknown, not zero. */
static const char M4_TRACE_SOLVER_DETAILS[] =
    "ALTER TABLE traces ADD COLUMN lmo_converged INTEGER;"
    "ALTER TABLE traces ADD COLUMN backtracks INTEGER;"
    "ALTER TABLE traces ADD COLUMN proj_full INTEGER;"
    "ALTER TABLE traces ADD COLUMN lambda REAL;";

/* Every claim numbers its run; a worker's writes name the run they belong
 * to (store_claim), so one that lost its job cannot write into the next
 * run.  Jobs of older files start at run 0: none is running under a claim
 * of this build before recovery requeues it. */
static const char M5_JOB_RUNS[] =
    "ALTER TABLE jobs ADD COLUMN run INTEGER NOT NULL DEFAULT 0;";

/* The server's own crash checkpoints: one solver state per job, replaced
 * every few seconds of solving, dropped when the job ends.  Apart from the
 * snapshots a spec asks for, so they neither show up in its listing nor
 * push its iterates out of the keep-last-K window. */
static const char M6_CHECKPOINTS[] =
    "CREATE TABLE checkpoints("
    " job_id TEXT PRIMARY KEY REFERENCES jobs(id) ON DELETE CASCADE,"
    " iteration INTEGER NOT NULL,"
    " created_at REAL NOT NULL,"
    " data BLOB NOT NULL);"
    /* A job that ended is never resumed: whichever path ends it (finish,
     * cancel, recovery out of attempts), its checkpoint goes. */
    "CREATE TRIGGER jobs_end_checkpoint AFTER UPDATE OF state ON jobs"
    " WHEN NEW.state IN ('succeeded', 'failed', 'cancelled') BEGIN"
    " DELETE FROM checkpoints WHERE job_id = NEW.id; END;";

/* Traces as compressed columnar chunks of up to 256 rows
 * (store_trace_codec.h): ~140 bytes a row become a few dozen.  Keyed by
 * (job_id, first iteration); the rows of the traces table are converted
 * by st_migrate_trace_chunks, which then drops it.  A rowid table: a
 * chunk is a few kilobytes. */
static const char M7_TRACE_CHUNKS[] =
    "CREATE TABLE trace_chunks("
    " job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,"
    " first INTEGER NOT NULL,"
    " last INTEGER NOT NULL,"
    " nrows INTEGER NOT NULL CHECK(nrows BETWEEN 1 AND 256),"
    " data BLOB NOT NULL);"
    "CREATE UNIQUE INDEX trace_chunks_job ON trace_chunks(job_id, first);";

/* What a job will hold at its peak, by the estimate of its spec made at
 * submission (api_estimate_json): shown with the job.  Jobs of older
 * files have none (NULL). */
static const char M8_JOB_ESTIMATES[] =
    "ALTER TABLE jobs ADD COLUMN estimate_json TEXT;";

/* Datasets of least squares and logistic regression besides ratings: a
 * kind, the caller's description of the content (its shape, as JSON), and
 * whether the bytes live in a file of the caller's rather than in `data`
 * (large matrices: the service keeps them on disk, read memory-mapped).
 * Rows of older files are ratings kept here, described by nothing. */
static const char M9_DATASET_KINDS[] =
    "ALTER TABLE datasets ADD COLUMN kind TEXT NOT NULL DEFAULT 'ratings';"
    "ALTER TABLE datasets ADD COLUMN meta TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE datasets ADD COLUMN in_file INTEGER NOT NULL DEFAULT 0;";

const char *const store_migrations[] = {
    M1_JOBS,
    M2_TRACES_SNAPSHOTS,
    M3_EVENTS_DATASETS,
    M4_TRACE_SOLVER_DETAILS,
    M5_JOB_RUNS,
    M6_CHECKPOINTS,
    M7_TRACE_CHUNKS,
    M8_JOB_ESTIMATES,
    M9_DATASET_KINDS,
};

const store_migration_fn store_migration_code[] = {
    NULL, NULL, NULL, NULL, NULL, NULL, st_migrate_trace_chunks, NULL, NULL,
};

const int store_nmigrations =
    (int)(sizeof store_migrations / sizeof store_migrations[0]);
