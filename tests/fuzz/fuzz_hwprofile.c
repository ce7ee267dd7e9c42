/* fuzz_hwprofile.c: libFuzzer harness for the reader of profiles of real
 * runs (ss_hwprofile_load, sim/input/hwprofile.c; docs/profiles.md): the
 * input is a JSON hardware profile, the file `servesim calibrate` and
 * `servesim validate` read.  A profile that loads must keep hwprofile.h's
 * promises, in seconds after the unit conversion: some sample or run; a
 * latency or duration > 0 and finite (a stacking stretch finite); a
 * summary one mean; batch, threads, cores >= 1 and runnable within the
 * cores; bytes whole numbers >= 0; a wake sample one idle time >= 0 per
 * message; a run's duration and latencies > 0, its arrivals in order inside
 * it.  Seeds: tests/fuzz/hwprofile/. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "input/hwprofile.h"

static void broken(const char *what, int line)
{
    fprintf(stderr, "fuzz: the sample or run at line %d breaks hwprofile.h's promise: %s\n", line, what);
    abort();
}

static int pos(double v)
{
    return isfinite(v) && v > 0;
}

static int nonneg(double v)
{
    return isfinite(v) && v >= 0;
}

static void check_sample(const ss_hwp_sample *s)
{
    if ((s->kind != SS_HWP_MEMORY && s->ntimes == 0) || (s->summary && s->ntimes != 1))
        broken("no time, or a summary of several", s->line);
    for (size_t i = 0; i < s->ntimes; i++)
        if (s->kind == SS_HWP_STACKING ? !isfinite(s->times_s[i]) : !pos(s->times_s[i]))
            broken("a time that is not > 0 and finite", s->line);
    for (size_t i = 0; i < s->ndelivery; i++)
        if (!pos(s->delivery_s[i])) broken("a delivery that is not > 0 and finite", s->line);
    for (size_t i = 0; i < s->nsender; i++)
        if (!pos(s->sender_s[i])) broken("a sender time that is not > 0 and finite", s->line);
    for (size_t i = 0; i < s->nreceiver; i++)
        if (!pos(s->receiver_s[i])) broken("a receiver time that is not > 0 and finite", s->line);
    if (!nonneg(s->bytes) || s->bytes != floor(s->bytes)) broken("bytes not a whole number >= 0", s->line);
    if (s->summary && !(isnan(s->sd_s) || nonneg(s->sd_s))) broken("a summary's sd < 0", s->line);
    switch (s->kind) {
    case SS_HWP_COMPUTE:
        if (s->batch < 1 || s->threads < 1) broken("batch or threads < 1", s->line);
        break;
    case SS_HWP_STACKING:
        if (s->runnable < 1 || s->runnable > s->cores || s->ntimes < 2) broken("runnable outside 1..cores", s->line);
        if (!isnan(s->work_s) && !pos(s->work_s)) broken("work not > 0", s->line);
        break;
    case SS_HWP_WAKE:
        if (!nonneg(s->gap_s) || s->nidle != s->ntimes) broken("the gap < 0, or not one idle time per message", s->line);
        for (size_t i = 0; i < s->nidle; i++)
            if (!nonneg(s->idle_s[i])) broken("an idle time < 0", s->line);
        break;
    case SS_HWP_CORUN:
        if (s->cores < 1 || s->runnable < 1 || s->runnable > 2 * s->cores) broken("runnable outside 1..2 cores", s->line);
        break;
    default:
        break;
    }
}

static void check_run(const ss_hwp_run *r)
{
    if (!pos(r->duration_s) || !nonneg(r->warmup_s) || !pos(r->latency_mean_s) || !pos(r->latency_p50_s) ||
        !pos(r->latency_p99_s) || !nonneg(r->requests) || !nonneg(r->throughput_per_s) || r->batch < 1)
        broken("a duration, latency or count out of range", r->line);
    if ((r->clients == 0) == (r->rate_per_s == 0) || (r->rate_per_s != 0 && !pos(r->rate_per_s)))
        broken("not exactly one of a rate > 0 and clients", r->line);
    for (size_t i = 0; i < r->narrivals; i++)
        if (!nonneg(r->arrivals_s[i]) || (i && r->arrivals_s[i] < r->arrivals_s[i - 1]) ||
            r->arrivals_s[i] >= r->warmup_s + r->duration_s)
            broken("arrivals out of order or outside the run", r->line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ss_hwprofile p;
    if (fuzz_hwprofile(data, size, &p) == 0) {
        if (p.nsamples + p.nruns == 0) broken("no sample and no run", 1);
        for (size_t i = 0; i < p.nsamples; i++) check_sample(&p.samples[i]);
        for (size_t i = 0; i < p.nruns; i++) check_run(&p.runs[i]);
        ss_hwprofile_free(&p);
    }
    return 0;
}
