/*
 * test_vstore_crash.c - durability of the vstore across kill -9.
 *
 * The parent runs this executable again as a child (`test_vstore_crash
 * --vstore-crash-child DIR FD`; exec'ed rather than just forked, because a forked copy of
 * a process that already ran RocksDB inherits its thread pool's bookkeeping without its
 * threads). The child opens the vstore and makes synced calls forever: version i writes
 * rows to two tables in one call, rewrites older rows of table 2 every 5th version, and
 * every 7th version deletes rows of table 1 instead. After each acknowledged call it
 * writes the version on the pipe. The parent kills it with SIGKILL at a random moment,
 * reopens the vstore and checks: the version counter is at least the last acknowledged
 * version; the rows are exactly those of versions 1..last_version (every acknowledged
 * call whole, nothing of a later call, nothing half there); the change log holds exactly
 * versions 1..last_version with their entries. Six rounds continue in the same
 * directory, so recovery after recovery is covered too.
 */
#define _GNU_SOURCE /* nftw */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_vstore_util.h"

#define ROWS1 50 /* rows of table 1 per version */
#define ROWS2 20 /* rows of table 2 per version */

static const sl_vs_column CCOLS[] = {{"ts", SL_T_TIMESTAMP, 0}, {"v", SL_T_BIGINT, 0}};

static bool is_delete(uint64_t i)
{
    return i % 7 == 0;
}

static void add_rows(sl_block *b, int64_t from, int n, int64_t v)
{
    for (int k = 0; k < n; k++) {
        sl_column_append_i64(&b->cols[0], from + k);
        sl_column_append_i64(&b->cols[1], v);
    }
    sl_block_seal(b);
}

/* ---- the child ----------------------------------------------------------------------- */

