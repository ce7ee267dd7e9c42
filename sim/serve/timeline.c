/* timeline.c: a run as Chrome trace events (`--timeline FILE.json`), for a
 * person to look at in Perfetto (ui.perfetto.dev), chrome://tracing or
 * tools/timeline-view.html.
 *
 * What is written (the trace-event format's JSON object form, times in
 * microseconds of simulated time):
 *  - a process per world ("<variant> rep <k>: requests") whose async slices
 *    are the sampled requests: an outer "request" slice from creation to its
 *    end, with nested "queue <model>" and "service <model>" slices per stage
 *    (args: request id, workload, outcome);
 *  - a process per device ("... : <host/device>") whose async slices are
 *    the services of the sampled requests there (ps requests overlap: async
 *    slices stack) and the cold starts of replicas there (a "cold start"
 *    slice with its stages nested: data, load, send), and whose instant
 *    events are instance life-cycle changes (up, draining, stopped, failed)
 *    and capacity changes;
 *  - on the requests process, instant events for the autoscaler's
 *    decisions ("scale <model> 3 -> 5"), and in a block pipeline each
 *    request's hops ("hop -> block2", "hop -> client": from the send to the
 *    delivery, network transfers included);
 *  - metadata naming every process.
 * Bounded so that a long run stays small: only requests created inside the
 * window [from_s, to_s] whose id is a multiple of `every`, life-cycle events
 * inside the window, and at most max_events events in all (then a final
 * instant event says how many were left out).
 *
 * Writing changes nothing in the run: the hooks only read. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "core/afile.h"
#include "serve/serve.h"
#include "serve/world.h"

struct ss_timeline {
    FILE *fp;
    ss_timeline_opts o;
    uint32_t pid;        /* this world's requests process; devices follow */
    uint64_t written, skipped;
};

void ss_timeline_begin(FILE *fp) { fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n", fp); }

void ss_timeline_end(FILE *fp)
{
    /* A last metadata event, so every event before it ends with a comma. */
    fputs("{\"ph\":\"M\",\"pid\":0,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"servesim\"}}\n]}\n", fp);
}

/* Room for k more events under max_events? */
static int room(ss_timeline *t, uint64_t k)
{
    if (t->written + k <= t->o.max_events) {
        t->written += k;
        return 1;
    }
    t->skipped += k;
    return 0;
}

static void json_str(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(fp, "\\%c", c);
        else if (c < 0x20) fprintf(fp, "\\u%04x", c);
        else fputc(c, fp);
    }
    fputc('"', fp);
}

