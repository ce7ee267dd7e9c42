/* calibrate.c: profile samples grouped, fitted (core/fit.h) and written as one
 * model file with the provenance of every number (calibrate.h).  The --base
 * output is calibrate_base.c's, the --model-profile one calibrate_model.c's.  Groups keep
 * the order in which their first sample appears (file by file, sample by
 * sample), so the output is the same bytes on every run. */
#include "calib/calib_common.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/cfg.h"
#include "core/fit.h"

/* The compute piece, device and threads of a sample, as one key ("\x1f" cannot
 * occur in a name a person writes). */
static char *piece_key(const ss_hwp_sample *s)
{
    return ss_xasprintf("%s\x1f%s\x1f%s\x1f%s\x1f%u", s->model, ss_cal_piece_word(s->piece_kind), s->piece ? s->piece : "",
                        s->device, s->threads);
}

/* ---- summaries of published tables ----------------------------------------- */

/* A group pools raw observations or summaries, not both: 0, or -1 at the
 * first sample of the other form. */
static int check_forms(const groups *gs, ss_err *err)
{
    for (size_t i = 0; i < gs->n; i++)
        for (size_t k = 1; k < gs->g[i].nrefs; k++) {
            const ss_hwp_sample *s = ss_cal_sample_of(&gs->g[i].refs[k]);
            if (s->summary != gs->g[i].summary)
                return ss_err_at(err, gs->g[i].refs[k].prof->path, s->line, s->col,
                                 "this sample is %s, but the first of its group (line %d) is %s: a fit pools raw "
                                 "observations or published summaries, not both",
                                 s->summary ? "a summary" : "raw observations", ss_cal_sample_of(&gs->g[i].refs[0])->line,
                                 gs->g[i].summary ? "a summary" : "raw observations");
        }
    return 0;
}

/* A group pools the observations of one micro_mode (tools/probe/micro.py: warm
 * or pipeline timing of the same piece are different measurements, not one
 * sample): 0, or -1 at the first sample whose mode differs from the group's
 * first (a sample that does not say counts as its own mode). */
static int check_modes(const groups *gs, ss_err *err)
{
    for (size_t i = 0; i < gs->n; i++)
        for (size_t k = 1; k < gs->g[i].nrefs; k++) {
            const ss_hwp_sample *s = ss_cal_sample_of(&gs->g[i].refs[k]), *s0 = ss_cal_sample_of(&gs->g[i].refs[0]);
            if (s->micro_mode != s0->micro_mode) {
                const char *m = ss_hwp_micro_mode_name(s->micro_mode), *m0 = ss_hwp_micro_mode_name(s0->micro_mode);
                return ss_err_at(err, gs->g[i].refs[k].prof->path, s->line, s->col,
                                 "micro_mode: this sample's is %s%s%s, but the first of its group's (%s line %d) is "
                                 "%s%s%s: a fit pools observations timed one way (calibrate the modes separately)",
                                 m ? "'" : "", m ? m : "not said", m ? "'" : "", gs->g[i].refs[0].prof->path, s0->line,
                                 m0 ? "'" : "", m0 ? m0 : "not said", m0 ? "'" : "");
            }
        }
    return 0;
}

/* A group pools the samples of one machine (environment.machine and
 * cpu_model): 0, or -1 at the first sample of another machine than its
 * group's first. */
static int check_machines(const groups *gs, ss_err *err)
{
    for (size_t i = 0; i < gs->n; i++)
        for (size_t k = 1; k < gs->g[i].nrefs; k++) {
            const ss_hwprofile *p = gs->g[i].refs[k].prof, *p0 = gs->g[i].refs[0].prof;
            if (ss_same_str(p->machine, p0->machine) && ss_same_str(p->cpu_model, p0->cpu_model)) continue;
            const ss_hwp_sample *s = ss_cal_sample_of(&gs->g[i].refs[k]), *s0 = ss_cal_sample_of(&gs->g[i].refs[0]);
            return ss_err_at(err, p->path, s->line, s->col,
                             "this sample's machine is '%s' (cpu '%s'), but the first of its group's (%s line %d) is "
                             "'%s' (cpu '%s'): a fit pools one machine's measurements (calibrate each machine's "
                             "profiles apart)",
                             p->machine ? p->machine : "", p->cpu_model ? p->cpu_model : "", p0->path, s0->line,
                             p0->machine ? p0->machine : "", p0->cpu_model ? p0->cpu_model : "");
        }
    return 0;
}

