/*
 * notify_event.c - the owned notification event record and its copy from an engine event.
 * Value arrays are copied into single allocations (values, then the string bytes they
 * point at) so an event costs a handful of mallocs however many columns it carries.
 */
#include "snode/notify/notify_event.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const trig_names[SL_NOTIFY_TRIG__N] = {
    [SL_NOTIFY_TRIG_PERIOD] = "Period",   [SL_NOTIFY_TRIG_SLIDING] = "Sliding",
    [SL_NOTIFY_TRIG_INTERVAL] = "Interval", [SL_NOTIFY_TRIG_SESSION] = "Session",
    [SL_NOTIFY_TRIG_STATE] = "State",     [SL_NOTIFY_TRIG_EVENT] = "Event",
    [SL_NOTIFY_TRIG_COUNT] = "Count",
};

static const char *const ev_names[SL_NOTIFY_EV__N] = {
    [SL_NOTIFY_EV_WINDOW_OPEN] = "WINDOW_OPEN",
    [SL_NOTIFY_EV_WINDOW_CLOSE] = "WINDOW_CLOSE",
    [SL_NOTIFY_EV_ON_TIME] = "ON_TIME",
    [SL_NOTIFY_EV_IDLE] = "IDLE",
    [SL_NOTIFY_EV_RESUME] = "RESUME",
    [SL_NOTIFY_EV_WINDOW_INVALIDATION] = "WINDOW_INVALIDATION",
};

const char *sl_notify_trigger_name(sl_notify_trigger t)
{
    return (unsigned)t < SL_NOTIFY_TRIG__N ? trig_names[t] : "?";
}

const char *sl_notify_event_type_name(sl_notify_event_type t)
{
    return (unsigned)t < SL_NOTIFY_EV__N ? ev_names[t] : "?";
}

int sl_notify_trigger_parse(const char *s, sl_notify_trigger *out)
{
    if (s == NULL)
        return SL_EINVAL;
    for (int i = 0; i < SL_NOTIFY_TRIG__N; i++) {
        if (strcasecmp(s, trig_names[i]) == 0) {
            *out = (sl_notify_trigger)i;
            return 0;
        }
    }
    return SL_EINVAL;
}

void sl_notify_event_init(sl_notify_event *ev)
{
    memset(ev, 0, sizeof(*ev));
    ev->ne_window_index = -1;
    ev->ne_condition_index = -1;
}

static void row_fini(sl_notify_row *r)
{
    free(r->mem);
    memset(r, 0, sizeof(*r));
}

void sl_notify_event_fini(sl_notify_event *ev)
{
    if (ev == NULL)
        return;
    free(ev->ne_stream);
    free(ev->ne_db);
    free(ev->ne_table);
    free(ev->ne_state_mem);
    row_fini(&ev->ne_fields);
    row_fini(&ev->ne_result);
    sl_notify_event_init(ev);
}

static size_t value_bytes(const sl_value *v)
{
    return (!v->is_null && sl_type_is_var(v->type)) ? v->v.s.len : 0;
}

/* Copies v to *dst, moving its string bytes to *pool (advanced). */
static void value_copy(sl_value *dst, const sl_value *v, char **pool)
{
    *dst = *v;
    if (!v->is_null && sl_type_is_var(v->type)) {
        if (v->v.s.len > 0)
            memcpy(*pool, v->v.s.ptr, v->v.s.len);
        dst->v.s.ptr = *pool;
        *pool += v->v.s.len;
    }
}

static int row_copy(sl_notify_row *out, const char *const *names, const sl_value *values, int n)
{
    if (n < 0 || (n > 0 && (names == NULL || values == NULL)))
        return SL_EINVAL;
    size_t need = (size_t)n * (sizeof(char *) + sizeof(sl_value));
    for (int i = 0; i < n; i++) {
        if (names[i] == NULL)
            return SL_EINVAL;
        need += strlen(names[i]) + 1 + value_bytes(&values[i]);
    }
    sl_notify_row r = {0};
    if (n > 0) {
        /* Values first: their alignment is the strictest. */
        r.mem = malloc(need);
        if (r.mem == NULL)
            return SL_ENOMEM;
        r.values = r.mem;
        r.names = (const char **)(r.values + n);
        char *pool = (char *)(r.names + n);
        for (int i = 0; i < n; i++) {
            size_t l = strlen(names[i]) + 1;
            memcpy(pool, names[i], l);
            r.names[i] = pool;
            pool += l;
            value_copy(&r.values[i], &values[i], &pool);
        }
        r.n = n;
    }
    row_fini(out);
    *out = r;
    return 0;
}

int sl_notify_event_set_result(sl_notify_event *ev, const char *const *names,
                               const sl_value *values, int n)
{
    int rc = row_copy(&ev->ne_result, names, values, n);
    if (rc == 0)
        ev->ne_has_result = true;
    return rc;
}

int sl_notify_event_set_fields(sl_notify_event *ev, const char *const *names,
                               const sl_value *values, int n)
{
    return row_copy(&ev->ne_fields, names, values, n);
}

