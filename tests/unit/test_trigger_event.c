/*
 * test_trigger_event.c - EVENT_WINDOW through the trigger engine: semantics.md rule 5 and
 * its example, one-row windows, NULL conditions, TRUE_FOR in all four forms and the
 * start(...)/end(...) streak thresholds, the multi-start form with sub-windows, parent
 * windows, windowIndex and conditionIndex, optional END WITH, field values, out-of-order
 * rows and deletes, checkpoint -> restore -> continue at every row of a long random input,
 * and refusals.
 *
 * Trigger table st (ts TIMESTAMP, a INT, b INT, s VARCHAR(16), c BIGINT) TAGS (tg INT),
 * precision ms, times written in seconds. Events are one line each:
 * "OPEN start windowIndex conditionIndex {fields}" and
 * "CLOSE start end rows windowIndex conditionIndex {fields}".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/sql/parser.h"
#include "snode/trigger/trigger.h"
#include "test_trigger_util.h"

static int he_emit(void *ud, const sl_trig_event *ev)
{
    sw *h = ud;
    sl_buf *b = &h->log;
    bool open = ev->type == SL_TRIG_EV_WINDOW_OPEN;
    sl_buf_printf(b, "%s", open                                   ? "OPEN"
                           : ev->type == SL_TRIG_EV_WINDOW_CLOSE ? "CLOSE"
                           : ev->type == SL_TRIG_EV_WINDOW_INVALIDATION ? "INV"
                                                                  : "EV?");
    sw_fmt_time(b, ev->wstart);
    if (!open) {
        sw_fmt_time(b, ev->wend);
        sl_buf_printf(b, " %llu", (unsigned long long)ev->rownum);
    }
    sl_buf_printf(b, " %d %d", ev->window_index, ev->condition_index);
    if (h->verbose && ev->nfields > 0 && ev->type != SL_TRIG_EV_WINDOW_INVALIDATION) {
        sl_buf_printf(b, " {");
        for (int i = 0; i < ev->nfields; i++) {
            char tmp[64];
            sl_value_format(&ev->field_values[i], SL_PREC_MS, tmp, sizeof tmp);
            sl_buf_printf(b, "%s%s=%s", i ? "," : "", ev->field_names[i], tmp);
        }
        sl_buf_printf(b, "}");
    }
    assert_string_equal(ev->trigger_type, "Event");
    sl_buf_printf(b, "\n");
    return 0;
}

static const sw_kind EVENT = {.emit = he_emit, .stream_id = 12, .gid = 3, .fixed_s = "x"};

typedef sw_row row;
#define run(sql, fields, want, ...) SW_RUN(&EVENT, sql, fields, want, __VA_ARGS__)

#define TAIL " FROM st PARTITION BY tbname"
#define OC " STREAM_OPTIONS(EVENT_TYPE(WINDOW_OPEN|WINDOW_CLOSE))"
#define PLAIN "CREATE STREAM s EVENT_WINDOW(START WITH a > 10 END WITH a < 5)"

/* Rule 5: v=12@0 opens; 3@1 closes (0..1, 2 rows); 20@4 opens; 15@6 stays; 2@8 closes
 * (4..8, 3 rows). Condition 0 opens, the end condition (index 1) closes. */
static void test_rule5(void **st)
{
    (void)st;
    run(PLAIN TAIL OC, true,
        "OPEN 0 -1 0 {a=12}\n"
        "CLOSE 0 1 2 -1 1 {a=3}\n"
        "OPEN 4 -1 0 {a=20}\n"
        "CLOSE 4 8 3 -1 1 {a=2}\n",
        R1(0, 12), R1(1, 3), R1(4, 20), R1(6, 15), R1(8, 2));
    /* Rows before any start, start rows inside a window and end rows outside one change
     * nothing; NULL conditions are not TRUE. */
    run(PLAIN TAIL, false, "CLOSE 2 5 4 -1 1\n", R1(0, 7), R1(1, 3), R1(2, 12), R1(3, N_),
        R1(4, 30), R1(5, 4), R1(6, 2), R1(7, N_));
    /* An opening row that meets the end condition makes a one-row window. */
    run("CREATE STREAM s EVENT_WINDOW(START WITH a > 10 END WITH a > 15)" TAIL OC, false,
        "OPEN 0 -1 0\nCLOSE 0 0 1 -1 1\nOPEN 1 -1 0\nCLOSE 1 2 2 -1 1\n", R1(0, 20), R1(1, 11),
        R1(2, 16));
}