/* The law through a summary group's points (ss_fit_affine_points). */
static int fit_points(const group *g, ss_affine_fit *f)
{
    double *w = ss_xcalloc(g->n + 1, sizeof *w);
    int absolute = 1;
    for (size_t i = 0; i < g->nrefs; i++) {
        const ss_hwp_sample *s = ss_cal_sample_of(&g->refs[i]);
        if (!(s->sd_s > 0)) absolute = 0;
    }
    for (size_t i = 0; i < g->nrefs; i++) {
        const ss_hwp_sample *s = ss_cal_sample_of(&g->refs[i]);
        double n = s->n_obs ? s->n_obs : 1;
        w[i] = absolute ? n / (s->sd_s * s->sd_s) : n;
    }
    int rc = ss_fit_affine_points(g->x, g->y, w, g->n, absolute, f);
    free(w);
    return rc;
}

/* ---- the whole calibration ------------------------------------------------- */

static const char *const term_word[] = {"hop", "rtt", "block"};


static void collect(calib *c, ss_hwprofile *const *profs, size_t nprofs)
{
    for (size_t f = 0; f < nprofs; f++)
        for (size_t i = 0; i < profs[f]->nsamples; i++) {
            const ss_hwp_sample *s = &profs[f]->samples[i];
            char *k = NULL, *k2 = NULL;
            switch (s->kind) {
            case SS_HWP_COMPUTE:
                k = piece_key(s);
                k2 = ss_xasprintf("%s\x1f%u", k, s->batch);
                ss_cal_add(&c->laws, k, profs[f], i, s->batch);
                ss_cal_add(&c->dists, k2, profs[f], i, s->batch);
                break;
            case SS_HWP_TRANSPORT: /* "zmq-copy", "http (rtt)", "overhead (block)" */
                k = ss_xasprintf("%s%s%s%s", s->law ? s->law : s->transport, s->term ? " (" : "",
                                 s->term ? term_word[s->term] : "", s->term ? ")" : "");
                ss_cal_add(&c->transports, k, profs[f], i, s->bytes);
                break;
            case SS_HWP_MEMCPY: ss_cal_add(&c->memcpys, s->path ? s->path : "memcpy", profs[f], i, s->bytes); break;
            case SS_HWP_MEMORY:
                k = ss_xasprintf("%s\x1f%s", s->what, s->device);
                ss_cal_add(&c->memory, k, profs[f], i, s->bytes);
                break;
            case SS_HWP_COLDSTART:
                k = ss_xasprintf("%s\x1f%s\x1f%s", s->model, s->stage, s->piece ? s->piece : "");
                ss_cal_add(&c->colds, k, profs[f], i, 0);
                break;
            case SS_HWP_STACKING:
                k = ss_xasprintf("%u cores", s->cores);
                ss_cal_add(&c->stacks, k, profs[f], i, s->runnable);
                break;
            case SS_HWP_SPEED: break; /* ss_cal_speed's, before this */
            case SS_HWP_WAKE: break;  /* ss_cal_wake's, after the stacking */
            case SS_HWP_CORUN: break; /* ss_cal_interference's, after the wake */
            case SS_HWP_TRANSFER: break; /* ss_cal_transfer's, last */
            case SS_HWP_MEMSHARE: break; /* ss_cal_memshare's, after the interference */
            case SS_HWP_RESIDENT: break; /* ss_cal_resident's, last */
            }
            free(k);
            free(k2);
        }
}

/* Every compute piece's latency-vs-batch law (into compute_laws); *fits[i]
 * is law i's fit, or n = 0 where none was fitted (--no-batch-law). */
