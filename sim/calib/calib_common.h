/* calib_common.h: what the files of the calibration share (calib_common.c):
 * groups of samples and their fits, the model file's JSON, the block view
 * of a split profile.  The driver (calibrate.c), the --base and
 * --model-profile outputs (calibrate_base.c, calibrate_model.c) and each
 * stage (calibrate_*.c) use it; the stages' entry points are declared here
 * too, for the driver.  Not a public interface: the command and the tests
 * use calibrate.h. */
#ifndef SS_CALIB_COMMON_H
#define SS_CALIB_COMMON_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "calib/calib.h"
#include "core/fit.h"

#define TRY(x)                  \
    do {                        \
        if ((x) < 0) return -1; \
    } while (0)

/* One sample of one profile. */
typedef struct ref {
    const ss_hwprofile *prof;
    size_t sample;  /* index in prof->samples */
} ref;

/* Samples pooled for one fit, keyed. */
typedef struct group {
    char *key;
    ref *refs;      /* the samples pooled here, in input order */
    size_t nrefs;
    double *x, *y;  /* one point per observation: x the batch or bytes (laws), y the time in s */
    size_t n;
    int summary;    /* the group's samples are summaries of published tables (one point each) */
} group;

typedef struct groups {
    group *g;
    size_t n;
} groups;

/* The pooled moments of a group of published summaries (ss_cal_pooled). */
typedef struct moments {
    double n, mean, sd;
    int decimals;
    int dist; /* the family of the first summary (core/fit.h order) */
} moments;

/* The affine parameters of one transport (policies/transport_affine.h), as
 * the laws that hold its samples give them; named by ss_cal_tfield. */
typedef struct tparam tparam;
struct tparam {
    const char *name;   /* the transport (owned by a sample) */
    double v[5];
    const char *law[5]; /* the transport_fits key each value came from; NULL: none */
    const char *how[5]; /* static words: which parameter of that law, and how */
};
extern const char *const ss_cal_tfield[5];

/* One calibration: the groups, the model file being built, the summary. */
typedef struct calib {
    const ss_calib_opts *o;
    groups dists;      /* compute samples by (piece, device, threads, batch) */
    groups laws;       /* compute samples by (piece, device, threads) */
    groups transports; /* transport samples by law (the transport's name unless `law` names one) and term */
    groups memcpys;    /* one group */
    groups colds;      /* coldstart samples by (model, stage) */
    groups memory;     /* memory readings by (what, device) */
    groups stacks;     /* wake-up stacking samples by cores (x: runnable) */
    cJSON *root;
    FILE *sum;         /* the summary */
    tparam *tp;        /* per transport: its affine parameters from the laws */
    size_t ntp;
} calib;

