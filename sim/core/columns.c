/* columns.c: the table of what every CSV column means (see columns.h).
 * docs/running.md describes the same columns in prose; a label here is
 * what an axis says, short and in words, its unit beside it. */
#include "core/columns.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

#define B SS_COLS_BASE

static const ss_column results[] = {
    {"point", "sweep point", "", B},
    {"scenario", "scenario", "", B},
    {"variant", "variant", "", B},
    {"replication", "replication", "", B},
    {"replications", "replications", "", B},
    {"seed", "seed", "", B},
    {"model", "task", "", B},
    {"arrived", "requests arrived", "", B},
    {"completed", "requests completed", "", B},
    {"dropped", "requests dropped", "", B},
    {"throughput_rps", "throughput", "requests/s", B},
    {"latency_mean_ms", "mean latency", "ms", B},
    {"latency_p50_ms", "median latency", "ms", B},
    {"latency_p90_ms", "p90 latency", "ms", B},
    {"latency_p95_ms", "p95 latency", "ms", B},
    {"latency_p99_ms", "p99 latency", "ms", B},
    {"latency_p999_ms", "p99.9 latency", "ms", B},
    {"latency_max_ms", "maximum latency", "ms", B},
    {"queue_mean_ms", "mean time queued", "ms", B},
    {"queue_p99_ms", "p99 time queued", "ms", B},
    {"wait_prob", "share of requests that waited", "", B},
    {"util_mean", "mean device utilisation", "", B},
    {"lost_requests", "requests lost with failed replicas", "", B},
    {"core_s", "core-seconds", "core-s", B},
    /* LLM serving (docs/llm.md) */
    {"ttft_mean_s", "mean time to first token", "s", B},
    {"ttft_p50_s", "median time to first token", "s", B},
    {"ttft_p90_s", "p90 time to first token", "s", B},
    {"ttft_p99_s", "p99 time to first token", "s", B},
    {"tpot_mean_s", "mean time per output token", "s", B},
    {"tpot_p50_s", "median time per output token", "s", B},
    {"tpot_p90_s", "p90 time per output token", "s", B},
    {"tpot_p99_s", "p99 time per output token", "s", B},
    {"output_tokens_per_s", "output tokens", "tokens/s", B},
    {"preemptions", "preemptions", "", B},
    {"prefix_cache_tokens", "tokens from the prefix cache", "", B},
    {"refused", "requests refused", "", B},
    {"kv_transfer_mean_s", "mean KV-cache transfer", "s", B},
    {"engine_busy_frac", "share of time the engines were busy", "", B},
    /* edge devices (docs/masa.md) */
    {"deadline_miss_frac", "share of deadlines missed", "", B},
    {"energy_j", "energy", "J", B},
    {"peak_mem_mib", "peak memory", "MiB", B},
    {"overcommit_frac", "share of time memory was overcommitted", "", B},
    {"util_workers", "worker utilisation", "", B},
    {"busy_load_s", "time loading layers", "s", B},
    {"busy_exec_conv_s", "time running convolution layers", "s", B},
    {"busy_exec_fc_s", "time running fully connected layers", "s", B},
    {"makespan_s", "makespan", "s", B},
    {"forced_starts", "forced starts", "", B},
    /* ensembles (docs/ensembles.md) */
    {"throughput_img_s", "throughput", "images/s", B},
    {"images", "images", "", B},
    {"predictions", "predictions", "", B},
    {"batches", "batches", "", B},
    /* families: a column per model, device, host, block or tier */
    {"util_*", "utilisation of %s", "", B},
    {"instance_s_*", "replica-seconds of %s", "replica-s", B},
    {"coldstarts_gpu_*", "cold starts of %s on a GPU that held it", "", B},
    {"coldstarts_sleep_*", "cold starts of %s from a sleeping replica", "", B},
    {"coldstarts_local_*", "cold starts of %s from host RAM", "", B},
    {"coldstarts_disk_*", "cold starts of %s from the host's disk", "", B},
    {"coldstarts_peer_*", "cold starts of %s from a peer", "", B},
    {"coldstarts_storage_*", "cold starts of %s from storage", "", B},
    {"coldstarts_*", "cold starts of %s", "", B},
    {"coldstart_mean_s_*", "mean cold start of %s", "s", B},
    {"coldstart_p99_s_*", "p99 cold start of %s", "s", B},
    {"model_gb_peer_*", "model data of %s from peers", "GB", B},
    {"model_gb_storage_*", "model data of %s from storage", "GB", B},
    {"model_gb_disk_*", "model data of %s from disks", "GB", B},
    {"net_gb_*", "traffic on the %s links", "GB", B},
    {"core_s_*", "core-seconds on %s", "core-s", B},
    {"rt_sd_s_*", "response time SD of %s", "s", B},
    {"sla_viol_windows_*", "SLA-violating windows of %s", "", B},
    {"sla_viol_requests_*", "SLA-violating requests of %s", "", B},
    {"gpu_share_*", "GPU share of %s", "", B},
    {"cpu_busy_cores_*", "busy cores on %s", "cores", B},
    {"cpu_waiting_threads_*", "threads waiting on %s", "", B},
    {"gpu_util_*", "GPU utilisation of %s", "", B},
    {"overhead_ms_*", "overhead per request at %s", "ms", B},
    {"compute_ms_*", "compute per request at %s", "ms", B},
    {"wait_ms_*", "wait per request at %s", "ms", B},
    {"batch_mean_*", "mean batch at %s", "requests", B},
    {"vram_peak_mib_*", "peak VRAM on %s", "MiB", B},
    {"host_ram_peak_mib_*", "peak host RAM on %s", "MiB", B},
    /* setting columns of a sweep */
    {"policies.load_balancer", "load balancer", "", B},
    {"policies.scheduler", "scheduler", "", B},
    {"autoscaling.policy", "autoscaler", "", B},
    {"placement.policy", "placement", "", B},
    {"pipeline.transport", "transport", "", B},
    {"edge.scheduler", "layer scheduler", "", B},
    {"edge.memory_mib", "memory", "MiB", B},
    {"duration_s", "run length", "s", B},
    {"warmup_s", "warm-up", "s", B},
    {"workloads.*.rate_rps", "offered load of %s", "requests/s", B},
    {"workloads.*.clients", "clients of %s", "", B},
};