static int compute_laws(calib *c, ss_affine_fit *fits, ss_err *err)
{
    cJSON *arr = cJSON_AddArrayToObject(c->root, "compute_laws");
    for (size_t i = 0; i < c->laws.n; i++) {
        const group *g = &c->laws.g[i];
        const ss_hwp_sample *s = ss_cal_sample_of(&g->refs[0]);
        if ((g->summary ? fit_points(g, &fits[i]) : ss_fit_affine(g->x, g->y, g->n, &fits[i])) < 0) {
            if (fits[i].ndistinct_x < 2 && c->o->no_batch_law) {
                fits[i].n = 0;
                continue;
            }
            char *w = ss_cal_piece_words(s);
            int rc = ss_cal_group_err(g, err,
                               "latency of %s: fewer samples than parameters: the affine law fixed_s + "
                               "per_sample_s x batch needs at least two batch sizes and %s, got %zu "
                               "batch size%s and %zu %s%s (--no-batch-law skips pieces of one batch size)",
                               w, g->summary ? "two published means" : "three observations", fits[i].ndistinct_x,
                               fits[i].ndistinct_x == 1 ? "" : "s", g->n, g->summary ? "mean" : "observation",
                               g->n == 1 ? "" : "s");
            free(w);
            return rc;
        }
        cJSON *l = ss_cal_law_json("latency_s = fixed_s + per_sample_s x batch", "batch", "fixed_s", "per_sample_s",
                            &fits[i], g);
        cJSON *head = cJSON_CreateObject();
        cJSON_AddStringToObject(head, "model", s->model);
        if (s->piece) cJSON_AddStringToObject(head, ss_cal_piece_word(s->piece_kind), s->piece);
        cJSON_AddStringToObject(head, "device", s->device);
        cJSON_AddNumberToObject(head, "threads", s->threads);
        for (cJSON *it = l->child; it;) { /* the law's fields after the piece's */
            cJSON *next = it->next;
            cJSON_AddItemToObject(head, it->string, cJSON_DetachItemViaPointer(l, it));
            it = next;
        }
        cJSON_Delete(l);
        cJSON_AddItemToArray(arr, head);
        char *w = ss_cal_piece_words(s);
        fprintf(c->sum, "  %s: %.6g + %.6g x batch s (95%%: +-%.2g, +-%.2g), R2 %.4f, n %zu\n", w, fits[i].intercept,
                fits[i].slope, fits[i].intercept_ci95, fits[i].slope_ci95, fits[i].r2, fits[i].n);
        free(w);
    }
    return 0;
}


static tparam *tparam_for(calib *c, const char *name)
{
    for (size_t i = 0; i < c->ntp; i++)
        if (strcmp(c->tp[i].name, name) == 0) return &c->tp[i];
    c->tp = ss_xrealloc(c->tp, (c->ntp + 1) * sizeof *c->tp);
    tparam *t = &c->tp[c->ntp++];
    memset(t, 0, sizeof *t);
    t->name = name;
    return t;
}


/* The law's values into the parameters of each transport sampled in it:
 * hop: delivery = fixed_s + s_per_byte x bytes; rtt: delivery fixed = fixed_s / 2
 * (the fixed part is paid both ways, the bytes one way); block: block_fixed_s =
 * fixed_s / blocks, block_in and block_out per byte = s_per_byte.  A transport
 * whose samples in the law are all at 0 bytes (it moves no tensor: a handle)
 * gets per-byte 0.  A value below 0 (noise about 0) is written as 0: the
 * plugins refuse negative costs. */
static int apply_law(calib *c, const group *g, const ss_affine_fit *f, ss_err *err)
{
    const ss_hwp_sample *s0 = ss_cal_sample_of(&g->refs[0]);
    for (size_t i = 0; i < g->nrefs; i++) {
        const ss_hwp_sample *s = ss_cal_sample_of(&g->refs[i]);
        if (s->blocks != s0->blocks)
            return ss_err_at(err, g->refs[i].prof->path, s->line, s->col,
                             "blocks: %u, but the first sample of law '%s' (line %d) sums %u: one law, one count",
                             s->blocks, g->key, s0->line, s0->blocks);
        tparam *t = tparam_for(c, s->transport);
        int zero = 1;
        for (size_t k = 0; k < g->nrefs; k++) {
            const ss_hwp_sample *o = ss_cal_sample_of(&g->refs[k]);
            if (strcmp(o->transport, s->transport) == 0 && o->bytes > 0) zero = 0;
        }
        double fixed = s0->term == 1 ? f->intercept / 2 : s0->term == 2 ? f->intercept / s0->blocks : f->intercept;
        double per = zero ? 0 : f->slope;
        int lo = s0->term == 2 ? 0 : 3, hi = s0->term == 2 ? 3 : 5;
        for (int k = lo; k < hi; k++) {
            if (t->law[k] && strcmp(t->law[k], g->key) != 0)
                return ss_err_at(err, g->refs[i].prof->path, s->line, s->col,
                                 "transport '%s': its %s comes from two laws ('%s' and '%s')", s->transport,
                                 ss_cal_tfield[k], t->law[k], g->key);
            t->law[k] = g->key;
            t->v[k] = k == lo ? fixed : per;
            if (t->v[k] < 0) t->v[k] = 0;
            t->how[k] = k == lo ? (s0->term == 1   ? "fixed_s / 2 (a round trip: the fixed part both ways)"
                                   : s0->term == 2 ? "fixed_s / blocks (the time summed over that many blocks)"
                                                   : "fixed_s")
                                : zero ? "0 (measured only without a tensor)"
                                       : "s_per_byte";
        }
    }
    return 0;
}

