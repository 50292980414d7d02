/*
 * wake.h - waking a libuv loop from other threads, without uv_async_t's busy wait.
 *
 * libuv 1.44's uv_async_t (Debian 12) makes the loop thread spin while a sender is between
 * marking the handle and returning from its write to the loop's wakeup descriptor: the
 * write wakes the loop on the other core, which then spins, and yields only after ~1000
 * rounds when the sender was preempted. With nng threads waking a daemon's loop thousands
 * of times a second on 2 cores, profiles showed 16% of the vnode's loop thread and 4% of
 * the mnode's CPU in that spin. sl_wake uses its own eventfd polled by the loop: a sender
 * writes it only when no wake is pending (an atomic flag), and the loop clears the flag
 * before running the callback, so a wake sent while the callback runs is not lost and
 * nobody waits for anybody.
 *
 * Like uv_async_t, wakes sent before the callback runs are coalesced into one call; the
 * callback must drain whatever queue the senders fill. sl_wake_send may be called from
 * any thread until sl_wake_close; the owner guarantees no send starts after close.
 */
#ifndef SL_NET_WAKE_H
#define SL_NET_WAKE_H

#include <stdatomic.h>
#include <uv.h>

typedef struct sl_wake sl_wake;
typedef void (*sl_wake_fn)(sl_wake *w);

struct sl_wake {
    uv_poll_t poll;      /* watches fd for the loop; internal */
    int fd;              /* eventfd, -1 before init and after close */
    atomic_int pending;  /* 1: fd was written since the loop last cleared it */
    sl_wake_fn cb;       /* run on the loop thread after one or more sends */
    sl_wake_fn closed;   /* run on the loop thread once the handle is closed, or NULL */
    void *data;          /* the owner's */
};

/* Initialises w on loop (loop thread). Returns 0 or SL_EIO (no eventfd, or the poll
 * handle failed); w needs no close then. */
int sl_wake_init(uv_loop_t *loop, sl_wake *w, sl_wake_fn cb, void *data);

/* Wakes the loop: cb runs there soon after. Any thread; async-signal-safe. */
void sl_wake_send(sl_wake *w);

/* Closes w (loop thread); closed(w), if not NULL, runs once libuv has released it, and
 * may free the memory holding w. No sl_wake_send may start after this call. */
void sl_wake_close(sl_wake *w, sl_wake_fn closed);

#endif
