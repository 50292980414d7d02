/*
 * placement_bench.c - `sluice-bench placement`: the cost and the quality of the mnode's
 * rendezvous placement of (stream, slot) pairs on snodes (mnode/placement.h).
 *
 *   sluice-bench placement [--streams N] [--slots N] [--nodes N] [--repeat N]
 *
 * places every slot of N streams (ids 1..N) over simulated snodes with ids 1..nodes and
 * prints the time (best of --repeat) and pairs/s, then simulates one join (node nodes+1)
 * and one death (node 50, or the last node when there are fewer) from the original set and
 * prints the pairs moved beside the theoretical minimum (the pairs the newcomer owns
 * afterwards; the pairs the dead node owned), and the max/mean and min/mean load of the
 * alive nodes before and after each change. Exits 1 if a change moved more than the
 * minimum or the per-slot sl_place_owner disagrees with sl_place_stream.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "mnode/placement.h"

int bench_placement(int argc, char **argv);

typedef struct place_cfg {
    long streams;
    long slots;
    long nodes;
    int repeat;
} place_cfg;

/* Places all pairs: owners[stream index * slots + slot]. */
static void place_all(const place_cfg *c, const uint32_t *nodes, size_t n, uint32_t *owners)
{
    for (long st = 0; st < c->streams; st++)
        sl_place_stream((uint64_t)st + 1, (uint32_t)c->slots, nodes, n,
                        owners + (size_t)st * (size_t)c->slots);
}

/* max/mean and min/mean of the loads of the n alive nodes (ids index load[]). */
static void load_ratios(const uint32_t *owners, size_t pairs, const uint32_t *nodes, size_t n,
                        uint64_t *load, size_t maxid, double *maxr, double *minr)
{
    memset(load, 0, (maxid + 1) * sizeof(uint64_t));
    for (size_t i = 0; i < pairs; i++)
        load[owners[i]]++;
    uint64_t mn = UINT64_MAX, mx = 0;
    for (size_t j = 0; j < n; j++) {
        uint64_t l = load[nodes[j]];
        mn = l < mn ? l : mn;
        mx = l > mx ? l : mx;
    }
    double mean = (double)pairs / (double)n;
    *maxr = (double)mx / mean;
    *minr = (double)mn / mean;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: sluice-bench placement [--streams N] [--slots N] [--nodes N] [--repeat N]\n");
}