/* A hop whose every observation also has the sender's and the receiver's
 * time (the probe's micro-benchmark: sender_s, receiver_s) is split three
 * ways, each affine in the bytes, each with its intervals, under
 * transport_fits.T.parts: the sender's main-thread work (its send call: the
 * pickle or the copy into the slot), the receiver's (its decode after ZeroMQ
 * handed it the message), and the delivery, fitted on what is left of each
 * observation (hop - sender - receiver, the same message).  The transport's
 * parameters become: block_out_s_per_byte and block_in_s_per_byte the two
 * slopes; block_fixed_s the two intercepts summed (the affine model has no
 * fixed sender term: one main thread receives a message and sends the next,
 * so the sender's fixed cost is paid with the receive, on the same thread);
 * delivery_* the remainder's law.  Each value below 0 is written as 0.
 * 0: split (t's parameters set); 1: not every observation has both parts
 * (the whole hop stays delivery). */
static const char *const split_how[5] = {
    ("parts.receiver.fixed_s + parts.sender.fixed_s (one main thread receives a message and sends the next: the "
     "sender's fixed cost is paid with the receive)"),
    "parts.receiver.s_per_byte", "parts.sender.s_per_byte",
    "parts.delivery.fixed_s (the hop less the sender's and the receiver's time, observation by observation)",
    "parts.delivery.s_per_byte"};

static int split_hop(calib *c, const group *g, cJSON *law)
{
    const ss_hwp_sample *s0 = ss_cal_sample_of(&g->refs[0]);
    if (g->summary || s0->term != 0 || s0->law) return 1;
    for (size_t i = 0; i < g->nrefs; i++) {
        const ss_hwp_sample *s = ss_cal_sample_of(&g->refs[i]);
        if (!s->sender_s || !s->receiver_s || s->nsender != s->ntimes || s->nreceiver != s->ntimes) return 1;
    }
    double *y[3];
    for (int k = 0; k < 3; k++) y[k] = ss_xcalloc(g->n + 1, sizeof *y[k]);
    size_t n = 0;
    for (size_t i = 0; i < g->nrefs; i++) { /* the same order as ss_cal_add() pooled them */
        const ss_hwp_sample *s = ss_cal_sample_of(&g->refs[i]);
        for (size_t k = 0; k < s->ntimes; k++, n++) {
            y[0][n] = s->sender_s[k];
            y[1][n] = s->receiver_s[k];
            y[2][n] = s->times_s[k] - s->sender_s[k] - s->receiver_s[k];
        }
    }
    static const char *const part[3] = {"sender", "receiver", "delivery"};
    static const char *const what[3] = {
        "sender_s = fixed_s + s_per_byte x bytes", "receiver_s = fixed_s + s_per_byte x bytes",
        "latency_s - sender_s - receiver_s = fixed_s + s_per_byte x bytes"};
    ss_affine_fit f[3];
    int rc = 0;
    for (int k = 0; k < 3 && rc == 0; k++)
        if (ss_fit_affine(g->x, y[k], n, &f[k]) < 0) rc = 1;
    for (int k = 0; k < 3; k++) free(y[k]);
    if (rc) return 1;
    cJSON *parts = cJSON_AddObjectToObject(law, "parts");
    cJSON_AddStringToObject(parts, "rule",
                            "each observation's hop split into the sender's time (main thread), the receiver's "
                            "(main thread) and the rest (delivery: hop - sender - receiver of the same message), "
                            "each fitted affine in the bytes");
    for (int k = 0; k < 3; k++) {
        cJSON *l = ss_cal_law_json(what[k], "bytes", "fixed_s", "s_per_byte", &f[k], g);
        cJSON_DeleteItemFromObjectCaseSensitive(l, "from"); /* the hop's, above */
        cJSON_AddItemToObject(parts, part[k], l);
        fprintf(c->sum, "    %s: %.6g s + %.6g s/B, R2 %.4f\n", part[k], f[k].intercept, f[k].slope, f[k].r2);
    }
    tparam *t = tparam_for(c, s0->transport);
    double v[5] = {fmax(f[1].intercept, 0) + fmax(f[0].intercept, 0), f[1].slope, f[0].slope, f[2].intercept,
                   f[2].slope};
    for (int k = 0; k < 5; k++) {
        t->v[k] = v[k] < 0 ? 0 : v[k];
        t->law[k] = g->key;
        t->how[k] = split_how[k];
    }
    return 0;
}

