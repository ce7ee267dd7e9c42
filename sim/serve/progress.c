/* progress.c: the progress line of a long `run` on a terminal (issue 12
 * item 14): how far the replication is (simulated time against duration_s,
 * or requests created against `requests`), requests per second and the time
 * left, rewritten in place at most twice a second.  A background event
 * (serve.h, w->daemons) that reads the world and changes nothing, so a run
 * with the line gives the same results; main.c asks for it only when
 * stderr is a terminal. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "serve/serve.h"
#include "serve/world.h"

typedef struct ss_progress {
    ss_world *w;
    FILE *fp;
    const char *label;
    double step_s, t0, last;
} ss_progress;

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void tick(ss_engine *eng, void *ctx, uint64_t arg)
{
    (void)arg;
    ss_progress *p = ctx;
    ss_world *w = p->w;
    const ss_scenario *sc = w->sc;
    w->daemons--;
    double now = wall_now();
    if (now - p->last >= 0.5) {
        double done = isfinite(sc->duration_s) ? ss_now(eng) / sc->duration_s
                      : sc->max_requests != UINT64_MAX ? (double)w->generated / (double)sc->max_requests
                                                       : NAN;
        if (done > 1) done = 1;
        /* (the engine counts its events at the end of a run: requests it is) */
        double el = now - p->t0, rps = el > 0 ? (double)w->generated / el : 0;
        fprintf(p->fp, "\r%s: %5.1f%% (t = %.1f s), %.2f M requests/s", p->label, 100 * done, ss_now(eng), rps / 1e6);
        if (done > 0 && done < 1) fprintf(p->fp, ", about %.0f s left", el * (1 - done) / done);
        fputs("   ", p->fp);
        fflush(p->fp);
        p->last = now;
    }
    if (ss_world_active(w)) {
        ss_schedule_in(eng, p->step_s, tick, p, 0);
        w->daemons++;
    }
}

void *ss_world_progress(ss_world *w, FILE *fp, const char *label)
{
    const ss_scenario *sc = w->sc;
    ss_progress *p = ss_xcalloc(1, sizeof *p);
    p->w = w;
    p->fp = fp;
    p->label = label;
    /* About a thousand looks over the run: they cost nothing when the line is not due. */
    p->step_s = isfinite(sc->duration_s) ? sc->duration_s / 1000 : 1.0;
    if (!(p->step_s > 0)) p->step_s = 1.0;
    p->t0 = p->last = wall_now();
    ss_schedule(w->eng, p->step_s, tick, p, 0);
    w->daemons++;
    return p;
}

void ss_world_progress_end(void *progress)
{
    ss_progress *p = progress;
    if (!p) return;
    fputs("\r\033[K", p->fp); /* clear the line: the table follows */
    fflush(p->fp);
    free(p);
}