static const ss_column timeseries[] = {
    {"variant", "variant", "", B},
    {"replication", "replication", "", B},
    {"t_s", "simulated time", "s", B},
    {"model", "model", "", B},
    {"replicas", "replicas up", "", B},
    {"queued", "requests queued", "", B},
    {"in_service", "requests in service", "", B},
    {"utilisation", "utilisation", "", B},
    {"starting", "replicas cold-starting", "", B},
    {"draining", "replicas draining", "", B},
    {"cores", "cores", "", SS_COLS_CONTROL},
    {"rt_mean_s", "mean response time", "s", SS_COLS_CONTROL},
    {"kv_cache", "KV cache held", "", SS_COLS_LLM},
    {"kv_cache", "KV cache held", "", SS_COLS_LLM_MODELS},
    {"ttft_mean_s", "mean time to first token", "s", SS_COLS_LLM_MODELS},
    {"arrivals", "requests arrived", "", SS_COLS_ARRIVALS},
};

static const ss_column requests[] = {
    {"variant", "variant", "", B},
    {"replication", "replication", "", B},
    {"request", "request", "", B},
    {"workload", "workload", "", B},
    {"model", "task", "", B},
    {"arrival_s", "arrival time", "s", B},
    {"finish_s", "finish time", "s", B},
    {"latency_ms", "latency", "ms", B},
    {"queue_ms", "time queued", "ms", B},
    {"dropped", "dropped", "", B},
    {"measured", "measured", "", B},
    {"service_ms", "service time", "ms", B},
    /* requests of LLM models (docs/llm.md): empty for other requests and for those not served */
    {"prompt_tokens", "prompt tokens", "", SS_COLS_LLM_MODELS},
    {"output_tokens", "output tokens", "", SS_COLS_LLM_MODELS},
    {"ttft_ms", "time to first token", "ms", SS_COLS_LLM_MODELS},
    {"tpot_ms", "time per output token", "ms", SS_COLS_LLM_MODELS},
    {"preemptions", "preemptions", "", SS_COLS_LLM_MODELS},
    {"cached_tokens", "prompt tokens found cached", "", SS_COLS_LLM_MODELS},
};

static const ss_column coldstarts[] = {
    {"variant", "variant", "", B},
    {"replication", "replication", "", B},
    {"model", "model", "", B},
    {"host", "host", "", B},
    {"gpu", "GPU", "", B},
    {"source", "source", "", B},
    {"start_s", "cold start begun", "s", B},
    {"up_s", "replica up", "s", B},
    {"duration_s", "cold-start duration", "s", B},
    {"data_s", "time getting the model's data", "s", B},
    {"load_s", "time loading into a process", "s", B},
    {"send_s", "time sending to the GPU", "s", B},
};

#undef B

#define TABLE(t) {t, sizeof t / sizeof *t}
static const struct {
    const ss_column *c;
    size_t n;
} tables[SS_CSV_NKINDS] = {TABLE(results), TABLE(timeseries), TABLE(requests), TABLE(coldstarts)};

