/*
 * wake.c - see wake.h.
 */
#include "wake.h"

#include <errno.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "common/util/error.h"

static void on_readable(uv_poll_t *p, int status, int events)
{
    (void)status;
    (void)events;
    sl_wake *w = p->data;
    uint64_t n;
    /* Reset the counter, then the flag: a send after this point writes again, so its
     * wake is not lost; one that saw the flag set before is covered by this callback. */
    while (read(w->fd, &n, sizeof(n)) < 0 && errno == EINTR)
        ;
    atomic_store(&w->pending, 0);
    w->cb(w);
}

int sl_wake_init(uv_loop_t *loop, sl_wake *w, sl_wake_fn cb, void *data)
{
    w->cb = cb;
    w->closed = NULL;
    w->data = data;
    atomic_init(&w->pending, 0);
    w->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (w->fd < 0)
        return SL_EIO;
    if (uv_poll_init(loop, &w->poll, w->fd) != 0) {
        close(w->fd);
        w->fd = -1;
        return SL_EIO;
    }
    w->poll.data = w;
    if (uv_poll_start(&w->poll, UV_READABLE, on_readable) != 0) {
        /* The handle exists now; it must be closed like any other. */
        uv_close((uv_handle_t *)&w->poll, NULL);
        close(w->fd);
        w->fd = -1;
        return SL_EIO;
    }
    return 0;
}

void sl_wake_send(sl_wake *w)
{
    if (atomic_exchange(&w->pending, 1) != 0)
        return; /* the loop has a wake coming and will look at the queue after it */
    uint64_t one = 1;
    ssize_t r;
    do
        r = write(w->fd, &one, sizeof(one));
    while (r < 0 && errno == EINTR);
    /* EAGAIN means the counter is at its maximum: the descriptor is readable anyway. */
}

static void on_closed(uv_handle_t *h)
{
    sl_wake *w = h->data;
    if (w->closed != NULL)
        w->closed(w);
}

void sl_wake_close(sl_wake *w, sl_wake_fn closed)
{
    w->closed = closed;
    /* uv_close stops the poll at once, so the descriptor may be closed now. */
    uv_close((uv_handle_t *)&w->poll, on_closed);
    close(w->fd);
    w->fd = -1;
}