/* groups (calib_common.c) */
const ss_hwp_sample *ss_cal_sample_of(const ref *r);
group *ss_cal_add(groups *gs, const char *key, const ss_hwprofile *p, size_t i, double x);
void ss_cal_groups_free(groups *gs);
int ss_cal_group_err(const group *g, ss_err *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
moments ss_cal_pooled(const group *g);

/* A sample's piece kind as a word ("block", "hop", ...), and the piece and
 * its model in words for a message (allocated). */
const char *ss_cal_piece_word(ss_hwp_piece k);
char *ss_cal_piece_words(const ss_hwp_sample *s);

/* JSON and fits (calib_common.c) */
double ss_cal_round10(double x);
void ss_cal_put_num(cJSON *o, const char *key, double x);
void ss_cal_put_interval(cJSON *o, const char *key, double mid, double half);
void ss_cal_put_range(cJSON *o, const char *key, double lo, double hi);
/* The model file's scheduler object (stacking, wake, interference), made with its summary
 * heading by whichever of them comes first. */
cJSON *ss_cal_scheduler(calib *c);
/* The percentile bootstrap's 95% interval of the resampled estimates v (sorted in place). */
void ss_cal_percentile95(double *v, size_t n, double *lo, double *hi);
cJSON *ss_cal_law_json(const char *law, const char *x, const char *p0, const char *p1, const ss_affine_fit *f,
                       const group *g);
cJSON *ss_cal_service_json(const ss_dist_fits *d, const group *g);
cJSON *ss_cal_dist_json(const group *g, const ss_dist_fits *d);
cJSON *ss_cal_refs_json(const group *g);
int ss_cal_fit_dist(const group *g, ss_dist_fits *d, ss_err *err);
/* A group's mode (the dispersion of its samples' form) into o. */
void ss_cal_put_mode(cJSON *o, const group *g);

/* blocks (calib_common.c) */
int ss_cal_wanted_block(const calib *c, const ss_hwp_sample *s, const char *model);
int ss_cal_pick_model(const calib *c, const char **model, ss_err *err);
long ss_cal_pick_config(const calib *c, const char *model, const char *blk);
size_t ss_cal_smallest_batch(const calib *c, size_t law);
void ss_cal_header(calib *c, ss_hwprofile *const *profs, size_t nprofs);

/* the scheduler's wake-up stacking (calibrate_stacking.c): scheduler.stacking in the model file */
int ss_cal_stacking(calib *c, ss_err *err);
/* The pooled stretches (s) of the ring group g's samples with `runnable` tokens, allocated; and their
 * recorded token deliveries (s; *n 0 where none). */
double *ss_cal_ring_stretches(const group *g, unsigned runnable, size_t *n);
double *ss_cal_ring_deliveries(const group *g, unsigned runnable, size_t *n);
/* the run queues' balance interval (calibrate_runq.c): after the stacking and the transports,
 * with the ring's kernel constants, scheduler.run_queues in the model file.  0 also when it
 * cannot be fitted (the summary says why); -1 with err when the ring's profiles name two kernels. */
int ss_cal_run_queues(calib *c, ss_err *err);

/* waking after idle (calibrate_wake.c): with kind "wake" samples, scheduler.wake.<transport> in the
 * model file (the extra hop latency by the receiver's idle time).  0 also when there are none. */
int ss_cal_wake(calib *c, ss_hwprofile *const *profs, size_t nprofs, ss_err *err);
/* scheduler.memory_bandwidth from memshare samples (calibrate_memshare.c). */
int ss_cal_memshare(calib *c, ss_hwprofile *const *profs, size_t nprofs, ss_err *err);
/* resident: a process's resident-memory law from resident samples (calibrate_resident.c). */
int ss_cal_resident(calib *c, ss_hwprofile *const *profs, size_t nprofs, ss_err *err);

/* CPU interference (calibrate_interference.c): with kind "corun" samples, scheduler.interference in the
 * model file (corun_factor, slice_factor).  0 also when there are none. */
int ss_cal_interference(calib *c, ss_hwprofile *const *profs, size_t nprofs, ss_err *err);
/* calibrate_transfer.c: the transfer law from kind "transfer" samples of use fit */
int ss_cal_transfer(calib *c, ss_hwprofile *const *profs, size_t nprofs, ss_err *err);

/* the host's speed (calibrate_speed.c): with kind "speed" samples of both phases, the ratio of
 * their means (e2e / micro) into host_speed and the summary, a warning when it moved.  0 also when
 * there are none; -1 with err on bad input. */
int ss_cal_speed(calib *c, ss_hwprofile *const *profs, size_t nprofs, ss_err *err);
/* With --at-run-speed and a ratio from ss_cal_speed: every compute, transport and memcpy
 * observation of profs (not the summaries of published tables) times the ratio, in place,
 * before the fits; host_speed says so.  Without a ratio, the summary says it was not applied. */
void ss_cal_at_run_speed(calib *c, ss_hwprofile *const *profs, size_t nprofs);
/* --base (calibrate_base.c): the base file of c->o with the fitted numbers put in, as *json. */
int ss_cal_fill_base(calib *c, const ss_dist_fits *dfits, ss_hwprofile *const *profs, size_t nprofs, char **json,
                     ss_err *err);

#endif
