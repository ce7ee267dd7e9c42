/* vllm_run.c: reading a measured vLLM run (vllm_run.h). */
#define _GNU_SOURCE /* strptime, timegm */
#include "input/vllm_run.h"

#include <cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/csvread.h"
#include "core/limits.h"

static int num(const cJSON *o, const char *key, double *v, const char *path, int line, ss_err *err)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) || it->valuedouble < 0)
        return ss_err_at(err, path, line, 1, "%s: expected a number >= 0%s", key, it ? "" : " (missing)");
    *v = it->valuedouble;
    return 0;
}

static int count(const cJSON *o, const char *key, uint32_t *v, const char *path, int line, ss_err *err)
{
    double x;
    if (!cJSON_GetObjectItemCaseSensitive(o, key))
        return ss_err_at(err, path, line, 1, "%s: missing: every request needs its prompt and output token counts "
                                             "(input_toks, output_toks)", key);
    if (num(o, key, &x, path, line, err) < 0) return -1;
    if (x < 1 || x > 1e9 || x != floor(x))
        return ss_err_at(err, path, line, 1, "%s: expected a whole number of tokens from 1 to 1e9, got %g", key, x);
    *v = (uint32_t)x;
    return 0;
}

static int cmp_queued(const void *a, const void *b)
{
    double x = ((const ss_vllm_req *)a)->queued_s, y = ((const ss_vllm_req *)b)->queued_s;
    return (x > y) - (x < y);
}

/* requests.jsonl into run; *first_arrival the earliest arrival_time (epoch s; 0 if none gives one). */
static int read_requests(const char *path, ss_vllm_run *run, double *first_arrival, ss_err *err)
{
    size_t len;
    char *text = ss_read_file(path, SS_INPUT_TRACE, &len, err);
    if (!text) return -1;
    int rc = 0, line = 0;
    size_t cap = 0;
    for (char *p = text; rc == 0 && p < text + len;) {
        char *nl = memchr(p, '\n', (size_t)(text + len - p));
        char *end = nl ? nl : text + len;
        line++;
        size_t n = (size_t)(end - p);
        while (n && (p[n - 1] == '\r' || p[n - 1] == ' ')) n--;
        if (n > 0) {
            cJSON *o = cJSON_ParseWithLength(p, n);
            if (!cJSON_IsObject(o)) {
                rc = ss_err_at(err, path, line, 1, "expected one JSON object per line (a request)");
            } else {
                ss_vllm_req r;
                double q, f, l;
                if (count(o, "input_toks", &r.prompt_tokens, path, line, err) < 0 ||
                    count(o, "output_toks", &r.output_tokens, path, line, err) < 0 ||
                    num(o, "queued_ts", &q, path, line, err) < 0 || num(o, "first_token_ts", &f, path, line, err) < 0 ||
                    num(o, "last_token_ts", &l, path, line, err) < 0) {
                    rc = -1;
                } else if (!(f >= q && l >= f)) {
                    rc = ss_err_at(err, path, line, 1,
                                   "expected queued_ts <= first_token_ts <= last_token_ts, got %.17g, %.17g, %.17g", q, f,
                                   l);
                } else {
                    double arr = 0;
                    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "arrival_time");
                    if (cJSON_IsNumber(a) && isfinite(a->valuedouble)) arr = a->valuedouble;
                    if (arr > 0 && (*first_arrival == 0 || arr < *first_arrival)) *first_arrival = arr;
                    r.queued_s = q;
                    r.line = line;
                    r.ttft_s = f - q;
                    r.e2e_s = l - q;
                    r.tpot_s = r.output_tokens > 1 ? (l - f) / (r.output_tokens - 1) : NAN;
                    if (run->n == cap) {
                        cap = cap ? 2 * cap : 256;
                        run->reqs = ss_xrealloc(run->reqs, cap * sizeof *run->reqs);
                    }
                    run->reqs[run->n++] = r;
                }
            }
            cJSON_Delete(o);
        }
        p = nl ? nl + 1 : text + len;
    }
    free(text);
    if (rc == 0 && run->n == 0) rc = ss_err_at(err, path, 1, 1, "expected at least one request");
    if (rc < 0) return -1;
    qsort(run->reqs, run->n, sizeof *run->reqs, cmp_queued);
    double t0 = run->reqs[0].queued_s;
    for (size_t i = 0; i < run->n; i++) run->reqs[i].queued_s -= t0;
    return 0;
}

/* The object at a dotted path of root, or NULL. */
static const cJSON *at(const cJSON *root, const char *a, const char *b)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, a);
    return b ? cJSON_GetObjectItemCaseSensitive(o, b) : o;
}

static uint32_t u32(const cJSON *o)
{
    return cJSON_IsNumber(o) && o->valuedouble >= 0 && o->valuedouble < 4e9 ? (uint32_t)o->valuedouble : 0;
}

static int flag(const cJSON *o)
{
    return cJSON_IsTrue(o);
}

/* Seconds since the epoch of an ISO 8601 UTC time ("2026-08-20T23:19:39.992496Z"), or NAN. */
static double iso_utc(const char *s)
{
    struct tm tm = {0};
    const char *rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
    if (!rest) return NAN;
    double frac = *rest == '.' ? strtod(rest, NULL) : 0;
    return (double)timegm(&tm) + frac;
}