int bench_placement(int argc, char **argv)
{
    place_cfg c = {.streams = 10000, .slots = SL_PLACE_SLOTS, .nodes = 100, .repeat = 3};
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--streams") == 0 && i + 1 < argc)
            c.streams = atol(argv[++i]);
        else if (strcmp(argv[i], "--slots") == 0 && i + 1 < argc)
            c.slots = atol(argv[++i]);
        else if (strcmp(argv[i], "--nodes") == 0 && i + 1 < argc)
            c.nodes = atol(argv[++i]);
        else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
            c.repeat = atoi(argv[++i]);
        else {
            usage();
            return 2;
        }
    }
    /* Node ids run to nodes + 1 (the newcomer) and must stay below UINT32_MAX. */
    if (c.streams < 1 || c.slots < 1 || c.slots > UINT32_MAX || c.nodes < 2 ||
        c.nodes >= (long)UINT32_MAX - 1 || c.repeat < 1) {
        fprintf(stderr, "sluice-bench placement: counts must be positive (nodes at least 2)\n");
        return 2;
    }
    size_t n = (size_t)c.nodes;
    size_t pairs = (size_t)c.streams * (size_t)c.slots;
    uint32_t newcomer = (uint32_t)n + 1;
    uint32_t victim = n >= 50 ? 50 : (uint32_t)n;
    printf("sluice-bench placement: %ld streams x %ld slots = %zu pairs over %zu snodes "
           "(ids 1..%zu), %d repetitions (best kept)\n",
           c.streams, c.slots, pairs, n, n, c.repeat);

    int rc = 0;
    uint32_t *nodes = malloc((n + 1) * sizeof(uint32_t));
    uint32_t *rest = malloc(n * sizeof(uint32_t));
    uint32_t *base = malloc(pairs * sizeof(uint32_t));
    uint32_t *changed = malloc(pairs * sizeof(uint32_t));
    uint64_t *load = malloc((n + 2) * sizeof(uint64_t));
    if (nodes == NULL || rest == NULL || base == NULL || changed == NULL || load == NULL) {
        fprintf(stderr, "sluice-bench placement: out of memory\n");
        rc = 1;
        goto out;
    }
    for (size_t j = 0; j <= n; j++)
        nodes[j] = (uint32_t)j + 1;

    /* 1. The placement itself, best of repeat. */
    double best = 1e30;
    for (int r = 0; r < c.repeat; r++) {
        fprintf(stderr, "placing all pairs, run %d/%d ...\n", r + 1, c.repeat);
        double t0 = bench_now();
        place_all(&c, nodes, n, base);
        double t = bench_now() - t0;
        best = t < best ? t : best;
    }
    double scores = (double)pairs * (double)n;
    printf("\n%-44s %10s %14s %16s\n", "placement", "seconds", "pairs/s", "scores/s");
    printf("%-44s %10.3f %14.0f %16.0f\n", "sl_place_stream (hoisted), best", best,
           (double)pairs / best, scores / best);

    /* The un-hoisted path, once, as a cross-check and for comparison. */
    fprintf(stderr, "cross-checking with per-slot sl_place_owner ...\n");
    double t0 = bench_now();
    size_t disagree = 0;
    for (long st = 0; st < c.streams; st++)
        for (long s = 0; s < c.slots; s++)
            disagree += sl_place_owner((uint64_t)st + 1, (uint32_t)s, nodes, n) !=
                        base[(size_t)st * (size_t)c.slots + (size_t)s];
    double t_owner = bench_now() - t0;
    printf("%-44s %10.3f %14.0f %16.0f\n", "sl_place_owner per slot (not hoisted), once",
           t_owner, (double)pairs / t_owner, scores / t_owner);
    printf("per-slot owners agree with sl_place_stream: %s (%zu disagreements)\n",
           disagree == 0 ? "yes" : "NO", disagree);
    if (disagree != 0)
        rc = 1;

    double maxr, minr;
    load_ratios(base, pairs, nodes, n, load, n + 1, &maxr, &minr);
    printf("\n%-28s %12s %12s %12s %12s %9s %9s\n", "change", "pairs moved", "minimum",
           "total/n'", "extra moves", "max/mean", "min/mean");
    printf("%-28s %12s %12s %12s %12s %9.4f %9.4f\n", "(none: initial placement)", "-", "-",
           "-", "-", maxr, minr);

    /* 2. One join: node n + 1 (nodes[n]) joins. Minimum: the pairs it owns afterwards. */
    fprintf(stderr, "placing after node %u joins ...\n", newcomer);
    place_all(&c, nodes, n + 1, changed);
    size_t moved = 0, minimum = 0, stray = 0;
    for (size_t i = 0; i < pairs; i++) {
        bool mv = changed[i] != base[i];
        moved += mv;
        minimum += changed[i] == newcomer;
        stray += mv && changed[i] != newcomer;
    }
    load_ratios(changed, pairs, nodes, n + 1, load, n + 1, &maxr, &minr);
    char what[64];
    snprintf(what, sizeof(what), "join node %u (%zu -> %zu)", newcomer, n, n + 1);
    printf("%-28s %12zu %12zu %12.1f %12zu %9.4f %9.4f\n", what, moved, minimum,
           (double)pairs / (double)(n + 1), moved - minimum, maxr, minr);
    if (moved != minimum || stray != 0)
        rc = 1;

    /* 3. One death from the original set: the victim's pairs are the minimum. */
    fprintf(stderr, "placing after node %u dies ...\n", victim);
    size_t m = 0;
    for (size_t j = 0; j < n; j++)
        if (nodes[j] != victim)
            rest[m++] = nodes[j];
    place_all(&c, rest, m, changed);
    moved = minimum = stray = 0;
    for (size_t i = 0; i < pairs; i++) {
        bool mv = changed[i] != base[i];
        moved += mv;
        minimum += base[i] == victim;
        stray += mv && base[i] != victim;
    }
    load_ratios(changed, pairs, rest, m, load, n + 1, &maxr, &minr);
    snprintf(what, sizeof(what), "death node %u (%zu -> %zu)", victim, n, m);
    printf("%-28s %12zu %12zu %12.1f %12zu %9.4f %9.4f\n", what, moved, minimum,
           (double)pairs / (double)n, moved - minimum, maxr, minr);
    if (moved != minimum || stray != 0)
        rc = 1;
    printf("\nminimum = pairs the newcomer owns after the join / pairs the dead node owned; "
           "total/n' = the expected minimum (pairs / (n+1) for a join, pairs / n for a "
           "death); load ratios over the alive nodes after the change\n");
    printf("result: %s\n", rc == 0 ? "every change moved exactly the minimum"
                                   : "FAILED: a change moved more than the minimum");
out:
    free(nodes);
    free(rest);
    free(base);
    free(changed);
    free(load);
    return rc;
}