/* Hop cost vs bytes per law (transport_fits), and the affine parameters the
 * transport plugins read (transports; policies/transport_affine.h). */
static int transport_laws(calib *c, ss_err *err)
{
    cJSON *fits = cJSON_AddObjectToObject(c->root, "transport_fits");
    cJSON *ts = cJSON_AddObjectToObject(c->root, "transports");
    for (size_t i = 0; i < c->transports.n + c->memcpys.n; i++) {
        int is_t = i < c->transports.n;
        const group *g = is_t ? &c->transports.g[i] : &c->memcpys.g[i - c->transports.n];
        const char *name = g->key; /* a transport or law; "memcpy", or a GPU copy's path */
        const ss_hwp_sample *s0 = ss_cal_sample_of(&g->refs[0]);
        ss_affine_fit f;
        if ((g->summary ? fit_points(g, &f) : ss_fit_affine(g->x, g->y, g->n, &f)) < 0)
            return ss_cal_group_err(g, err,
                             "%s%s%s: fewer samples than parameters: the affine cost fixed_s + s_per_byte x bytes "
                             "needs at least two message sizes and %s, got %zu size%s and %zu %s%s",
                             is_t ? (s0->law ? "law '" : "transport '") : "", name, is_t ? "'" : "",
                             g->summary ? "two published means" : "three observations", f.ndistinct_x,
                             f.ndistinct_x == 1 ? "" : "s", g->n, g->summary ? "mean" : "observation",
                             g->n == 1 ? "" : "s");
        cJSON *l = ss_cal_law_json("latency_s = fixed_s + s_per_byte x bytes", "bytes", "fixed_s", "s_per_byte", &f, g);
        ss_cal_put_num(l, "bytes_per_s", f.slope > 0 ? 1 / f.slope : NAN);
        fprintf(c->sum, "  %s: %.6g s + %.6g s/B (%.4g MB/s), R2 %.4f, n %zu\n", name, f.intercept, f.slope,
                f.slope > 0 ? 1e-6 / f.slope : 0, f.r2, f.n);
        if (!is_t) { /* the host's memcpy at the top, GPU copies by path under memcpy_paths */
            if (strcmp(name, "memcpy") == 0) {
                cJSON_AddItemToObject(c->root, "memcpy", l);
            } else {
                cJSON *paths = cJSON_GetObjectItemCaseSensitive(c->root, "memcpy_paths");
                if (!paths) paths = cJSON_AddObjectToObject(c->root, "memcpy_paths");
                cJSON_AddItemToObject(paths, name, l);
            }
            continue;
        }
        if (s0->term || s0->law) {
            cJSON_AddStringToObject(l, "term", term_word[s0->term]);
            cJSON_AddNumberToObject(l, "blocks", s0->blocks);
        }
        cJSON_AddItemToObject(fits, name, l);
        TRY(apply_law(c, g, &f, err));
        split_hop(c, g, l);
    }
    for (size_t i = 0; i < c->ntp; i++) {
        const tparam *tp = &c->tp[i];
        cJSON *t = cJSON_AddObjectToObject(ts, tp->name);
        for (int k = 0; k < 5; k++) ss_cal_put_num(t, ss_cal_tfield[k], tp->law[k] ? tp->v[k] : 0);
        char *src;
        if (!tp->law[0] && tp->law[3] && strcmp(tp->law[3], tp->name) == 0 && strcmp(tp->how[4], "s_per_byte") == 0) {
            src = ss_xasprintf("servesim calibrate: the measured hop (send to tensor received) as delivery, "
                               "delivery_fixed_s = fixed_s and delivery_s_per_byte = s_per_byte of "
                               "transport_fits.%s (a negative fitted value written as 0); block_* = 0: the "
                               "measurement does not split main-thread work from time in flight",
                               tp->name);
        } else {
            char *buf = NULL;
            size_t len;
            FILE *fp = ss_xmemstream(&buf, &len);
            fputs("servesim calibrate (a negative fitted value written as 0):", fp);
            for (int k = 0; k < 5; k++) {
                if (tp->law[k]) fprintf(fp, " %s = %s of transport_fits.%s;", ss_cal_tfield[k], tp->how[k], tp->law[k]);
                else fprintf(fp, " %s = 0 (no law gives it);", ss_cal_tfield[k]);
            }
            fclose(fp);
            buf[strlen(buf) - 1] = '\0';
            src = buf;
        }
        cJSON_AddStringToObject(t, "source", src);
        free(src);
    }
    return 0;
}