/* Field values: every column the conditions reference, in order of appearance. */
static void test_field_values(void **st)
{
    (void)st;
    run("CREATE STREAM s EVENT_WINDOW(START WITH a > 10 AND b < 3 END WITH b >= 3 OR tg > 0)"
        TAIL OC,
        true, "OPEN 0 -1 0 {a=11,b=1,tg=0}\nCLOSE 0 1 2 -1 1 {a=NULL,b=5,tg=0}\n",
        R2(0, 11, 1), R2(1, N_, 5));
}

/* Rule 9 on event windows: duration, COUNT, AND, OR. */
static void test_true_for_window(void **st)
{
    (void)st;
#define TFR R1(0, 12), R1(1, 3), R1(4, 20), R1(6, 15), R1(8, 2), R1(9, 11), R1(11, 1)
    run(PLAIN " TRUE_FOR(2s)" TAIL OC, false,
        "OPEN 4 -1 0\nCLOSE 4 8 3 -1 1\nOPEN 9 -1 0\nCLOSE 9 11 2 -1 1\n", TFR);
    run(PLAIN " TRUE_FOR(COUNT 3)" TAIL OC, false, "OPEN 4 -1 0\nCLOSE 4 8 3 -1 1\n", TFR);
    run(PLAIN " TRUE_FOR(3s AND COUNT 3)" TAIL OC, false, "OPEN 4 -1 0\nCLOSE 4 8 3 -1 1\n",
        TFR);
    run(PLAIN " TRUE_FOR(5s OR COUNT 2)" TAIL OC, false,
        "OPEN 0 -1 0\nCLOSE 0 1 2 -1 1\nOPEN 4 -1 0\nCLOSE 4 8 3 -1 1\nOPEN 9 -1 0\n"
        "CLOSE 9 11 2 -1 1\n",
        TFR);
#undef TFR
}

/* start(...) and end(...) streak thresholds. */
static void test_streaks(void **st)
{
    (void)st;
    /* start(COUNT 2): 12@0 alone (reset by 3@1, which is no end: nothing is open), then
     * 12@2 13@3 open the window at 2. */
    run(PLAIN " TRUE_FOR(start(COUNT 2))" TAIL OC, true,
        "OPEN 2 -1 0 {a=12}\nCLOSE 2 5 4 -1 1 {a=2}\n", R1(0, 12), R1(1, 3), R1(2, 12),
        R1(3, 13), R1(4, 14), R1(5, 2));
    /* start(2s): the streak must last 2 s. */
    run(PLAIN " TRUE_FOR(start(2s))" TAIL OC, false, "OPEN 3 -1 0\nCLOSE 3 6 3 -1 1\n",
        R1(0, 12), R1(1, 13), R1(2, 3), R1(3, 12), R1(5, 12), R1(6, 2));
    /* end(COUNT 2): 3@1 starts a close streak that 8@2 breaks; 2@3 1@4 close it with _twend
     * at 3 (rows 0..3). 12@5 opens again. */
    run(PLAIN " TRUE_FOR(end(COUNT 2))" TAIL OC, true,
        "OPEN 0 -1 0 {a=12}\nCLOSE 0 3 4 -1 1 {a=2}\nOPEN 5 -1 0 {a=12}\n", R1(0, 12),
        R1(1, 3), R1(2, 8), R1(3, 2), R1(4, 1), R1(5, 12));
    /* end(1s) with a window filter: the window must also last 3 s. */
    run(PLAIN " TRUE_FOR(3s, end(1s))" TAIL OC, false, "OPEN 5 -1 0\nCLOSE 5 9 4 -1 1\n",
        R1(0, 12), R1(1, 3), R1(2, 3), R1(5, 12), R1(7, 1), R1(8, 20), R1(9, 2), R1(10, 3));
    /* All three, any order. */
    run(PLAIN " TRUE_FOR(end(COUNT 2), COUNT 3, start(COUNT 2))" TAIL, false,
        "CLOSE 1.500 3 3 -1 1\n", R1(0, 11), R1(1, 3), R1(1.5, 12), R1(2, 13), R1(3, 3),
        R1(4, 4), R1(5, 2), R1(6, 12));
}

