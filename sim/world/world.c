/* world.c: a runnable world from a scenario - the substrate (sim/serve)
 * and, for their scenarios, the systems above it: cold starts, placement,
 * partitioned replicas and the autoscaler (sim/elastic), controllers
 * (sim/control), a block pipeline (sim/pipeline), an edge device
 * (sim/edge) or an ensemble (sim/ensemble) - built in order, run for one
 * replication, checked, summarised and freed.  The one file that names
 * every system: the systems never name each other or this file, and the
 * substrate reaches them only through the hooks they set (serve/serve.h). */
#include "world/world.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "control/control.h"
#include "core/engine.h"
#include "core/util.h"
#include "edge/edge_world.h"
#include "elastic/elastic.h"
#include "ensemble/ensemble.h"
#include "llm/llm_serve.h"
#include "llm/llm_world.h"
#include "pipeline/pipeline.h"
#include "serve/substrate.h"

ss_world *ss_world_build(const ss_scenario *sc, uint32_t rep, FILE *req_csv, ss_err *err)
{
    ss_world *w = ss_sub_new(sc, rep, req_csv);
    if (sc->edge) { /* an edge-device scenario: edge_world.c runs it on this engine */
        w->edge = ss_edge_world_build(w, err);
        if (!w->edge) goto fail;
        return w;
    }
    if (sc->llm) { /* an LLM-serving scenario: llm_world.c runs it on this engine */
        w->llm = ss_llm_world_build(w, err);
        if (!w->llm) goto fail;
        return w;
    }
    if (sc->ensemble) { /* an ensemble scenario: ensemble.c runs it on this engine */
        w->ens = ss_ens_world_build(w, err);
        if (!w->ens) goto fail;
        return w;
    }
    if (ss_sub_policies(w, err) < 0) goto fail;
    if (sc->placement && ss_cs_build(w, err) < 0) goto fail; /* before any instance: it counts them */
    ss_sub_instances(w);
    if (ss_llm_serve_wanted(sc) && !ss_llm_serve_build(w, err)) goto fail; /* before any request */
    if (sc->control && ss_control_build(w, err) < 0) goto fail; /* before they come up: gates take their executables */
    ss_sub_up(w);
    if (sc->pipeline && ss_pipe_build(w, err) < 0) goto fail;
    w->clear_cb |= w->pipe != NULL; /* a block pipeline's hop state lives in its requests' cb[] */
    ss_sub_declare(w);
    if (w->cs) ss_cs_declare(w);
    if (w->ctl) ss_control_declare(w);
    if (w->llms) ss_llm_serve_declare(w);
    ss_sub_start(w);
    if (sc->autoscale && ss_autoscaler_build(w, err) < 0) goto fail;
    return w;
fail:
    ss_world_free(w);
    return NULL;
}

/* Record the first broken invariant (msg may be NULL: nothing broke). */
static const char *broke(ss_world *w, char *msg)
{
    if (!msg) return NULL;
    if (!w->broken) w->broken = msg;
    else free(msg);
    return w->broken;
}

const char *ss_world_check(ss_world *w)
{
    free(w->broken);
    w->broken = NULL;
    char *m = ss_sub_check_calendar(w);
    if (m) return broke(w, m);
    if (w->edge) return broke(w, ss_edge_world_check(w->edge));
    if (w->ens) return broke(w, ss_ens_world_check(w->ens));
    if (w->llm) return broke(w, ss_llm_world_check(w->llm));
    if ((m = ss_sub_check_serving(w)) != NULL) return broke(w, m);
    if (w->pipe && (m = ss_pipe_check(w)) != NULL) return broke(w, m);
    if (w->cs && (m = ss_cs_check(w)) != NULL) return broke(w, m);
    if (w->llms && (m = ss_llm_serve_check(w->llms)) != NULL) return broke(w, m);
    return NULL;
}

const char *ss_world_broken(const ss_world *w) { return w->broken; }

void ss_world_run(ss_world *w)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    ss_engine_run(w->eng, INFINITY);
    clock_gettime(CLOCK_MONOTONIC, &b);
    w->wall_s = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
    ss_world_check(w);
}

void ss_world_result(const ss_world *w, ss_run_result *r)
{
    ss_sub_result_head(w, r);
    if (w->edge) {
        ss_edge_world_result(w->edge, r);
        return;
    }
    if (w->ens) {
        ss_ens_world_result(w->ens, r);
        return;
    }
    if (w->llm) {
        ss_llm_world_result(w->llm, r);
        return;
    }
    ss_sub_result_rows(w, r);
    if (w->pipe) ss_pipe_result(w, r);
    ss_sub_result_life(w, r);
    if (w->cs) ss_cs_result(w, r);
    if (w->ctl) ss_control_result(w, r);
    if (w->llms) ss_llm_serve_result(w->llms, r);
}

void ss_world_free(ss_world *w)
{
    if (!w) return;
    ss_edge_world_free(w->edge);
    ss_ens_world_free(w->ens);
    ss_llm_world_free(w->llm);
    ss_llm_serve_free(w->llms);
    ss_timeline_free(w);
    ss_autoscaler_free(w);
    ss_cs_free(w);
    ss_control_free(w);
    ss_sub_free_serving(w);
    ss_pipe_free(w);
    ss_sub_free_rest(w);
}