/* The memory reading of `what` in MiB: on a GPU (gpu=1) or on the CPU (gpu=0); -1 if none. */
/* ---- blocks: the split-profile view ---------------------------------------- */

static double memory_mib(const calib *c, const char *what, int gpu)
{
    for (size_t i = 0; i < c->memory.n; i++) {
        const ss_hwp_sample *s = ss_cal_sample_of(&c->memory.g[i].refs[0]);
        if (strcmp(s->what, what) == 0 && (strcmp(s->device, "cpu") != 0) == gpu) return s->bytes / 1048576.0;
    }
    return -1;
}

/* The tensor bytes per sample of a distribution group: the first of its
 * samples that gives them, divided by the batch; -1 if none does. */
static double bytes_per_sample(const group *g, int out)
{
    for (size_t i = 0; i < g->nrefs; i++) {
        const ss_hwp_sample *s = ss_cal_sample_of(&g->refs[i]);
        double b = out ? s->out_bytes : s->in_bytes;
        if (b >= 0) return b / s->batch;
    }
    return -1;
}

static int blocks(calib *c, const ss_dist_fits *dfits, const ss_affine_fit *lfits, ss_err *err)
{
    const char *model = NULL;
    int has;
    TRY(has = ss_cal_pick_model(c, &model, err));
    cJSON *arr = cJSON_AddArrayToObject(c->root, "blocks");
    double host_ram_mib = 0;
    size_t nblocks = 0;
    for (size_t i = 0; has && i < c->laws.n; i++) {
        const ss_hwp_sample *s = ss_cal_sample_of(&c->laws.g[i].refs[0]);
        if (!ss_cal_wanted_block(c, s, model) || ss_cal_pick_config(c, model, s->piece) != (long)i) continue;
        size_t d = ss_cal_smallest_batch(c, i);
        const group *dg = &c->dists.g[d];
        const ss_hwp_sample *ds = ss_cal_sample_of(&dg->refs[0]);
        cJSON *b = cJSON_CreateObject();
        cJSON_AddStringToObject(b, "name", s->piece);
        double in = bytes_per_sample(dg, 0), out = bytes_per_sample(dg, 1);
        ss_cal_put_num(b, "in_bytes_per_sample", in > 0 ? in : 0);
        ss_cal_put_num(b, "out_bytes_per_sample", out > 0 ? out : 0);
        cJSON_AddItemToObject(b, "service", ss_cal_service_json(&dfits[d], dg));
        if (lfits[i].n) {
            cJSON *law = cJSON_AddObjectToObject(b, "batch_law");
            ss_cal_put_num(law, "fixed_s", lfits[i].intercept);
            ss_cal_put_num(law, "per_sample_s", lfits[i].slope > 0 ? lfits[i].slope : 0);
        }
        double vram = memory_mib(c, s->piece, 1), ram = memory_mib(c, s->piece, 0);
        if (vram > 0) ss_cal_put_num(cJSON_AddObjectToObject(b, "vram"), "process_mib", vram);
        if (ram > host_ram_mib) host_ram_mib = ram;
        cJSON *prov = cJSON_AddObjectToObject(b, "calibration");
        cJSON_AddStringToObject(prov, "device", s->device);
        cJSON_AddNumberToObject(prov, "threads", s->threads);
        cJSON_AddNumberToObject(prov, "batch", ds->batch);
        ss_cal_put_mode(prov, dg);
        char *where = ss_xasprintf("distributions[%zu].service (%s, batch %u)", d,
                                   ss_fit_family_name(dfits[d].best), ds->batch);
        cJSON_AddStringToObject(prov, "service", where);
        free(where);
        if (lfits[i].n) {
            size_t li = 0;
            for (size_t k = 0; k < i; k++) li += lfits[k].n > 0;
            where = ss_xasprintf("compute_laws[%zu] (a negative per_sample_s written as 0)", li);
            cJSON_AddStringToObject(prov, "batch_law", where);
            free(where);
        } else {
            cJSON_AddStringToObject(prov, "batch_law", "none: one batch size measured (--no-batch-law)");
        }
        cJSON_AddStringToObject(prov, "bytes", in >= 0 && out >= 0 ? "in_bytes and out_bytes of the samples / batch"
                                                                   : "not measured (in_bytes/out_bytes absent): 0");
        if (ds->batch != 1) cJSON_AddStringToObject(prov, "note", "service measured at a batch above 1");
        cJSON_AddItemToArray(arr, b);
        nblocks++;
    }
    if (has && nblocks == 0)
        return ss_err_at(err, "servesim calibrate", 0, 0, "no block of %s is measured on %s%s with %s threads", model,
                         c->o->device ? "device " : "any device", c->o->device ? c->o->device : "",
                         c->o->threads ? "the chosen number of" : "any number of");
    cJSON *proc = cJSON_CreateObject();
    ss_cal_put_num(proc, "context_vram_mib", 0);
    ss_cal_put_num(proc, "host_ram_mib", host_ram_mib);
    cJSON_AddStringToObject(proc, "source",
                            "servesim calibrate: host_ram_mib = the largest memory reading of a block on device cpu "
                            "(0 if none); context_vram_mib = 0 (not measured)");
    cJSON_AddItemToObject(c->root, "process", proc);
    if (has) fprintf(c->sum, "blocks: %zu of %s\n", nblocks, model);
    return 0;
}