const ss_column *ss_columns(ss_csv_kind kind, size_t *n)
{
    *n = tables[kind].n;
    return tables[kind].c;
}

const char *ss_csv_kind_name(ss_csv_kind kind)
{
    static const char *const names[] = {"results", "timeseries", "requests", "coldstarts"};
    return names[kind];
}

/* Does name match family pattern pat (one '*', matching one character or more;
 * in a key path, workloads.*.rate_rps, one part of the path)?  Where the '*'
 * went in *at, its length in *len. */
static int family_match(const char *pat, const char *name, size_t *at, size_t *len)
{
    const char *star = strchr(pat, '*');
    if (!star) return 0;
    size_t pre = (size_t)(star - pat), suf = strlen(star + 1), n = strlen(name);
    if (n <= pre + suf || strncmp(name, pat, pre) != 0 || strcmp(name + n - suf, star + 1) != 0) return 0;
    if (strchr(pat, '.') && memchr(name + pre, '.', n - pre - suf)) return 0;
    *at = pre;
    *len = n - pre - suf;
    return 1;
}

const ss_column *ss_column_find(ss_csv_kind kind, const char *name, char **star)
{
    const ss_column *t = tables[kind].c;
    size_t n = tables[kind].n;
    if (star) *star = NULL;
    for (size_t i = 0; i < n; i++)
        if (!strchr(t[i].name, '*') && strcmp(t[i].name, name) == 0) return &t[i];
    for (size_t i = 0; i < n; i++) {
        size_t at, len;
        if (!family_match(t[i].name, name, &at, &len)) continue;
        if (star) {
            *star = ss_xmalloc(len + 1);
            memcpy(*star, name + at, len);
            (*star)[len] = '\0';
        }
        return &t[i];
    }
    return NULL;
}

/* The units a column name may end in (docs/running.md: units in names). */
static const struct {
    const char *suffix, *unit;
} suffixes[] = {
    {"_per_s", "per second"}, {"_rps", "requests/s"}, {"_ms", "ms"},     {"_us", "us"},
    {"_s", "s"},              {"_gbps", "Gbit/s"},    {"_mbps", "Mbit/s"}, {"_bytes", "bytes"},
    {"_mib", "MiB"},          {"_gib", "GiB"},        {"_gb", "GB"},     {"_j", "J"},
    {"_w", "W"},              {"_frac", ""},
};

/* The unit suffix name ends in, or -1. */
static int suffix_of(const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        size_t k = strlen(suffixes[i].suffix);
        if (n > k && strcmp(name + n - k, suffixes[i].suffix) == 0) return (int)i;
    }
    return -1;
}

const char *ss_column_unit(ss_csv_kind kind, const char *name)
{
    const ss_column *c = ss_column_find(kind, name, NULL);
    if (c) return c->unit;
    const char *last = strrchr(name, '.');
    int s = suffix_of(last ? last + 1 : name);
    return s < 0 ? "" : suffixes[s].unit;
}

/* "batch_s" of "workloads.w.batch_s": words without the unit, a path after them. */
static char *from_name(const char *name)
{
    const char *last = strrchr(name, '.');
    const char *word = last ? last + 1 : name;
    int s = suffix_of(word);
    size_t n = strlen(word) - (s < 0 ? 0 : strlen(suffixes[s].suffix));
    char *w = ss_xmalloc(n + 1);
    for (size_t i = 0; i < n; i++) w[i] = word[i] == '_' ? ' ' : word[i];
    w[n] = '\0';
    char *out = last ? ss_xasprintf("%s, %.*s", w, (int)(last - name), name) : ss_xstrdup(w);
    free(w);
    return out;
}

char *ss_column_label(ss_csv_kind kind, const char *name)
{
    char *star = NULL, *words;
    const ss_column *c = ss_column_find(kind, name, &star);
    if (c && star) {
        size_t at = (size_t)(strstr(c->label, "%s") - c->label);
        words = ss_xasprintf("%.*s%s%s", (int)at, c->label, star, c->label + at + 2);
    } else {
        words = c ? ss_xstrdup(c->label) : from_name(name);
    }
    free(star);
    const char *unit = ss_column_unit(kind, name);
    if (!*unit) return words;
    char *label = ss_xasprintf("%s (%s)", words, unit);
    free(words);
    return label;
}

void ss_columns_header(FILE *fp, ss_csv_kind kind, unsigned groups)
{
    const ss_column *t = tables[kind].c;
    int first = 1;
    for (size_t i = 0; i < tables[kind].n; i++) {
        if (strchr(t[i].name, '*') || !(t[i].groups & groups)) continue;
        if (!first) fputc(',', fp);
        fputs(t[i].name, fp);
        first = 0;
    }
    fputc('\n', fp);
}