static int child_main(const char *dir, int fd)
{
    sl_error err = {0};
    sl_vstore *vs;
    if (sl_vstore_open(&vs, dir, NULL, &err) != 0) {
        fprintf(stderr, "child open: %s\n", err.msg);
        return 2;
    }
    for (uint64_t uid = 1; uid <= 2; uid++) {
        sl_vs_table_def d = {.uid = uid,
                             .name = uid == 1 ? "t1" : "t2",
                             .kind = SL_VS_TABLE_NORMAL,
                             .precision = SL_PREC_MS,
                             .ncols = 2,
                             .cols = CCOLS};
        if (sl_vstore_put_table(vs, &d, true, &err) != 0) {
            fprintf(stderr, "child put: %s\n", err.msg);
            return 2;
        }
    }
    sl_block b1, b2;
    sl_block_init(&b1);
    sl_block_init(&b2);
    sl_block_add_column(&b1, SL_T_TIMESTAMP, 0);
    sl_block_add_column(&b1, SL_T_BIGINT, 0);
    sl_block_add_column(&b2, SL_T_TIMESTAMP, 0);
    sl_block_add_column(&b2, SL_T_BIGINT, 0);
    for (uint64_t i = sl_vstore_last_version(vs) + 1;; i++) {
        uint64_t v = 0, nd = 0;
        int rc;
        if (is_delete(i)) {
            rc = sl_vstore_delete(vs, 1, (int64_t)(i - 1) * 100, (int64_t)(i - 1) * 100 + 24, true,
                                  &v, &nd, &err);
        } else {
            sl_block_reset(&b1);
            sl_block_reset(&b2);
            add_rows(&b1, (int64_t)i * 100, ROWS1, (int64_t)i);
            add_rows(&b2, (int64_t)i * 100, ROWS2, (int64_t)i);
            if (i % 5 == 0 && i > 2)
                add_rows(&b2, (int64_t)(i - 2) * 100, 10, (int64_t)i);
            sl_vs_write_item items[] = {{1, &b1}, {2, &b2}};
            rc = sl_vstore_write(vs, items, 2, true, &v, &err);
        }
        if (rc != 0 || v != i) {
            fprintf(stderr, "child call %llu: rc %d v %llu %s\n", (unsigned long long)i, rc,
                    (unsigned long long)v, err.msg);
            return 2;
        }
        if (write(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
            return 3;
    }
}

/* ---- the parent ---------------------------------------------------------------------- */

/* The expected value at ts of each table after versions 1..last (-1: absent). */
static void expected(uint64_t last, int64_t *t1, int64_t *t2, size_t n)
{
    for (size_t k = 0; k < n; k++)
        t1[k] = t2[k] = -1;
    for (uint64_t i = 1; i <= last; i++) {
        if (is_delete(i)) {
            for (int64_t ts = (int64_t)(i - 1) * 100; ts <= (int64_t)(i - 1) * 100 + 24; ts++)
                t1[ts] = -1;
            continue;
        }
        for (int k = 0; k < ROWS1; k++)
            t1[i * 100 + k] = (int64_t)i;
        for (int k = 0; k < ROWS2; k++)
            t2[i * 100 + k] = (int64_t)i;
        if (i % 5 == 0 && i > 2)
            for (int k = 0; k < 10; k++)
                t2[(i - 2) * 100 + k] = (int64_t)i;
    }
}

static void check_table(sl_vstore *vs, uint64_t uid, const int64_t *want, size_t n)
{
    sl_block *got = tv_scan(vs, NULL, uid, (int[]){0, 1}, 2, INT64_MIN, INT64_MAX);
    uint32_t k = 0;
    for (size_t ts = 0; ts < n; ts++) {
        if (want[ts] < 0)
            continue;
        if (k >= got->nrows || sl_column_get_i64(&got->cols[0], k) != (int64_t)ts)
            fail_msg("table %llu: row ts %zu missing", (unsigned long long)uid, ts);
        if (sl_column_get_i64(&got->cols[1], k) != want[ts])
            fail_msg("table %llu ts %zu: v %lld, expected %lld", (unsigned long long)uid, ts,
                     (long long)sl_column_get_i64(&got->cols[1], k), (long long)want[ts]);
        k++;
    }
    if (k != got->nrows)
        fail_msg("table %llu: %u rows, expected %u", (unsigned long long)uid, got->nrows, k);
    sl_block_free(got);
}

/* Runs the child until a random number of acknowledgements, kills it, returns the last
 * acknowledged version (0 when none). */
static uint64_t run_and_kill(const char *dir, unsigned seed)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        char fd[16];
        snprintf(fd, sizeof(fd), "%d", p[1]);
        execl("/proc/self/exe", "test_vstore_crash", "--vstore-crash-child", dir, fd, (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    srand(seed);
    int target = 20 + rand() % 300;
    uint64_t last = 0, v;
    for (int got = 0; got < target;) {
        ssize_t r = read(p[0], &v, sizeof(v));
        if (r == (ssize_t)sizeof(v)) {
            last = v;
            got++;
        } else if (r <= 0 && errno != EINTR) {
            fail_msg("child ended early");
        }
    }
    /* Kill at a random moment, probably in the middle of a call. */
    struct timespec d = {0, (long)(rand() % 3000) * 1000};
    nanosleep(&d, NULL);
    kill(pid, SIGKILL);
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    /* Acknowledgements written before the kill are acknowledged too. */
    while (read(p[0], &v, sizeof(v)) == (ssize_t)sizeof(v))
        last = v;
    close(p[0]);
    return last;
}

static void test_kill9_durability(void **state)
{
    tv_fix *f = *state;
    uint64_t prev = 0;
    for (unsigned round = 0; round < 6; round++) {
        uint64_t acked = run_and_kill(f->path, 1234 + round * 77);
        assert_true(acked > prev);
        sl_vstore *vs = tv_open(f->path, NULL);
        uint64_t last = sl_vstore_last_version(vs);
        if (last < acked)
            fail_msg("round %u: version %llu < acknowledged %llu", round, (unsigned long long)last,
                     (unsigned long long)acked);
        size_t n = (size_t)(last + 2) * 100;
        int64_t *t1 = malloc(n * sizeof(int64_t)), *t2 = malloc(n * sizeof(int64_t));
        expected(last, t1, t2, n);
        check_table(vs, 1, t1, n);
        check_table(vs, 2, t2, n);
        /* The change log: exactly versions 1..last, whole. */
        sl_vs_changes c = tv_changes(vs, 0);
        size_t e = 0;
        for (uint64_t i = 1; i <= last; i++) {
            if (is_delete(i)) {
                assert_true(e < c.n);
                assert_int_equal(c.v[e].version, i);
                assert_int_equal(c.v[e].kind, SL_VS_CHANGE_DELETE);
                assert_int_equal(c.v[e].del_count, 25);
                e++;
                continue;
            }
            for (uint64_t uid = 1; uid <= 2; uid++, e++) {
                assert_true(e < c.n);
                assert_int_equal(c.v[e].version, i);
                assert_int_equal(c.v[e].uid, uid);
                uint32_t rows = uid == 1 ? ROWS1 : ROWS2 + (i % 5 == 0 && i > 2 ? 10 : 0);
                assert_int_equal(c.v[e].rows.nrows, rows);
                /* the rewritten rows of table 2 are updates (unless version i-2 was a
                 * delete, which wrote no rows there), the rest inserts */
                bool upd = uid == 2 && rows > ROWS2 && !is_delete(i - 2);
                assert_int_equal(c.v[e].row_kinds[0], upd ? SL_VS_ROW_UPDATE : SL_VS_ROW_INSERT);
                assert_int_equal(c.v[e].row_kinds[rows - 1], SL_VS_ROW_INSERT);
            }
        }
        assert_int_equal(e, c.n);
        sl_vs_changes_fini(&c);
        free(t1);
        free(t2);
        sl_vstore_close(vs);
        prev = last;
    }
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--vstore-crash-child") == 0)
        return child_main(argv[2], atoi(argv[3]));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_kill9_durability, tv_setup, tv_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