/* The multi-start form: load above 90 / above 60 alarm levels. */
#define MULTI "CREATE STREAM s EVENT_WINDOW(START WITH (a > 90, a > 60)"
static void test_multi_parent_sub(void **st)
{
    (void)st;
    run(MULTI ")" TAIL OC, true,
        "OPEN 1 -1 0 {a=95}\n"
        "OPEN 1 0 0 {a=95}\nCLOSE 1 2 2 0 1 {a=70}\nOPEN 3 1 1 {a=70}\n"
        "CLOSE 3 4 2 1 0 {a=92}\nOPEN 5 2 0 {a=92}\n"
        "CLOSE 5 5 1 2 -1 {a=40}\nCLOSE 1 5 5 -1 -1 {a=40}\n"
        "OPEN 7 -1 1 {a=70}\n"
        "CLOSE 7 8 2 -1 -1 {a=30}\n",
        R1(0, 50), R1(1, 95), R1(2, 97), R1(3, 70), R1(4, 65), R1(5, 92), R1(6, 40), R1(7, 70),
        R1(8, 71), R1(9, 30));
    /* END WITH closes the parent and the last sub-window, its row included (index 2 = the
     * end condition after the two start conditions). */
    run(MULTI " END WITH b > 0)" TAIL, false,
        "CLOSE 0 0 1 0 1\nCLOSE 1 2 2 1 2\nCLOSE 0 2 3 -1 2\nCLOSE 4 4 1 -1 2\n",
        R2(0, 95, 0), R2(1, 70, 0), R2(2, 80, 1), R2(3, 10, 1), R2(4, 99, 1));
    /* TRUE_FOR applies to sub-windows and parents alike; indexes count filtered
     * sub-windows, so a single kept sub-window keeps the parent/sub structure. */
    run(MULTI ") TRUE_FOR(COUNT 2)" TAIL OC, false,
        "OPEN 0 -1 0\nOPEN 1 1 1\nCLOSE 1 2 2 1 0\nCLOSE 0 3 4 -1 -1\n", R1(0, 95), R1(1, 70),
        R1(2, 71), R1(3, 92), R1(4, 40));
    /* A window whose condition never changes is a regular window (-1). */
    run(MULTI ") TRUE_FOR(2s)" TAIL, false, "CLOSE 0 2 3 -1 -1\n", R1(0, 61), R1(1, 62),
        R1(2, 63), R1(3, 5), R1(4, 70), R1(5, 1));
}