int sl_notify_event_set_state(sl_notify_event *ev, int nstate, const sl_value *prev,
                              const sl_value *cur, const sl_value *next)
{
    if (nstate < 0 || (nstate > 0 && cur == NULL))
        return SL_EINVAL;
    const sl_value *src[3] = {prev, cur, next};
    size_t need = 3 * (size_t)nstate * sizeof(sl_value);
    for (int a = 0; a < 3; a++)
        for (int i = 0; src[a] != NULL && i < nstate; i++)
            need += value_bytes(&src[a][i]);
    void *mem = NULL;
    sl_value *arr[3] = {NULL, NULL, NULL};
    if (nstate > 0) {
        mem = malloc(need);
        if (mem == NULL)
            return SL_ENOMEM;
        char *pool = (char *)((sl_value *)mem + 3 * nstate);
        for (int a = 0; a < 3; a++) {
            if (src[a] == NULL)
                continue;
            arr[a] = (sl_value *)mem + a * nstate;
            for (int i = 0; i < nstate; i++)
                value_copy(&arr[a][i], &src[a][i], &pool);
        }
    }
    free(ev->ne_state_mem);
    ev->ne_state_mem = mem;
    ev->ne_nstate = nstate;
    ev->ne_prev_state = arr[0];
    ev->ne_cur_state = arr[1];
    ev->ne_next_state = arr[2];
    return 0;
}

static int dup_str(char **out, const char *s)
{
    if (s == NULL) {
        *out = NULL;
        return 0;
    }
    *out = strdup(s);
    return *out == NULL ? SL_ENOMEM : 0;
}

int sl_notify_event_from_trig(sl_notify_event *ev, const sl_trig_event *te, const char *stream,
                              const char *db, const char *table, sl_precision prec,
                              sl_error *err)
{
    sl_notify_event_init(ev);
    if (stream == NULL || stream[0] == '\0')
        return sl_error_set(err, SL_EINVAL, 0, 0, "notification event without a stream name");
    sl_notify_trigger trig;
    if (sl_notify_trigger_parse(te->trigger_type, &trig) != 0)
        return sl_error_set(err, SL_EINVAL, 0, 0, "unknown trigger type '%s' in event",
                            te->trigger_type ? te->trigger_type : "(null)");
    switch (te->type) {
    case SL_TRIG_EV_WINDOW_OPEN: ev->ne_type = SL_NOTIFY_EV_WINDOW_OPEN; break;
    case SL_TRIG_EV_WINDOW_CLOSE:
    case SL_TRIG_EV_MAX_DELAY: ev->ne_type = SL_NOTIFY_EV_WINDOW_CLOSE; break;
    case SL_TRIG_EV_ON_TIME: ev->ne_type = SL_NOTIFY_EV_ON_TIME; break;
    case SL_TRIG_EV_IDLE: ev->ne_type = SL_NOTIFY_EV_IDLE; break;
    case SL_TRIG_EV_RESUME: ev->ne_type = SL_NOTIFY_EV_RESUME; break;
    case SL_TRIG_EV_WINDOW_INVALIDATION: ev->ne_type = SL_NOTIFY_EV_WINDOW_INVALIDATION; break;
    default:
        return sl_error_set(err, SL_EINVAL, 0, 0, "unknown trigger event type %d",
                            (int)te->type);
    }
    if (te->nstate < 0 || te->nfields < 0)
        return sl_error_set(err, SL_EINVAL, 0, 0, "negative key count in trigger event");
    ev->ne_trigger = trig;
    ev->ne_flags = te->flags;
    ev->ne_trigger_id = te->trigger_id;
    ev->ne_group_id = te->group_id;
    ev->ne_event_time_ms = te->event_time_ms;
    ev->ne_precision = prec;
    ev->ne_wstart = te->wstart;
    ev->ne_wend = te->wend;
    ev->ne_window_index = te->window_index;
    ev->ne_condition_index = te->condition_index;
    ev->ne_idle_start_ns = te->idle_start_ns;
    ev->ne_idle_end_ns = te->idle_end_ns;
    ev->ne_idle_duration_ms = te->idle_duration_ms;
    ev->ne_prev_ts = te->prev_ts;
    ev->ne_cur_ts = te->cur_ts;
    ev->ne_next_ts = te->next_ts;
    ev->ne_localtime_ns = te->localtime_ns;
    int rc = dup_str(&ev->ne_stream, stream);
    if (rc == 0)
        rc = dup_str(&ev->ne_db, db);
    if (rc == 0)
        rc = dup_str(&ev->ne_table, table);
    if (rc == 0 && te->nstate > 0 && te->cur_state != NULL)
        rc = sl_notify_event_set_state(ev, te->nstate, te->prev_state, te->cur_state,
                                       te->next_state);
    if (rc == 0 && te->nfields > 0)
        rc = sl_notify_event_set_fields(ev, te->field_names, te->field_values, te->nfields);
    if (rc != 0)
        return sl_error_set(err, rc, 0, 0, "cannot copy trigger event: %s", sl_strerror(rc));
    return 0;
}