static void summaries(calib *c)
{
    cJSON *mem = cJSON_AddArrayToObject(c->root, "memory");
    for (size_t i = 0; i < c->memory.n; i++) {
        const group *g = &c->memory.g[i];
        const ss_hwp_sample *s = ss_cal_sample_of(&g->refs[0]);
        cJSON *m = cJSON_CreateObject();
        cJSON_AddStringToObject(m, "what", s->what);
        cJSON_AddStringToObject(m, "device", s->device);
        ss_cal_put_num(m, "bytes", s->bytes);
        ss_cal_put_num(m, "mib", s->bytes / 1048576.0);
        cJSON_AddStringToObject(m, "method", "the first reading (later ones listed in from)");
        cJSON_AddItemToObject(m, "from", ss_cal_refs_json(g));
        cJSON_AddItemToArray(mem, m);
    }
    cJSON *cold = cJSON_AddArrayToObject(c->root, "coldstart");
    for (size_t i = 0; i < c->colds.n; i++) {
        const group *g = &c->colds.g[i];
        const ss_hwp_sample *s = ss_cal_sample_of(&g->refs[0]);
        double mean = 0, var = 0, n = (double)g->n, sd;
        for (size_t k = 0; k < g->n; k++) mean += g->y[k];
        mean /= (double)g->n;
        for (size_t k = 0; k < g->n; k++) var += (g->y[k] - mean) * (g->y[k] - mean);
        sd = g->n > 1 ? sqrt(var / (double)(g->n - 1)) : NAN;
        if (g->summary) {
            moments pm = ss_cal_pooled(g);
            n = pm.n;
            mean = pm.mean;
            sd = pm.sd;
        }
        cJSON *m = cJSON_CreateObject();
        cJSON_AddStringToObject(m, "model", s->model);
        if (s->piece) cJSON_AddStringToObject(m, "layer", s->piece);
        cJSON_AddStringToObject(m, "stage", s->stage);
        cJSON_AddNumberToObject(m, "n", n);
        ss_cal_put_num(m, "mean_s", mean);
        ss_cal_put_num(m, "sd_s", sd);
        cJSON_AddStringToObject(m, "method", g->summary ? "published summaries pooled by n"
                                                        : "sample mean and standard deviation (n - 1)");
        cJSON_AddItemToObject(m, "from", ss_cal_refs_json(g));
        cJSON_AddItemToArray(cold, m);
    }
}