static void test_out_of_order(void **st)
{
    (void)st;
    sw h;
    sw_open(&h, &EVENT, PLAIN TAIL " STREAM_OPTIONS(DELETE_RECALC)", false);
    const row r[] = {R1(0, 12), R1(2, 3), R1(4, 20), R1(6, 2)};
    sw_feed(&h, r, 4);
    sw_expect(&h, "CLOSE 0 2 2 -1 1\nCLOSE 4 6 2 -1 1\n");
    const row l1[] = {R1(1, 1)};
    sw_feed(&h, l1, 1);
    sw_expect(&h, "INV 0 2 2 -1 1\nCLOSE 0 1 2 -1 1\n");
    const row l2[] = {R1(3, 11)};
    sw_feed(&h, l2, 1);
    sw_expect(&h, "INV 4 6 2 -1 1\nCLOSE 3 6 3 -1 1\n");
    /* A duplicate of a row inside an emitted window recomputes it (same bounds). */
    const row dup[] = {R1(4, 20)};
    sw_feed(&h, dup, 1);
    sw_expect(&h, "INV 3 6 3 -1 1\nCLOSE 3 6 3 -1 1\n");
    /* Deleting the closing row at 1 merges the first window up to the row at 2. */
    const row del[] = {{1, 0, 0, NULL, SL_TRIG_ROW_DELETE}};
    sw_feed(&h, del, 1);
    sw_expect(&h, "INV 0 1 2 -1 1\nCLOSE 0 2 2 -1 1\n");
    sw_close(&h);
}

/* Windows re-emitted after a late row carry what a first emission carries: the opening
 * condition and start row's field values on OPEN, the closing ones on CLOSE. */
static void test_recalc_fields(void **st)
{
    (void)st;
    sw h;
    sw_open(&h, &EVENT, PLAIN TAIL OC, true);
    const row r[] = {R1(0, 12), R1(2, 3), R1(4, 20), R1(6, 2)};
    sw_feed(&h, r, 4);
    sw_expect(&h, "OPEN 0 -1 0 {a=12}\nCLOSE 0 2 2 -1 1 {a=3}\nOPEN 4 -1 0 {a=20}\n"
                  "CLOSE 4 6 2 -1 1 {a=2}\n");
    const row l[] = {R1(3, 11)};
    sw_feed(&h, l, 1);
    sw_expect(&h, "INV 4 6 2 -1 1\nOPEN 3 -1 0 {a=11}\nCLOSE 3 6 3 -1 1 {a=2}\n");
    sw_close(&h);
    /* Multi-start: the re-emitted parent and sub-windows keep their conditions and fields. */
    sw_open(&h, &EVENT, MULTI ")" TAIL OC, true);
    const row m[] = {R1(0, 95), R1(1, 70), R1(3, 10)};
    sw_feed(&h, m, 3);
    sw_expect(&h, "OPEN 0 -1 0 {a=95}\nOPEN 0 0 0 {a=95}\nCLOSE 0 0 1 0 1 {a=70}\n"
                  "OPEN 1 1 1 {a=70}\nCLOSE 1 1 1 1 -1 {a=10}\nCLOSE 0 1 2 -1 -1 {a=10}\n");
    const row ml[] = {R1(2, 99)};
    sw_feed(&h, ml, 1);
    /* Sub-window 1 keeps its bounds but now closes on condition 0 (a=99): re-emitted.
     * Re-emission goes by window start (parent before its sub-windows). */
    sw_expect(&h, "INV 0 1 2 -1 -1\nINV 1 1 1 1 -1\nCLOSE 0 2 3 -1 -1 {a=10}\n"
                  "CLOSE 1 1 1 1 0 {a=99}\nOPEN 2 2 0 {a=99}\nCLOSE 2 2 1 2 -1 {a=10}\n");
    sw_close(&h);
}

static void refuse(const char *sql, const char *part)
{
    sw_refuse(&EVENT, sql, part);
}

static void test_refusals(void **st)
{
    (void)st;
    refuse("CREATE STREAM s EVENT_WINDOW(START WITH a END WITH a < 5)" TAIL,
           "not a boolean expression");
    refuse("CREATE STREAM s EVENT_WINDOW(START WITH a > 1 END WITH b + 1)" TAIL,
           "END WITH condition is not a boolean");
    refuse(MULTI ") TRUE_FOR(start(COUNT 2))" TAIL,
           "only supported for a single-condition EVENT_WINDOW");
    refuse("CREATE STREAM s EVENT_WINDOW(START WITH zz > 1 END WITH a < 5)" TAIL,
           "unknown column");
    refuse("CREATE STREAM s EVENT_WINDOW(START WITH (a > 90, a > 60, s) END WITH a < 5)" TAIL,
           "START WITH condition 3 is not a boolean");
}