/* meta.json into run; first_arrival (epoch s, 0: unknown) gives the first request's offset from started_at. */
static int read_meta(const char *path, ss_vllm_run *run, double first_arrival, ss_err *err)
{
    size_t len;
    char *text = ss_read_file(path, SS_INPUT_DOCUMENT, &len, err);
    if (!text) return -1;
    cJSON *root = cJSON_ParseWithLength(text, len);
    free(text);
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return ss_err_at(err, path, 1, 1, "expected a JSON object (vLLM's run metadata)");
    }
    const cJSON *st = at(root, "started_at", NULL);
    double t0 = cJSON_IsString(st) ? iso_utc(st->valuestring) : NAN;
    run->first_offset_s = isfinite(t0) && first_arrival > t0 ? first_arrival - t0 : 0;
    const cJSON *v = at(root, "vllm_version", NULL);
    run->vllm_version = ss_xstrdup(cJSON_IsString(v) ? v->valuestring : "");
    run->max_num_seqs = u32(at(root, "engine_kwargs", "max_num_seqs"));
    run->max_num_batched_tokens = u32(at(root, "engine_kwargs", "max_num_batched_tokens"));
    run->block_size = u32(at(root, "kv_cache", "block_size"));
    run->num_gpu_blocks = u32(at(root, "kv_cache", "num_gpu_blocks"));
    run->enable_prefix_caching = flag(at(root, "kv_cache", "enable_prefix_caching"));
    const cJSON *rc = at(root, "resolved_config", NULL);
    const cJSON *sc = cJSON_GetObjectItemCaseSensitive(rc, "scheduler_config");
    run->enable_chunked_prefill = flag(cJSON_GetObjectItemCaseSensitive(sc, "enable_chunked_prefill"));
    run->async_scheduling = flag(cJSON_GetObjectItemCaseSensitive(sc, "async_scheduling"));
    run->reserve_full_isl = flag(cJSON_GetObjectItemCaseSensitive(sc, "scheduler_reserve_full_isl"));
    run->long_prefill_token_threshold = u32(cJSON_GetObjectItemCaseSensitive(sc, "long_prefill_token_threshold"));
    run->enforce_eager = flag(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rc, "model_config"),
                                                               "enforce_eager"));
    cJSON_Delete(root);
    if (!run->max_num_seqs || !run->max_num_batched_tokens || !run->block_size || !run->num_gpu_blocks)
        return ss_err_at(err, path, 1, 1,
                         "expected engine_kwargs.max_num_seqs, engine_kwargs.max_num_batched_tokens, "
                         "kv_cache.block_size and kv_cache.num_gpu_blocks, each a whole number >= 1");
    return 0;
}

/* timeseries.csv (t, running, waiting, kv_cache_pct), where the run has one. */
static int read_ticks(const char *path, ss_vllm_run *run, ss_err *err)
{
    if (access(path, F_OK) != 0) return 0;
    ss_csv csv;
    if (ss_csv_read_whole(path, &csv, err) < 0) return -1;
    static const char *const cols[4] = {"t", "running", "waiting", "kv_cache_pct"};
    long k[4];
    int rc = 0;
    for (int j = 0; j < 4 && rc == 0; j++)
        if (csv.nrows == 0 || (k[j] = ss_csv_col(&csv.rows[0], cols[j])) < 0)
            rc = ss_err_at(err, path, 1, 1, "expected a column '%s' in the header", cols[j]);
    size_t n = csv.nrows ? csv.nrows - 1 : 0;
    double **dst[4] = {&run->tick_s, &run->tick_running, &run->tick_waiting, &run->tick_kv};
    for (int j = 0; j < 4; j++) *dst[j] = ss_xcalloc(n + 1, sizeof **dst[j]);
    for (size_t i = 1; rc == 0 && i < csv.nrows; i++) {
        const ss_csv_row *r = &csv.rows[i];
        for (int j = 0; j < 4 && rc == 0; j++) {
            char *end = NULL;
            double v = (size_t)k[j] < r->n ? ss_strtod(r->f[k[j]], &end) : NAN;
            if (!end || end == r->f[k[j]] || *end || !isfinite(v) || v < 0 || (j == 3 && v > 100.0001))
                rc = ss_err_at(err, path, r->line, (size_t)k[j] < r->n ? ss_csv_field_col(r, (size_t)k[j]) : 1,
                               "%s: expected a number >= 0%s", cols[j], j == 3 ? " and <= 100 (percent)" : "");
            else
                (*dst[j])[i - 1] = j == 3 ? v / 100 : v;
        }
    }
    run->nticks = rc == 0 ? n : 0;
    ss_csv_free(&csv);
    return rc;
}

int ss_vllm_run_read(const char *dir, ss_vllm_run *run, ss_err *err)
{
    memset(run, 0, sizeof *run);
    char *rq = ss_path_join(dir, "requests.jsonl"), *mt = ss_path_join(dir, "meta.json"),
         *ts = ss_path_join(dir, "timeseries.csv");
    double first_arrival = 0;
    int rc = read_requests(rq, run, &first_arrival, err);
    if (rc == 0) rc = read_meta(mt, run, first_arrival, err);
    if (rc == 0) rc = read_ticks(ts, run, err);
    free(rq);
    free(mt);
    free(ts);
    if (rc < 0) ss_vllm_run_free(run);
    return rc;
}

void ss_vllm_run_free(ss_vllm_run *run)
{
    free(run->reqs);
    free(run->tick_s);
    free(run->tick_running);
    free(run->tick_waiting);
    free(run->tick_kv);
    free(run->vllm_version);
    memset(run, 0, sizeof *run);
}
