/* priority.c: strict-priority queue discipline: smallest `priority` first,
 * first-come first-served among equals.  A binary min-heap on
 * (priority, seq); the array doubles when full and is never shrunk. */
#include <servesim/policy.h>

typedef struct heap {
    ss_qitem *a;
    size_t n, cap;
} heap;

#define HEAP_INITIAL 16

/* seq is strictly increasing per queue, so (priority, seq) is a total order
 * and equal priorities come out in arrival order. */
static inline int before(const ss_qitem *x, const ss_qitem *y)
{
    return x->priority < y->priority || (x->priority == y->priority && x->seq < y->seq);
}

static void *heap_new(void *state)
{
    heap *h = malloc(sizeof *h);
    if (!h) return NULL;
    h->a = malloc(HEAP_INITIAL * sizeof *h->a);
    if (!h->a) {
        free(h);
        return NULL;
    }
    h->n = 0;
    h->cap = HEAP_INITIAL;
    return h;
}

static void heap_free(void *queue)
{
    heap *h = queue;
    if (!h) return;
    free(h->a);
    free(h);
}

static int heap_push(void *queue, const ss_qitem *item)
{
    heap *h = queue;
    if (h->n == h->cap) {
        if (h->cap > SIZE_MAX / 2 / sizeof *h->a) return -1;
        ss_qitem *na = realloc(h->a, 2 * h->cap * sizeof *na);
        if (!na) return -1;
        h->a = na;
        h->cap *= 2;
    }
    /* Move the hole up instead of swapping: one copy per level, not three. */
    ss_qitem *a = h->a;
    size_t i = h->n++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!before(item, &a[parent])) break;
        a[i] = a[parent];
        i = parent;
    }
    a[i] = *item;
    return 0;
}

static int heap_pop(void *queue, double now_s, ss_qitem *out)
{
    heap *h = queue;
    if (!h->n) return 0;
    ss_qitem *a = h->a;
    *out = a[0];
    size_t n = --h->n;
    if (!n) return 1;
    /* Sift the former last item down from the root, again moving a hole. */
    const ss_qitem last = a[n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && before(&a[c + 1], &a[c])) c++;
        if (!before(&a[c], &last)) break;
        a[i] = a[c];
        i = c;
    }
    a[i] = last;
    return 1;
}

static size_t heap_len(const void *queue)
{
    return ((const heap *)queue)->n;
}

/* Exported as `ss_policy`.  C cannot write `const ss_policy ss_policy`: the
 * typedef and the object would share one name, so the asm label names it. */
const ss_policy servesim_policy = {
    .abi = SS_POLICY_ABI,
    .kind = SS_KIND_SCHEDULER,
    .name = "priority",
    .summary = "smallest priority first, first come first served among equals",
    .params = NULL,
    .init = NULL,
    .fini = NULL,
    .ops.scheduler = {.queue_new = heap_new, .queue_free = heap_free, .push = heap_push, .pop = heap_pop,
                      .len = heap_len},
};