/* ---------------------------------------------- random: plain form vs brute force */

typedef struct rw {
    int64_t start, end;
    uint64_t rows;
} rw;

/*
 * Event windows of the final rows (sorted, one per second, value a), written from the
 * spec's wording: a window starts at the first row of a run of sn consecutive start rows
 * (a streak may begin right after the previous window's last consumed row), its _twend is
 * the first row of the first run of en consecutive end rows found from the opening row on
 * (the row completing the start streak), and the next search begins after the row that
 * completed the end streak. Windows still open at the end are not listed.
 */
static int event_reference(const int64_t *ts, const int32_t *a, int n, int sn, int en,
                           int tf_cnt, int64_t tf_ms, rw *out)
{
#define START(i) (a[i] != N_ && a[i] > 60)
#define END(i) (a[i] != N_ && a[i] < 20)
    int k = 0, pos = 0;
    for (;;) {
        int i = pos;
        for (; i + sn - 1 < n; i++) {
            if (i > pos && START(i - 1))
                continue; /* a streak starts where the previous row had no start */
            bool ok = true;
            for (int q = i; q < i + sn && ok; q++)
                ok = START(q);
            if (ok)
                break;
        }
        if (i + sn - 1 >= n)
            return k;
        int o = i + sn - 1, j = o;
        for (; j + en - 1 < n; j++) {
            if (j > o && END(j - 1))
                continue;
            bool ok = true;
            for (int q = j; q < j + en && ok; q++)
                ok = END(q);
            if (ok)
                break;
        }
        if (j + en - 1 >= n)
            return k; /* still open */
        rw w = {ts[i], ts[j], (uint64_t)(j - i + 1)};
        if ((tf_cnt == 0 || w.rows >= (uint64_t)tf_cnt) && (tf_ms == 0 || w.end - w.start >= tf_ms))
            out[k++] = w;
        pos = j + en;
    }
#undef START
#undef END
}