static void meta(ss_timeline *t, uint32_t pid, const char *what, const char *name)
{
    fprintf(t->fp, "{\"ph\":\"M\",\"pid\":%" PRIu32 ",\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":", pid);
    char *full = ss_xasprintf("%s: %s", what, name);
    json_str(t->fp, full);
    free(full);
    fputs("}},\n", t->fp);
}

uint32_t ss_world_timeline(ss_world *w, FILE *fp, const ss_timeline_opts *o, uint32_t first_pid)
{
    const ss_scenario *sc = w->sc;
    ss_timeline *t = ss_xcalloc(1, sizeof *t);
    t->fp = fp;
    t->o = *o;
    if (t->o.every == 0) t->o.every = 1;
    t->pid = first_pid;
    w->tl = t;
    char *what = ss_xasprintf("%s rep %u", sc->variant[0] ? sc->variant : sc->name, w->rep);
    meta(t, t->pid, what, "requests");
    for (size_t d = 0; d < sc->ndevices; d++) meta(t, t->pid + 1 + (uint32_t)d, what, sc->devices[d].name);
    free(what);
    /* The plain serving path has no hooks: every instance takes the general one. */
    for (size_t i = 0; i < w->ninst; i++) w->inst[i]->plain = 0;
    for (size_t m = 0; m < sc->nmodels; m++) w->groups[m].solo = NULL;
    return first_pid + 1 + (uint32_t)sc->ndevices;
}

void ss_timeline_free(ss_world *w)
{
    ss_timeline *t = w->tl;
    if (!t) return;
    if (t->skipped)
        fprintf(t->fp,
                "{\"ph\":\"i\",\"s\":\"g\",\"pid\":%" PRIu32 ",\"tid\":0,\"ts\":0,\"name\":\"%" PRIu64
                " events left out (max_events)\"},\n",
                t->pid, t->skipped);
    free(t);
    w->tl = NULL;
}

int ss_tl_sampled(const ss_world *w, const ss_request *r)
{
    const ss_timeline *t = w->tl;
    return r->id % t->o.every == 0 && r->created_s >= t->o.from_s && r->created_s <= t->o.to_s;
}

/* An async slice [from_s, to_s] (b and e events) on process pid. */
static void slice(ss_timeline *t, uint32_t pid, const char *cat, const char *name, uint64_t id, double from_s,
                  double to_s, const char *args)
{
    if (!room(t, 2)) return;
    FILE *fp = t->fp;
    fprintf(fp, "{\"ph\":\"b\",\"cat\":\"%s\",\"name\":", cat);
    json_str(fp, name);
    fprintf(fp, ",\"id\":\"%" PRIu32 ".%" PRIu64 "\",\"pid\":%" PRIu32 ",\"tid\":0,\"ts\":%.3f%s%s%s},\n", t->pid, id,
            pid, from_s * 1e6, args ? ",\"args\":{" : "", args ? args : "", args ? "}" : "");
    fprintf(fp, "{\"ph\":\"e\",\"cat\":\"%s\",\"name\":", cat);
    json_str(fp, name);
    fprintf(fp, ",\"id\":\"%" PRIu32 ".%" PRIu64 "\",\"pid\":%" PRIu32 ",\"tid\":0,\"ts\":%.3f},\n", t->pid, id, pid,
            to_s * 1e6);
}

void ss_tl_wait(ss_world *w, const ss_instance *in, const ss_request *r, double now)
{
    if (!ss_tl_sampled(w, r) || now <= r->enqueued_s) return;
    char *name = ss_xasprintf("queue %s", w->sc->models[in->model].name);
    slice(w->tl, w->tl->pid, "request", name, r->id, r->enqueued_s, now, NULL);
    free(name);
}

void ss_tl_service(ss_world *w, const ss_instance *in, const ss_request *r, double now, const char *how)
{
    if (!ss_tl_sampled(w, r)) return;
    ss_timeline *t = w->tl;
    const char *model = w->sc->models[in->model].name;
    char *name = ss_xasprintf("service %s", model);
    char *args = ss_xasprintf("\"request\":%" PRIu64 ",\"instance\":%u,\"ended\":\"%s\"", r->id, in->index, how);
    slice(t, t->pid, "request", name, r->id, r->started_s, now, args);
    slice(t, t->pid + 1 + in->device, "service", model, r->id, r->started_s, now, args);
    free(args);
    free(name);
}

void ss_tl_request(ss_world *w, const ss_request *r, const char *outcome)
{
    if (!ss_tl_sampled(w, r)) return;
    char *args = ss_xasprintf("\"request\":%" PRIu64 ",\"workload\":\"%s\",\"task\":\"%s\",\"outcome\":\"%s\"", r->id,
                              w->sc->workloads[r->workload].name, w->sc->tasks[r->task].name, outcome);
    slice(w->tl, w->tl->pid, "request", "request", r->id, r->created_s, ss_now(w->eng), args);
    free(args);
}

void ss_tl_span(ss_world *w, uint32_t device, const char *cat, const char *name, uint64_t id, double from_s,
                double to_s, const char *args)
{
    ss_timeline *t = w->tl;
    if (from_s < t->o.from_s || from_s > t->o.to_s) return;
    slice(t, t->pid + 1 + device, cat, name, id, from_s, to_s, args);
}

void ss_tl_request_span(ss_world *w, const ss_request *r, const char *name, double from_s, double to_s)
{
    if (!ss_tl_sampled(w, r)) return;
    slice(w->tl, w->tl->pid, "request", name, r->id, from_s, to_s, NULL);
}

void ss_tl_note(ss_world *w, const char *what)
{
    ss_timeline *t = w->tl;
    double now = ss_now(w->eng);
    if (now < t->o.from_s || now > t->o.to_s || !room(t, 1)) return;
    fprintf(t->fp, "{\"ph\":\"i\",\"s\":\"p\",\"pid\":%" PRIu32 ",\"tid\":0,\"ts\":%.3f,\"name\":", t->pid, now * 1e6);
    json_str(t->fp, what);
    fputs("},\n", t->fp);
}

/* An instant event on a device's process. */
void ss_tl_mark(ss_world *w, uint32_t device, const char *what)
{
    ss_timeline *t = w->tl;
    double now = ss_now(w->eng);
    if (now < t->o.from_s || now > t->o.to_s || !room(t, 1)) return;
    fprintf(t->fp, "{\"ph\":\"i\",\"s\":\"p\",\"pid\":%" PRIu32 ",\"tid\":0,\"ts\":%.3f,\"name\":", t->pid + 1 + device,
            now * 1e6);
    json_str(t->fp, what);
    fputs("},\n", t->fp);
}