int ss_calibrate(ss_hwprofile *const *profs, size_t nprofs, const ss_calib_opts *o, char **json, char **summary,
                 ss_err *err)
{
    calib c = {.o = o};
    size_t sumlen;
    c.sum = ss_xmemstream(summary, &sumlen);
    c.root = cJSON_CreateObject();
    *json = NULL;
    ss_cal_header(&c, profs, nprofs);
    if (ss_cal_speed(&c, profs, nprofs, err) < 0) {
        fclose(c.sum);
        cJSON_Delete(c.root);
        return -1;
    }
    if (o->at_run_speed) ss_cal_at_run_speed(&c, profs, nprofs);
    collect(&c, profs, nprofs);
    groups *forms[] = {&c.dists, &c.transports, &c.memcpys, &c.colds};
    groups *modes[] = {&c.dists, &c.laws, &c.transports};
    int bad = 0;
    for (size_t i = 0; i < sizeof forms / sizeof *forms && !bad; i++) bad = check_forms(forms[i], err) < 0;
    for (size_t i = 0; i < sizeof modes / sizeof *modes && !bad; i++) bad = check_modes(modes[i], err) < 0;
    groups *pooled[] = {&c.dists, &c.laws, &c.transports, &c.memcpys, &c.colds, &c.memory};
    for (size_t i = 0; i < sizeof pooled / sizeof *pooled && !bad; i++) bad = check_machines(pooled[i], err) < 0;
    if (bad) {
        fclose(c.sum);
        cJSON_Delete(c.root);
        groups *all[] = {&c.dists, &c.laws, &c.transports, &c.memcpys, &c.colds, &c.memory, &c.stacks};
        for (size_t k = 0; k < sizeof all / sizeof *all; k++) ss_cal_groups_free(all[k]);
        return -1;
    }
    ss_dist_fits *dfits = ss_xcalloc(c.dists.n + 1, sizeof *dfits);
    ss_affine_fit *lfits = ss_xcalloc(c.laws.n + 1, sizeof *lfits);
    int rc = 0;
    for (size_t i = 0; i < c.dists.n && rc == 0; i++) rc = ss_cal_fit_dist(&c.dists.g[i], &dfits[i], err);
    if (rc == 0) fprintf(c.sum, "compute laws (latency vs batch):\n");
    if (rc == 0) rc = compute_laws(&c, lfits, err);
    if (rc == 0) fprintf(c.sum, "transports and memcpy (time vs bytes):\n");
    if (rc == 0) rc = transport_laws(&c, err);
    if (rc == 0) rc = blocks(&c, dfits, lfits, err);
    if (rc == 0) rc = ss_cal_stacking(&c, err);
    if (rc == 0) rc = ss_cal_run_queues(&c, err);
    if (rc == 0) rc = ss_cal_wake(&c, profs, nprofs, err);
    if (rc == 0) rc = ss_cal_interference(&c, profs, nprofs, err);
    if (rc == 0) rc = ss_cal_memshare(&c, profs, nprofs, err);
    if (rc == 0) rc = ss_cal_transfer(&c, profs, nprofs, err);
    if (rc == 0) rc = ss_cal_resident(&c, profs, nprofs, err);
    if (rc == 0) {
        size_t chosen[SS_FIT_NFAMILIES] = {0};
        cJSON *arr = cJSON_AddArrayToObject(c.root, "distributions");
        for (size_t i = 0; i < c.dists.n; i++) {
            cJSON_AddItemToArray(arr, ss_cal_dist_json(&c.dists.g[i], &dfits[i]));
            chosen[dfits[i].best]++;
        }
        fprintf(c.sum, "distributions: %zu (normal %zu, lognormal %zu, gamma %zu, empirical %zu)\n", c.dists.n,
                chosen[SS_FIT_NORMAL], chosen[SS_FIT_LOGNORMAL], chosen[SS_FIT_GAMMA], chosen[SS_FIT_EMPIRICAL]);
        summaries(&c);
        /* people read the file from the top: what a scenario uses first, then the fits */
        static const char *const order[] = {"name", "description", "source", "calibrated_from", "host_speed",
                                            "process", "blocks", "transports", "transport_fits", "memcpy",
                                            "memcpy_paths", "compute_laws", "distributions", "memory", "coldstart",
                                            "scheduler", "transfer", "resident"};
        for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
            cJSON *it = cJSON_DetachItemFromObjectCaseSensitive(c.root, order[i]);
            if (it) cJSON_AddItemToObject(c.root, order[i], it);
        }
        if (o->base) {
            rc = ss_cal_fill_base(&c, dfits, profs, nprofs, json, err);
        } else {
            char *text = cJSON_Print(c.root);
            *json = ss_xasprintf("%s\n", text);
            cJSON_free(text);
        }
    }
    fclose(c.sum);
    free(dfits);
    free(lfits);
    cJSON_Delete(c.root);
    groups *all[] = {&c.dists, &c.laws, &c.transports, &c.memcpys, &c.colds, &c.memory, &c.stacks};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) ss_cal_groups_free(all[i]);
    free(c.tp);
    return rc;
}