static void random_event(int sn, int en, int tf_cnt, int64_t tf_ms, int expired_s, uint64_t seed)
{
    char sql[512], tf[160] = "", opt[80] = "";
    int np = 0;
    char parts[3][48];
    if (sn > 1)
        snprintf(parts[np++], sizeof parts[0], "start(COUNT %d)", sn);
    if (en > 1)
        snprintf(parts[np++], sizeof parts[0], "end(COUNT %d)", en);
    if (tf_cnt > 0 && tf_ms > 0)
        snprintf(parts[np++], sizeof parts[0], "%llda AND COUNT %d", (long long)tf_ms, tf_cnt);
    else if (tf_cnt > 0)
        snprintf(parts[np++], sizeof parts[0], "COUNT %d", tf_cnt);
    else if (tf_ms > 0)
        snprintf(parts[np++], sizeof parts[0], "%llda", (long long)tf_ms);
    if (np > 0)
        snprintf(tf, sizeof tf, " TRUE_FOR(%s%s%s%s%s)", parts[0], np > 1 ? ", " : "",
                 np > 1 ? parts[1] : "", np > 2 ? ", " : "", np > 2 ? parts[2] : "");
    if (expired_s > 0)
        snprintf(opt, sizeof opt, " STREAM_OPTIONS(EXPIRED_TIME(%ds))", expired_s);
    snprintf(sql, sizeof sql, "CREATE STREAM s EVENT_WINDOW(START WITH a > 60 END WITH a < 20)%s"
             TAIL "%s", tf, opt);
    sw_rng_state = seed;
    enum { NR = 500 };
    static int32_t base[NR + 8];
    static row feed[2 * NR + 16];
    int order[NR], nf = 0;
    for (int i = 0; i < NR; i++) {
        base[i] = (int32_t)sw_rnd(100);
        order[i] = i;
    }
    for (int q = 0; q < NR / 3; q++) {
        int i = (int)sw_rnd(NR - 1), j = i + 1 + (int)sw_rnd(4);
        if (j >= NR)
            j = NR - 1;
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int q = 0; q < NR; q++) {
        feed[nf++] = (row)R1(order[q], base[order[q]]);
        if (q > 0 && sw_rnd(8) == 0)
            feed[nf++] = (row)R1(order[sw_rnd((uint32_t)q)], (int32_t)sw_rnd(100));
    }
    /* Close what is open: en end rows, then a neutral row. */
    for (int q = 0; q < en; q++)
        feed[nf++] = (row)R1(NR + q, 0);
    feed[nf++] = (row)R1(NR + en, 30);
    /* The final rows: the last accepted value per second; changes more than EXPIRED_TIME
     * behind the newest row are ignored (a row whose every version was ignored is absent). */
    static bool have[NR + 8];
    static int64_t fts[NR + 8];
    static int32_t fa[NR + 8];
    memset(have, 0, sizeof have);
    double maxts = -1;
    for (int q = 0; q < nf; q++) {
        if (expired_s > 0 && feed[q].ts < maxts - expired_s)
            continue;
        if (feed[q].ts > maxts)
            maxts = feed[q].ts;
        base[(int)feed[q].ts] = feed[q].a;
        have[(int)feed[q].ts] = true;
    }
    int n = 0;
    for (int q = 0; q < NR + en + 1; q++)
        if (have[q]) {
            fts[n] = (int64_t)q * 1000;
            fa[n++] = base[q];
        }
    sw h;
    sw_open(&h, &EVENT, sql, false);
    for (int q = 0; q < nf; q++)
        sw_feed(&h, &feed[q], 1);
    /* Emitted windows: CLOSE adds, INV removes. */
    static rw got[2 * NR], ref[NR];
    int ng = 0;
    const char *p = (const char *)h.log.data, *e = p + h.log.len;
    while (p && p < e) {
        char kind[8];
        double ws, we;
        unsigned long long r;
        if (sscanf(p, "%7s %lf %lf %llu", kind, &ws, &we, &r) == 4) {
            rw w = {(int64_t)(ws * 1000 + 0.5), (int64_t)(we * 1000 + 0.5), r};
            if (strcmp(kind, "CLOSE") == 0) {
                got[ng++] = w;
            } else {
                int f = -1;
                for (int q = 0; q < ng; q++)
                    if (got[q].start == w.start && got[q].end == w.end && got[q].rows == w.rows)
                        f = q;
                assert_true(f >= 0);
                got[f] = got[--ng];
            }
        }
        p = memchr(p, '\n', (size_t)(e - p));
        if (p)
            p++;
    }
    int nr = event_reference(fts, fa, n, sn, en, tf_cnt, tf_ms, ref);
    for (int q = 1; q < ng; q++) /* insertion sort by start */
        for (int z = q; z > 0 && got[z - 1].start > got[z].start; z--) {
            rw t = got[z];
            got[z] = got[z - 1];
            got[z - 1] = t;
        }
    if (getenv("H5_VERBOSE"))
        fprintf(stderr, "%s: %d windows\n", sql, nr);
    assert_true(nr > 3);
    bool same = ng == nr;
    for (int q = 0; same && q < nr; q++)
        same = got[q].start == ref[q].start && got[q].end == ref[q].end &&
               got[q].rows == ref[q].rows;
    if (!same) {
        int q = 0;
        while (q < nr && q < ng && got[q].start == ref[q].start && got[q].end == ref[q].end &&
               got[q].rows == ref[q].rows)
            q++;
        fail_msg("%s seed %llu: engine %d windows, reference %d, first difference at %d: "
                 "engine %lld..%lld %llu, reference %lld..%lld %llu",
                 sql, (unsigned long long)seed, ng, nr, q, q < ng ? (long long)got[q].start : -1,
                 q < ng ? (long long)got[q].end : -1, q < ng ? got[q].rows : 0,
                 q < nr ? (long long)ref[q].start : -1, q < nr ? (long long)ref[q].end : -1,
                 q < nr ? ref[q].rows : 0);
    }
    sw_close(&h);
}


