/* engine.h: the event calendar that drives every simulation.
 *
 * Events are ordered by (time, sequence number): the sequence number is the
 * order in which events were scheduled, so events at equal times fire in a
 * fixed FIFO order and runs are reproducible bit for bit.
 *
 * Complexity: schedule, cancel and pop are O(log n) in the number of pending
 * events (a binary heap of keys that carries each event's slot; every slot
 * knows its heap position, so cancel removes in place without searching).
 * Events live in a slot pool recycled through a free list: no malloc per
 * event once the pool has grown to the peak number pending.
 *
 * An event id carries a generation count, so cancelling an event that has
 * already fired (or was cancelled) is a harmless no-op, never a wrong cancel.
 * Simulated time is in seconds. */
#ifndef SS_ENGINE_H
#define SS_ENGINE_H

#include <stddef.h>
#include <stdint.h>

typedef struct ss_engine ss_engine;

/* A handler runs when its event fires; now = the event's time. */
typedef void (*ss_handler)(ss_engine *eng, void *ctx, uint64_t arg);

/* 0 is never a valid id: use it for "no event". */
typedef uint64_t ss_event_id;

ss_engine *ss_engine_new(void);
void ss_engine_free(ss_engine *eng);

/* Schedule h(ctx, arg) at absolute time t_s >= now (asserted). */
ss_event_id ss_schedule(ss_engine *eng, double t_s, ss_handler h, void *ctx, uint64_t arg);
/* Schedule at now + delay_s, delay_s >= 0. */
ss_event_id ss_schedule_in(ss_engine *eng, double delay_s, ss_handler h, void *ctx, uint64_t arg);
/* Remove a pending event.  1 if it was pending, 0 if it had fired, been
 * cancelled or id is 0. */
int ss_cancel(ss_engine *eng, ss_event_id id);

/* Fire events in order until none is left, ss_engine_stop is called, or
 * the next event lies after until_s (then now = until_s).  Returns the
 * number of events fired by this call. */
uint64_t ss_engine_run(ss_engine *eng, double until_s);
/* Make ss_engine_run return after the current handler. */
void ss_engine_stop(ss_engine *eng);

/* The current simulated time.  Read on every step of the serving path, so
 * it is inline: the clock is the first member of struct ss_engine (engine.c),
 * and a pointer to a struct may be read as a pointer to its first member.
 * Nothing else of the engine is visible outside engine.c. */
typedef struct ss_engine_clock {
    double now_s;
} ss_engine_clock;

static inline double ss_now(const ss_engine *eng)
{
    return ((const ss_engine_clock *)(const void *)eng)->now_s;
}
uint64_t ss_engine_fired(const ss_engine *eng);  /* events fired so far */
size_t ss_engine_pending(const ss_engine *eng);  /* events waiting */
size_t ss_engine_peak(const ss_engine *eng);     /* most events ever waiting at once */

#endif
