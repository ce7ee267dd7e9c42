/* fifo.c: first-come first-served queue discipline.  A ring buffer whose
 * capacity doubles when full, so push/pop are O(1) amortised and a queue
 * that has reached its working size never allocates again. */
#include <servesim/policy.h>
#include <string.h>

typedef struct fifo {
    ss_qitem *buf;
    size_t mask; /* capacity - 1; capacity is a power of two so wrap is an AND */
    size_t head; /* index of the oldest item */
    size_t len;
} fifo;

#define FIFO_INITIAL 16

static void *fifo_new(void *state)
{
    fifo *q = malloc(sizeof *q);
    if (!q) return NULL;
    q->buf = malloc(FIFO_INITIAL * sizeof *q->buf);
    if (!q->buf) {
        free(q);
        return NULL;
    }
    q->mask = FIFO_INITIAL - 1;
    q->head = 0;
    q->len = 0;
    return q;
}

static void fifo_free(void *queue)
{
    fifo *q = queue;
    if (!q) return;
    free(q->buf);
    free(q);
}

/* Unwrap into a buffer twice the size; the cold half of push.  Kept out of
 * line: inlined, its calls make push save and restore six registers on
 * every call, not just on the rare one that grows. */
__attribute__((noinline, cold)) static int fifo_grow(fifo *q)
{
    size_t cap = q->mask + 1;
    if (cap > SIZE_MAX / 2 / sizeof *q->buf) return -1;
    ss_qitem *nb = malloc(2 * cap * sizeof *nb);
    if (!nb) return -1;
    size_t first = cap - q->head; /* items from head to the end of the old buffer */
    memcpy(nb, q->buf + q->head, first * sizeof *nb);
    memcpy(nb + first, q->buf, q->head * sizeof *nb);
    free(q->buf);
    q->buf = nb;
    q->head = 0;
    q->mask = 2 * cap - 1;
    return 0;
}

static int fifo_push(void *queue, const ss_qitem *item)
{
    fifo *q = queue;
    if (q->len > q->mask && fifo_grow(q) < 0) return -1;
    q->buf[(q->head + q->len) & q->mask] = *item;
    q->len++;
    return 0;
}

static int fifo_pop(void *queue, double now_s, ss_qitem *out)
{
    fifo *q = queue;
    if (!q->len) return 0;
    *out = q->buf[q->head];
    q->head = (q->head + 1) & q->mask;
    q->len--;
    return 1;
}

static size_t fifo_len(const void *queue)
{
    return ((const fifo *)queue)->len;
}

/* Exported as `ss_policy`.  C cannot write `const ss_policy ss_policy`: the
 * typedef and the object would share one name, so the asm label names it. */
const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_SCHEDULER,
    .name = "fifo",
    .summary = "first come, first served",
    .params = NULL,
    .init = NULL,
    .fini = NULL,
    .ops.scheduler = {.queue_new = fifo_new, .queue_free = fifo_free, .push = fifo_push, .pop = fifo_pop,
                      .len = fifo_len},
};