static void test_random_reference(void **st)
{
    (void)st;
    for (uint64_t seed = 1; seed <= 20 * (uint64_t)sw_rand_scale(); seed++) {
        random_event(1, 1, 0, 0, 0, seed);
        random_event(2, 1, 0, 0, 0, seed + 100);
        random_event(1, 2, 2, 0, 0, seed + 200);
        random_event(2, 2, 0, 3000, 0, seed + 300);
        random_event(1, 1, 0, 0, 8, seed + 400);  /* pruned log: replays from quiet rows */
        random_event(2, 2, 2, 1000, 9, seed + 500);
    }
}

/* checkpoint -> restore (new definition) -> continue at every row = uninterrupted run. */

#define MULTI3 "CREATE STREAM s EVENT_WINDOW(START WITH (a > 90, a > 60, a > 30)"
static void ckpt_run(const char *sql, uint64_t seed)
{
    enum { NR = 300 };
    row rows[NR];
    sw_rng_state = seed;
    for (int i = 0; i < NR; i++) {
        double t = i;
        if (i > 3 && sw_rnd(6) == 0)
            t = i - 1 - (int)sw_rnd(3);
        rows[i] = (row)R2(t, (int32_t)sw_rnd(100), (int32_t)sw_rnd(4));
        if (sw_rnd(20) == 0)
            rows[i].a = N_;
        if (i > 10 && sw_rnd(25) == 0) {
            rows[i].kind = SL_TRIG_ROW_DELETE;
            rows[i].ts = i - 2;
        }
    }
    sw_ckpt_check(&EVENT, sql, rows, NR);
}

static void test_checkpoint_every_row(void **st)
{
    (void)st;
    ckpt_run("CREATE STREAM s EVENT_WINDOW(START WITH a > 60 END WITH a < 20)" TAIL OC, 1);
    ckpt_run("CREATE STREAM s EVENT_WINDOW(START WITH a > 50 END WITH a < 30) "
             "TRUE_FOR(COUNT 2, start(COUNT 2), end(2s))" TAIL
             " STREAM_OPTIONS(DELETE_RECALC|WATERMARK(2s))",
             2);
    ckpt_run(MULTI3 " END WITH b = 3) TRUE_FOR(1s)" TAIL OC, 3);
    ckpt_run(MULTI3 ")" TAIL " STREAM_OPTIONS(DELETE_RECALC)", 4);
    for (int x = 1; x < sw_rand_scale(); x++) {
        ckpt_run(MULTI3 " END WITH b = 3) TRUE_FOR(1s)" TAIL OC, 1000 + (uint64_t)x);
        ckpt_run("CREATE STREAM s EVENT_WINDOW(START WITH a > 60 END WITH a < 20)" TAIL
                 " STREAM_OPTIONS(DELETE_RECALC|EVENT_TYPE(WINDOW_OPEN|WINDOW_CLOSE))",
                 2000 + (uint64_t)x);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule5),
        cmocka_unit_test(test_field_values),
        cmocka_unit_test(test_true_for_window),
        cmocka_unit_test(test_streaks),
        cmocka_unit_test(test_multi_parent_sub),
        cmocka_unit_test(test_out_of_order),
        cmocka_unit_test(test_recalc_fields),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_random_reference),
        cmocka_unit_test(test_checkpoint_every_row),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
