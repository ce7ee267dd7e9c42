/* main.c: the servesim command line - run, check, plugins (and the other
 * commands' entry points: sweep, compare, flows, plan, partition, tune, optimize, calibrate,
 * validate).
 *
 * Exit status: 0 ok; 1 the run failed; 2 bad input (bad usage, scenario,
 * profile, trace or plugin), reported as file:line:col with nothing written.
 * Everything is validated (scenario of every variant, plugins, output paths)
 * before the first event runs. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "core/afile.h"
#include "serve/plugin.h"
#include "cmd/report.h"
#include "calib/calibrate_cmd.h"
#include "cmd/compare.h"
#include "input/edge_cfg.h"
#include "input/ensemble_cfg.h"
#include "input/llm_cfg.h"
#include "input/pipeline_cfg.h"
#include "cmd/flows_cmd.h"
#include "cmd/outdir.h"
#include "cmd/partition_cmd.h"
#include "cmd/plan_cmd.h"
#include "cmd/plot.h"
#include "input/scenpath.h"
#include "search/tune.h"
#include "search/optimize.h"
#include "calib/validate_cmd.h"
#include "input/scenario.h"
#include "input/scenario_load.h"
#include "cmd/sweep.h"
#include "cmd/sweep_run.h"
#include "net/topo.h"
#include "world/world.h"
#include "elastic/elastic.h"
#include "llm/llm_serve.h"

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_BADINPUT = 2 };

static const char usage_main[] =
    "usage: servesim <command> [options]\n"
    "\n"
    "commands:\n"
    "  run SCENARIO.yaml      simulate a scenario, print a summary table, write results CSV\n"
    "  check SCENARIO.yaml    validate a scenario (and its profiles, traces, plugins) without running\n"
    "  sweep SWEEP.yaml       run a grid of points of a scenario, in parallel, into one CSV\n"
    "  compare RESULTS.csv    compare policies in a results CSV against a baseline, with 95% CIs\n"
    "  flows TOPO.yaml CSV    replay a list of transfers on a topology (max-min flow sharing)\n"
    "  plan PLAN.yaml         VRAM, processes and GPUs of block deployments for task mixes\n"
    "  partition MODEL        a model's partition plans by queue length and GPUs added (Flashpoint MP)\n"
    "  tune SCENARIO ...      bisect an autoscaler threshold to the resources of a reference variant\n"
    "  calibrate PROFILE...   fit model parameters to profiles of real runs (-o MODEL.json)\n"
    "  validate SCEN PROF...  simulate the end-to-end runs of profiles, compare with the measured\n"
    "  optimize SCENARIO ...  search an ensemble's allocation matrix for throughput (E's Algorithms 1, 2)\n"
    "  plugins [SCENARIO]     list the policy plugins found on the search path\n"
    "  plot KIND CSV...       draw CSVs with gnuplot: variants over time, CDFs, a metric vs a sweep axis\n"
    "\n"
    "`servesim <command> --help` describes each command.  --version prints the version.\n"
    "A SCENARIO (or SWEEP) that is no file is looked for by name: servesim run default runs the shipped\n"
    "scenarios/default.yaml ($SERVESIM_SCENARIO_PATH, then the install's share/servesim/scenarios).\n"
    "Every command also takes --max-input-bytes SIZE (the cap on an input file) and --max-memory SIZE\n"
    "(on a scenario's estimated memory, default 8G): docs/limits.md.\n"
    "Exit status: 0 ok, 1 run failed, 2 bad input.\n";

static const char usage_run[] =
    "usage: servesim run SCENARIO.yaml|NAME [options]\n"
    "\n"
    "  -o, --output PATH       results CSV, its folders made (default: below; -: the standard output,\n"
    "                          no summary CSV; with --quiet for the CSV alone)\n"
    "  --set KEY.PATH=VALUE    override any scenario key; repeatable; sequence items by index or name\n"
    "                          (e.g. --set workloads.chat.rate_rps=40); the value is YAML\n"
    "  --seed N                same as --set seed=N\n"
    "  --replications N        same as --set replications=N\n"
    "  --variant NAME          run only this variant (default: all variants of the scenario)\n"
    "  --duration SECONDS      the run's duration_s and every workload's length with it: synthetic\n"
    "                          shapes drawn that long, steps stretched, warm-up kept; a trace shorter\n"
    "                          than that is refused (docs/running.md)\n"
    "  --replication K         run only replication K (0-based; e.g. to rerun one row of a sweep)\n"
    "  --requests-csv PATH     also write one row per request\n"
    "  --timeseries-csv PATH   also write per-model samples (replicas, queued, in service, utilisation)\n"
    "  --timeseries-interval S sampling interval of that file in simulated seconds (default 1)\n"
    "  --coldstarts-csv PATH   also write one row per cold start (model, host, GPU, source, start, up, duration)\n"
    "  --timeline PATH.json    also write the run as Chrome trace events (Perfetto, chrome://tracing,\n"
    "                          tools/timeline-view.html): requests, services per device, life cycle\n"
    "  --timeline-window A:B   only requests created in [A, B] s of simulated time (default 0:60)\n"
    "  --timeline-sample N     only every N-th request (default 1)\n"
    "  --timeline-max-events N at most N events in the file (default 1000000)\n"
    "  --quiet                 print no table (nor the warning for a variant that did not keep up)\n"
    "  --stats                 print events, events/s, wall time and peak memory to stderr\n"
    "\n"
    "Where it writes: the results CSV to -o PATH, else to the scenario's outputs.csv, else to\n"
    "results/<name>.csv, relative to the working directory (and <stem>.summary.csv beside it, with\n"
    "95% confidence intervals, when replications > 1).  The folders of a path the command line names\n"
    "(-o, --requests-csv, --timeseries-csv, --coldstarts-csv, --timeline, --set outputs.KEY=...) are\n"
    "made; an output only the scenario names goes into a folder that is there, or the run stops\n"
    "before any work (exit 2): run it from the folder that holds results/, make the folder, or give\n"
    "-o.  Every output is written atomically; same scenario and seed give byte-identical CSV.\n"
    "\n"
    "The table alone goes to stdout (servesim run s.yaml > table.txt holds nothing else); the line\n"
    "that names the run and its CSV, progress, warnings and --stats go to stderr.  Under a locale\n"
    "that is not UTF-8 (LANG=C) the table is ASCII: +/- for the 95% half-width.\n";

static const char usage_check[] =
    "usage: servesim check SCENARIO.yaml [--set KEY.PATH=VALUE ...] [--variant NAME] [--duration SECONDS]\n"
    "\n"
    "Reads the scenario, every variant, the model profiles and traces it names, and loads and\n"
    "initialises its policy plugins, without running.  Exit 0 if all is valid, 2 otherwise.\n";

static const char usage_sweep[] =
    "usage: servesim sweep SWEEP.yaml [options]\n"
    "\n"
    "  -j, --jobs N            worker processes (default: the number of cores)\n"
    "  -o, --output PATH       results CSV, its folders made (default: output: of the sweep, else\n"
    "                          results/<name>.csv, relative to the working directory, into a folder\n"
    "                          that is there: else exit 2 before any run)\n"
    "  --resume                keep the runs already in the results CSV, run the rest\n"
    "  --force                 replace a results CSV that holds a sweep's results (refused without\n"
    "                          --resume or --force, so a rerun never loses what a resume would keep)\n"
    "  --set KEY.PATH=VALUE    override a key of the base scenario at every point; repeatable\n"
    "  --duration SECONDS      every point's duration_s and its workloads' lengths (as run's)\n"
    "  --quiet                 no progress line and no closing summary (both on stderr)\n"
    "\n"
    "Every point is validated before anything runs (bad input: exit 2, nothing run).  Rows are\n"
    "appended in run order with fsync as runs finish, so a killed sweep resumes with --resume and\n"
    "ends with the same file as an uninterrupted one.  A failing run is reported and the others go\n"
    "on; the exit status is then 1.  Under mpirun (a `make MPI=1` build) rank 0 writes the CSV and\n"
    "the other ranks run the points.  Any row reruns alone with\n"
    "  servesim run BASE.yaml --set KEY=VALUE ... --seed S --variant V --replication R\n"
    "See docs/sweeps.md.\n";

static const char usage_plugins[] =
    "usage: servesim plugins [SCENARIO.yaml]\n"
    "\n"
    "Lists the policy plugins found, in search order: $SERVESIM_PLUGIN_PATH, the build folder\n"
    "beside this executable, the install folder beside it, and " SS_PLUGIN_DIR "; with a\n"
    "scenario, also the plugins it names that its folder holds (no other file there is loaded).\n"
    "A scenario that does not load is bad input (exit 2).\n";

typedef struct opts {
    const char *scenario, *output, *variant, *requests_csv, *timeseries_csv, *timeline, *coldstarts_csv;
    ss_timeline_opts tl;
    double timeseries_interval_s; /* 0: the scenario's */
    double horizon_s;  /* --duration: the run's duration_s and every workload's length; 0: as written */
    char **sets;
    size_t nsets;
    int quiet, stats;
    long replication;  /* -1: all */
} opts;

static void add_set(opts *o, char *s)
{
    o->sets = ss_xrealloc(o->sets, (o->nsets + 1) * sizeof *o->sets);
    o->sets[o->nsets++] = s;
}

/* --duration's value: seconds > 0 within a time's range (docs/limits.md).
 * -1 if good, else the usage error's exit status. */
static int parse_duration(const char *cmd, const char *val, double *out)
{
    char *end;
    *out = ss_strtod(val, &end);
    const ss_key_range *r = ss_key_range_of("duration_s");
    if (*end || !val[0] || !(*out > 0) || !ss_key_range_holds(r, *out, 0))
        return ss_bad_usage(cmd, "--duration expects a number of seconds from 1e-09 to 1e+09, got '%s'", val);
    return -1;
}

/* Parse the options of run/check.  Returns -1 to continue, else an exit status. */
static int parse_opts(const char *cmd, const char *help, int argc, char **argv, opts *o, int run)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED()                                                        \
    do {                                                              \
        if (!val) return ss_bad_usage(cmd, "%s needs a value", a);       \
        i++;                                                          \
    } while (0)
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(help, stdout);
            return EXIT_OK;
        } else if (strcmp(a, "--set") == 0) {
            NEED();
            add_set(o, ss_xstrdup(val));
        } else if (strncmp(a, "--set=", 6) == 0) {
            add_set(o, ss_xstrdup(a + 6));
        } else if (strcmp(a, "--variant") == 0) {
            NEED();
            o->variant = val;
        } else if (strcmp(a, "--duration") == 0) {
            NEED();
            if (parse_duration(cmd, val, &o->horizon_s) >= 0) return EXIT_BADINPUT;
        } else if (run && (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0)) {
            NEED();
            o->output = val;
        } else if (run && strcmp(a, "--seed") == 0) {
            NEED();
            add_set(o, ss_xasprintf("seed=%s", val));
        } else if (run && strcmp(a, "--replications") == 0) {
            NEED();
            add_set(o, ss_xasprintf("replications=%s", val));
        } else if (run && strcmp(a, "--replication") == 0) {
            NEED();
            char *end;
            o->replication = strtol(val, &end, 10);
            if (*end || !val[0] || o->replication < 0)
                return ss_bad_usage(cmd, "--replication expects a replication number >= 0, got '%s'", val);
        } else if (run && strcmp(a, "--timeseries-csv") == 0) {
            NEED();
            o->timeseries_csv = val;
        } else if (run && strcmp(a, "--coldstarts-csv") == 0) {
            NEED();
            o->coldstarts_csv = val;
        } else if (run && strcmp(a, "--timeseries-interval") == 0) {
            NEED();
            char *end;
            o->timeseries_interval_s = ss_strtod(val, &end);
            if (*end || !val[0] || !(o->timeseries_interval_s >= SS_MIN_SAMPLE_S) || o->timeseries_interval_s > 1e12)
                return ss_bad_usage(cmd, "--timeseries-interval expects a number of seconds >= 1e-06, got '%s'", val);
        } else if (run && strcmp(a, "--timeline") == 0) {
            NEED();
            o->timeline = val;
        } else if (run && strcmp(a, "--timeline-window") == 0) {
            NEED();
            char *mid, *end = NULL;
            o->tl.from_s = ss_strtod(val, &mid);
            o->tl.to_s = *mid == ':' ? ss_strtod(mid + 1, &end) : NAN;
            if (*mid != ':' || !end || *end || !(o->tl.from_s >= 0) || !(o->tl.to_s >= o->tl.from_s) || o->tl.to_s > 1e15)
                return ss_bad_usage(cmd, "--timeline-window expects FROM:TO seconds with 0 <= FROM <= TO, got '%s'", val);
        } else if (run && (strcmp(a, "--timeline-sample") == 0 || strcmp(a, "--timeline-max-events") == 0)) {
            NEED();
            char *end;
            double v = ss_strtod(val, &end);
            int sample = strcmp(a, "--timeline-sample") == 0;
            if (*end || !val[0] || !(v >= 1) || v > 1e15 || v != floor(v))
                return ss_bad_usage(cmd,
                                    sample ? "--timeline-sample expects a whole number >= 1, got '%s'"
                                           : "--timeline-max-events expects a whole number >= 1, got '%s'",
                                    val);
            if (sample) o->tl.every = (uint64_t)v;
            else o->tl.max_events = (uint64_t)v;
        } else if (run && strcmp(a, "--requests-csv") == 0) {
            NEED();
            o->requests_csv = val;
        } else if (run && strcmp(a, "--quiet") == 0) {
            o->quiet = 1;
        } else if (run && strcmp(a, "--stats") == 0) {
            o->stats = 1;
        } else if (a[0] == '-' && a[1]) {
            return ss_bad_usage(cmd, "unknown option '%s'", a);
        } else if (!o->scenario) {
            o->scenario = ss_scenario_locate(a); /* a file, or a shipped scenario's name */
        } else {
            return ss_bad_usage(cmd, "unexpected argument '%s'", a);
        }
#undef NEED
    }
    if (!o->scenario) return ss_bad_usage(cmd, "%s", "missing SCENARIO.yaml");
    return -1;
}

/* Load every variant of the scenario (or the one asked for). */
static int load_all(const opts *o, ss_scenario **out, size_t *n, ss_err *err)
{
    char **names = NULL;
    size_t nv = 0;
    if (ss_scenario_variants(o->scenario, &names, &nv, err) < 0) return -1;
    int rc = 0;
    if (o->variant) {
        int found = 0;
        for (size_t i = 0; i < nv; i++) found |= strcmp(names[i], o->variant) == 0;
        if (!found) {
            const char *near = ss_suggest(o->variant, (const char *const *)names);
            rc = ss_err_at(err, o->scenario, 1, 1, "no variant named '%s'%s%s%s", o->variant,
                           near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
        }
    }
    size_t count = o->variant || nv == 0 ? 1 : nv;
    ss_scenario *sc = ss_xcalloc(count, sizeof *sc);
    for (size_t i = 0; rc == 0 && i < count; i++) {
        const char *v = o->variant ? o->variant : nv ? names[i] : NULL;
        rc = ss_scenario_load_horizon(&sc[i], o->scenario, v, NULL, 0, o->sets, o->nsets, o->horizon_s, err);
        *n = i + 1;
    }
    for (size_t i = 0; i < nv; i++) free(names[i]);
    free(names);
    *out = sc;
    if (rc < 0) return -1;
    *n = count;
    return 0;
}

static void free_all(ss_scenario *sc, size_t n)
{
    for (size_t i = 0; i < n; i++) ss_scenario_free(&sc[i]);
    free(sc);
}

/* Build (and drop) a world per variant: loads and initialises the plugins. */
static int validate_worlds(ss_scenario *sc, size_t n, ss_err *err)
{
    for (size_t i = 0; i < n; i++) {
        ss_world *w = ss_world_build(&sc[i], 0, NULL, err);
        if (!w) return -1;
        ss_world_free(w);
    }
    return 0;
}

static void free_opts(opts *o)
{
    for (size_t i = 0; i < o->nsets; i++) free(o->sets[i]);
    free(o->sets);
}

/* What a scenario asks of the serving substrate beyond FIFO instances with
 * their own queues: shared queues, disciplines, scripted events. */
static void describe_substrate(const ss_scenario *sc)
{
    static const char *const disc[] = {"fifo", "ps", "preemptive-priority"};
    for (uint32_t m = 0; m < sc->nmodels; m++)
        for (size_t d = 0; d < sc->ndeploys; d++)
            if (sc->deploys[d].model == m && sc->deploys[d].shared_queue) {
                printf(", model %s: one shared queue", sc->models[m].name);
                break;
            }
    for (int k = 1; k < 3; k++) {
        size_t n = 0;
        for (size_t d = 0; d < sc->ndeploys; d++) n += sc->deploys[d].discipline == (ss_discipline)k;
        if (n) printf(", %zu %s deployment entr%s", n, disc[k], n == 1 ? "y" : "ies");
    }
    if (sc->nevents)
        printf(", %zu scripted event%s from %g s to %g s", sc->nevents, sc->nevents == 1 ? "" : "s",
               sc->events[0].at_s, sc->events[sc->nevents - 1].at_s);
    if (sc->autoscale) {
        size_t n = 0;
        for (size_t m = 0; m < sc->nmodels; m++) n += sc->autoscale->models[m];
        printf(", autoscaler %s every %g s for %zu model%s", sc->autoscale->policy.name, sc->autoscale->period_s, n,
               n == 1 ? "" : "s");
    }
    if (sc->placement)
        printf(", replicas cold-start placed by %s from storage '%s'", sc->placement->policy.name,
               ss_topo_node_name(sc->topo, sc->placement->storage));
}

static int cmd_check(int argc, char **argv)
{
    opts o = {0};
    int rc = parse_opts("check", usage_check, argc, argv, &o, 0);
    if (rc >= 0) {
        free_opts(&o);
        return rc;
    }
    ss_err err = {0};
    ss_scenario *sc = NULL;
    size_t n = 0;
    rc = EXIT_OK;
    if (load_all(&o, &sc, &n, &err) < 0 || validate_worlds(sc, n, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        rc = EXIT_BADINPUT;
    } else if (sc[0].edge) {
        const ss_edge_cfg *e = sc[0].edge;
        static const char *const wl[] = {"periodic", "scenario1", "scenario2"};
        printf("%s: ok: scenario '%s', edge device: %u worker%s, %.0f MiB, %zu network%s, workload %s "
               "(intensity %g), layer scheduler %s",
               o.scenario, sc[0].name, e->workers, e->workers == 1 ? "" : "s", e->capacity_bytes / 1048576.0,
               e->nnets, e->nnets == 1 ? "" : "s", wl[e->wl.kind], e->wl.intensity, e->scheduler.name);
        if (n > 1 || sc[0].variant[0]) {
            printf(", variants:");
            for (size_t i = 0; i < n; i++) printf(" %s", sc[i].variant);
        }
        putchar('\n');
    } else if (sc[0].llm) {
        const ss_llm_scn *l = sc[0].llm;
        static const char *const routers[] = {"round-robin", "least-tokens"};
        printf("%s: ok: scenario '%s', LLM serving: %u engine%s", o.scenario, sc[0].name, l->instances,
               l->instances == 1 ? "" : "s");
        if (l->prefill_instances)
            printf(" (%u prefill, %u decode)", l->prefill_instances, l->instances - l->prefill_instances);
        printf(" of %u layers, %u KV blocks of %u tokens each, router %s, step time %s, workload %s", l->model.layers,
               l->num_gpu_blocks, l->block_size, routers[l->router], l->gpu_path ? "roofline" : "profile",
               l->trace_path ? "trace" : "poisson");
        if (n > 1 || sc[0].variant[0]) {
            printf(", variants:");
            for (size_t i = 0; i < n; i++) printf(" %s", sc[i].variant);
        }
        putchar('\n');
    } else if (sc[0].ensemble) {
        const ss_ensemble_cfg *e = sc[0].ensemble;
        uint32_t workers = 0;
        for (uint32_t i = 0; i < e->ndevices * e->nmembers; i++) workers += e->matrix[i] != 0;
        printf("%s: ok: scenario '%s', ensemble of %u member%s on %u device%s, %u worker%s, segments of %u, ",
               o.scenario, sc[0].name, e->nmembers, e->nmembers == 1 ? "" : "s", e->ndevices,
               e->ndevices == 1 ? "" : "s", workers, workers == 1 ? "" : "s", e->segment_images);
        if (e->mode == SS_ENS_BENCHMARK) printf("benchmark of %llu images", (unsigned long long)e->images);
        else printf("deploy, %llu images per request", (unsigned long long)e->images_per_request);
        if (n > 1 || sc[0].variant[0]) {
            printf(", variants:");
            for (size_t i = 0; i < n; i++) printf(" %s", sc[i].variant);
        }
        putchar('\n');
    } else {
        size_t inst = 0;
        for (size_t d = 0; d < sc[0].ndeploys; d++) inst += sc[0].deploys[d].instances;
        printf("%s: ok: scenario '%s', %zu device%s, %zu model%s, %zu instance%s, %zu workload%s, "
               "load balancer %s, scheduler %s",
               o.scenario, sc[0].name, sc[0].ndevices, sc[0].ndevices == 1 ? "" : "s", sc[0].nmodels,
               sc[0].nmodels == 1 ? "" : "s", inst, inst == 1 ? "" : "s", sc[0].nworkloads,
               sc[0].nworkloads == 1 ? "" : "s", sc[0].load_balancer.name, sc[0].scheduler.name);
        if (sc[0].pipeline)
            printf(", block pipeline: transport %s, batch %u%s", sc[0].pipeline->transport.name,
                   sc[0].pipeline->batch, sc[0].pipeline->has_dispatcher ? ", with a dispatcher" : "");
        describe_substrate(&sc[0]);
        if (n > 1 || sc[0].variant[0]) {
            printf(", variants:");
            for (size_t i = 0; i < n; i++) printf(" %s", sc[i].variant);
        }
        putchar('\n');
        if (sc[0].topo) ss_topo_describe(sc[0].topo, stdout);
    }
    free_all(sc, n);
    free_opts(&o);
    return rc;
}

/* The plugins scenario `sc` names that its own folder `dir` holds, added
 * to p[0..n-1]: only those files are loaded (another library's constructor
 * in that folder must not run). */
static size_t named_in_folder(const ss_scenario *sc, const char *dir, ss_plugin **p, size_t n)
{
    ss_err err = {0};
    const ss_policy_cfg *named[] = {&sc->load_balancer, &sc->scheduler,
                                    sc->pipeline ? &sc->pipeline->transport : NULL,
                                    sc->edge ? &sc->edge->scheduler : NULL,
                                    sc->autoscale ? &sc->autoscale->policy : NULL,
                                    sc->placement ? &sc->placement->policy : NULL};
    for (size_t i = 0; i < sizeof named / sizeof *named; i++) {
        if (!named[i] || !named[i]->name) continue;
        char *path = ss_xasprintf("%s/%s.so", dir[0] ? dir : ".", named[i]->name);
        int dup = 0;
        for (size_t k = 0; k < n; k++) dup |= strcmp((*p)[k].pol->name, named[i]->name) == 0 && ss_same_file((*p)[k].path, path);
        ss_plugin pl;
        if (!dup && access(path, R_OK) == 0 && ss_plugin_load(&pl, named[i]->name, 0, dir, NULL, 0, 0, &err) == 0) {
            *p = ss_xrealloc(*p, (n + 1) * sizeof **p);
            (*p)[n++] = pl;
        }
        free(path);
    }
    return n;
}

static char *summary_path(const char *csv)
{
    size_t len = strlen(csv);
    if (len > 4 && strcmp(csv + len - 4, ".csv") == 0)
        return ss_xasprintf("%.*s.summary.csv", (int)(len - 4), csv);
    return ss_xasprintf("%s.summary.csv", csv);
}

static long peak_rss_kib(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
}

/* The files a run reads (every variant's scenario and model profiles) and
 * writes must all differ (issue 12: `run s.yaml -o s.yaml` destroyed it). */
static int outputs_clash(const ss_scenario *sc, size_t n, const opts *o, const char *csv_path, const char *req_path,
                         ss_err *err)
{
    size_t cap = 1, nin = 0;
    for (size_t v = 0; v < n; v++) cap += 1 + sc[v].nmodels;
    const char **ins = ss_xcalloc(cap, sizeof *ins), **in_what = ss_xcalloc(cap, sizeof *in_what);
    for (size_t v = 0; v < n; v++) {
        ins[nin] = sc[v].path;
        in_what[nin++] = "scenario";
        for (size_t m = 0; m < sc[v].nmodels; m++) {
            ins[nin] = sc[v].models[m].profile;
            in_what[nin++] = "model profile";
        }
    }
    char *spath = summary_path(csv_path);
    const char *ts_path = o->timeseries_csv ? o->timeseries_csv : sc[0].timeseries_csv_path;
    const char *outs[] = {csv_path, spath, req_path, ts_path, o->timeline, o->coldstarts_csv};
    static const char *const out_what[] = {"results CSV", "summary CSV", "requests CSV", "time-series CSV",
                                           "timeline", "cold-starts CSV"};
    int rc = ss_check_outputs(ins, in_what, nin, outs, out_what, 6, err);
    free(spath);
    free(ins);
    free(in_what);
    return rc;
}

static int cmd_run(int argc, char **argv)
{
    opts o = {0};
    o.replication = -1;
    o.tl = (ss_timeline_opts){.from_s = 0, .to_s = 60, .every = 1, .max_events = 1000000};
    int rc = parse_opts("run", usage_run, argc, argv, &o, 1);
    if (rc >= 0) {
        free_opts(&o);
        return rc;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ss_err err = {0};
    ss_scenario *sc = NULL;
    size_t n = 0;
    ss_afile csv = {0}, reqs = {0}, summary = {0}, ts = {0}, tl = {0}, cold = {0};
    int have_csv = 0, have_reqs = 0, have_summary = 0, have_ts = 0, have_tl = 0, have_cold = 0;
    uint32_t tl_pid = 1;
    ss_report *rep = NULL;
    rc = EXIT_BADINPUT;
    if (load_all(&o, &sc, &n, &err) < 0 || validate_worlds(sc, n, &err) < 0) goto out;
    for (size_t v = 0; v < n; v++)
        if (o.replication >= (long)sc[v].replications) {
            ss_err_at(&err, sc[v].path, 1, 1, "--replication %ld: the scenario has %u replication%s (0 to %u)",
                      o.replication, sc[v].replications, sc[v].replications == 1 ? "" : "s",
                      sc[v].replications - 1);
            goto out;
        }
    const char *csv_path = o.output ? o.output : sc[0].csv_path;
    const char *req_path = o.requests_csv ? o.requests_csv : sc[0].requests_csv_path;
    /* The scenario's outputs go only into folders that are there (cmd/outdir.h). */
    if (ss_outdir_scenario(&sc[0], o.output, o.requests_csv, o.timeseries_csv, o.sets, o.nsets, &err) < 0) goto out;
    /* No output may overwrite an input or another output. */
    if (outputs_clash(sc, n, &o, csv_path, req_path, &err) < 0) goto out;
    /* Open outputs before running, so an unwritable path costs no simulation. */
    if (ss_afile_open(&csv, csv_path, &err) < 0) goto out;
    have_csv = 1;
    if (req_path) {
        if (ss_afile_open(&reqs, req_path, &err) < 0) goto out;
        have_reqs = 1;
        int llm_models = 0;
        for (size_t v = 0; v < n; v++) llm_models |= ss_llm_serve_wanted(&sc[v]);
        ss_world_requests_header(reqs.fp, llm_models);
    }
    const char *ts_path = o.timeseries_csv ? o.timeseries_csv : sc[0].timeseries_csv_path;
    double ts_interval = o.timeseries_interval_s > 0 ? o.timeseries_interval_s : sc[0].timeseries_interval_s;
    for (size_t v = 0; ts_path && v < n; v++) /* a time series a person can open */
        if (isfinite(sc[v].duration_s) && sc[v].duration_s / ts_interval > 1e6) {
            ss_err_at(&err, sc[v].path, 1, 1,
                      "a time-series sample every %g s over duration_s %g is %.3g samples, more than 1e6: sample "
                      "less often",
                      ts_interval, sc[v].duration_s, sc[v].duration_s / ts_interval);
            goto out;
        }
    int ts_control = 0; /* the columns of control scenarios */
    if (ts_path) {
        if (ss_afile_open(&ts, ts_path, &err) < 0) goto out;
        have_ts = 1;
        for (size_t v = 0; v < n; v++) ts_control |= (sc[v].control ? SS_TS_CONTROL : 0) | (sc[v].llm ? SS_TS_LLM : 0) |
                                                 (ss_llm_serve_wanted(&sc[v]) ? SS_TS_LLM_MODELS : 0);
        ss_world_timeseries_header(ts.fp, ts_control);
    }
    if (o.coldstarts_csv) {
        for (size_t v = 0; v < n; v++)
            if (!sc[v].placement) {
                ss_err_at(&err, sc[v].path, 0, 0,
                          "--coldstarts-csv: %s%s%shas no `placement:` section, so no replica cold-starts",
                          sc[v].variant[0] ? "variant '" : "", sc[v].variant, sc[v].variant[0] ? "' " : "");
                goto out;
            }
        if (ss_afile_open(&cold, o.coldstarts_csv, &err) < 0) goto out;
        have_cold = 1;
        ss_world_coldstarts_header(cold.fp);
    }
    if (o.timeline) {
        if (ss_afile_open(&tl, o.timeline, &err) < 0) goto out;
        have_tl = 1;
        ss_timeline_begin(tl.fp);
    }
    rc = EXIT_FAIL;
    rep = ss_report_new();
    uint64_t events = 0;
    double sim_wall = 0;
    size_t peak_flight = 0;
    for (size_t v = 0; v < n; v++) {
        for (uint32_t r = 0; r < sc[v].replications; r++) {
            if (o.replication >= 0 && r != (uint32_t)o.replication) continue;
            ss_world *w = ss_world_build(&sc[v], r, have_reqs ? reqs.fp : NULL, &err);
            if (!w) goto out; /* validated above; only a plugin's init can still refuse */
            if (have_ts) ss_world_timeseries(w, ts.fp, ts_interval, ts_control);
            if (have_cold) ss_world_coldstarts(w, cold.fp);
            if (have_tl) tl_pid = ss_world_timeline(w, tl.fp, &o.tl, tl_pid);
            char label[160];
            snprintf(label, sizeof label, "%s rep %u", sc[v].variant[0] ? sc[v].variant : sc[v].name, r);
            void *progress = !o.quiet && isatty(2) ? ss_world_progress(w, stderr, label) : NULL;
            ss_world_run(w);
            ss_world_progress_end(progress);
            if (ss_world_broken(w)) { /* a bug of the simulator: the run failed */
                err.set = 1;
                snprintf(err.msg, sizeof err.msg, "servesim: internal check failed after %s replication %u: %s",
                         sc[v].variant[0] ? sc[v].variant : sc[v].name, r, ss_world_broken(w));
                ss_world_free(w);
                goto out;
            }
            ss_run_result res;
            ss_world_result(w, &res);
            events += res.events;
            sim_wall += res.wall_s;
            if (res.peak_in_flight > peak_flight) peak_flight = res.peak_in_flight;
            ss_world_free(w);
            ss_report_add(rep, &sc[v], &res);
        }
    }
    ss_report_csv(rep, csv.fp);
    /* No summary beside the standard output. */
    char *spath = strcmp(csv_path, "-") == 0 ? NULL : summary_path(csv_path);
    int stale = 0;
    if (spath) {
        if (ss_afile_open(&summary, spath, &err) < 0) {
            free(spath);
            goto out;
        }
        have_summary = 1;
        if (!ss_report_summary_csv(rep, summary.fp)) {
            ss_afile_abort(&summary); /* one replication per variant: no summary, and none left from before */
            have_summary = 0;
            stale = 1;
        }
    }
    /* Every output together: all renamed into place, or none (a full disk under the requests CSV
     * leaves no results CSV either). */
    ss_afile *all[6];
    size_t nall = 0;
    if (have_summary) all[nall++] = &summary;
    all[nall++] = &csv;
    if (have_reqs) all[nall++] = &reqs;
    if (have_ts) all[nall++] = &ts;
    if (have_cold) all[nall++] = &cold;
    if (have_tl) {
        ss_timeline_end(tl.fp);
        all[nall++] = &tl;
    }
    int committed = ss_afile_commit_all(all, nall, &err) == 0;
    have_summary = have_csv = have_reqs = have_ts = have_cold = have_tl = 0;
    if (committed && stale && unlink(spath) < 0 && errno != ENOENT)
        fprintf(stderr, "servesim: warning: cannot remove stale %s: %s\n", spath, strerror(errno));
    free(spath);
    if (!committed) {
        rc = EXIT_FAIL;
        goto out;
    }
    if (!o.quiet) {
        int same = 1; /* variants may set their own replications */
        for (size_t v = 1; v < n; v++) same &= sc[v].replications == sc[0].replications;
        /* The banner is a log line (stderr); the table alone is data (stdout). */
        fflush(stdout);
        if (same)
            fprintf(stderr, "servesim: %s, seed %llu, %zu variant%s x %u replication%s -> %s\n", sc[0].name,
                    (unsigned long long)sc[0].seed, n, n == 1 ? "" : "s", sc[0].replications,
                    sc[0].replications == 1 ? "" : "s", csv_path);
        else
            fprintf(stderr, "servesim: %s, seed %llu, %zu variants with their own replications -> %s\n", sc[0].name,
                    (unsigned long long)sc[0].seed, n, csv_path);
        ss_report_print(rep, stdout);
        fflush(stdout);
        ss_report_warn(rep, stderr); /* a run that did not keep up: a log line, after the table */
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (o.stats) {
        double wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        fprintf(stderr,
                "stats: events %llu, event-loop wall %.3f s, %.2f M events/s, total wall %.3f s, "
                "peak requests in flight %zu, peak RSS %.1f MiB\n",
                (unsigned long long)events, sim_wall, sim_wall > 0 ? (double)events / sim_wall / 1e6 : 0.0, wall,
                peak_flight, (double)peak_rss_kib() / 1024.0);
    }
    rc = EXIT_OK;
out:
    if (err.set) fprintf(stderr, "%s\n", err.msg);
    if (have_csv) ss_afile_abort(&csv);
    if (have_reqs) ss_afile_abort(&reqs);
    if (have_summary) ss_afile_abort(&summary);
    if (have_ts) ss_afile_abort(&ts);
    if (have_tl) ss_afile_abort(&tl);
    if (have_cold) ss_afile_abort(&cold);
    ss_report_free(rep);
    free_all(sc, n);
    free_opts(&o);
    return rc;
}

static int cmd_sweep(int argc, char **argv)
{
    ss_cli c = {0};
    long jobs = sysconf(_SC_NPROCESSORS_ONLN);
    int resume = 0, force = 0, rc = EXIT_OK;
    double horizon_s = 0; /* --duration */
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        int t = ss_cli_take(&c, "sweep", argc, argv, &i);
        if (t == 1) continue;
        if (t) {
            rc = t;
            goto done;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage_sweep, stdout);
            goto done;
        } else if (strcmp(a, "-j") == 0 || strcmp(a, "--jobs") == 0 || strncmp(a, "-j", 2) == 0) {
            const char *v = a[1] == 'j' && a[2] ? a + 2 : val;
            if (v == val) i++;
            char *end;
            jobs = v ? strtol(v, &end, 10) : 0;
            if (!v || *end || !v[0] || jobs < 1 || jobs > 4096) {
                rc = ss_bad_usage("sweep", "-j expects a number of jobs from 1 to 4096, got '%s'", v ? v : "");
                goto done;
            }
        } else if (strcmp(a, "--duration") == 0) {
            if (!val) {
                rc = ss_bad_usage("sweep", "%s needs a value", a);
                goto done;
            }
            i++;
            if ((rc = parse_duration("sweep", val, &horizon_s)) >= 0) goto done;
            rc = EXIT_OK;
        } else if (strcmp(a, "--resume") == 0) {
            resume = 1;
        } else if (strcmp(a, "--force") == 0) {
            force = 1;
        } else {
            rc = ss_bad_usage("sweep", "unknown option '%s'", a);
            goto done;
        }
    }
    const char *path = ss_scenario_locate(c.path), *output = c.output;
    int quiet = c.quiet;
    if (!path) {
        rc = ss_bad_usage("sweep", "%s", "missing SWEEP.yaml");
        goto done;
    }
    int ranks = ss_mpi_start(NULL, NULL), rank = ss_mpi_rank();
    ss_err err = {0};
    ss_sweep *sw = ss_sweep_load(path, c.sets, c.nsets, horizon_s, &err);
    ss_sweep_sink *sink = NULL;
    if (!sw) {
        rc = EXIT_BADINPUT;
    } else if (rank > 0) {
        ss_sweep_run_mpi_worker(sw);
    } else {
        const char *out = output ? output : ss_sweep_output(sw);
        const char *ins[] = {path, ss_sweep_base(sw)}, *outs[] = {out};
        static const char *const in_what[] = {"sweep file", "base scenario"}, *const out_what[] = {"results CSV"};
        int there = output || ss_outdir_check(out, path, NULL, "output", "the results CSV", "-o PATH",
                                              "results/<name>.csv: the sweep names no output", &err) == 0;
        if (there && ss_check_outputs(ins, in_what, 2, outs, out_what, 1, &err) == 0)
            sink = ss_sweep_sink_open(sw, out, resume, force, !quiet && isatty(2), &err);
        int drc;
        if (ranks > 1) drc = ss_sweep_run_mpi_master(sw, sink, &err);
        else drc = sink ? ss_sweep_run_local(sw, sink, (unsigned)jobs, &err) : 0;
        if (!sink) {
            rc = EXIT_BADINPUT;
        } else {
            size_t present = ss_sweep_sink_present(sink), failed = ss_sweep_sink_close(sink);
            rc = drc < 0 || failed ? EXIT_FAIL : EXIT_OK;
            if (!quiet && drc == 0) /* a log line: stderr */
                fprintf(stderr, "sweep: %zu points, %zu runs (%zu already there, %zu failed) -> %s\n",
                        ss_sweep_points(sw), ss_sweep_units(sw), present, failed, out);
        }
    }
    if (err.set && rank == 0) fprintf(stderr, "%s\n", err.msg);
    ss_sweep_free(sw);
    ss_mpi_stop();
done:
    ss_cli_free(&c);
    return rc;
}

static int cmd_plugins(int argc, char **argv)
{
    const char *scen = NULL;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(usage_plugins, stdout);
            return EXIT_OK;
        }
        if (argv[i][0] == '-' || scen) return ss_bad_usage("plugins", "unexpected argument '%s'", argv[i]);
        scen = argv[i];
    }
    ss_scenario sc;
    ss_err err = {0};
    if (scen && ss_scenario_load(&sc, scen, NULL, NULL, 0, &err) < 0) { /* bad input, said before any listing */
        fprintf(stderr, "%s\n", err.msg);
        ss_scenario_free(&sc);
        return EXIT_BADINPUT;
    }
    char *dir = scen ? ss_dirname(scen) : NULL;
    char **dirs = ss_plugin_dirs(dir);
    printf("search path:\n");
    for (size_t i = 0; dirs[i]; i++) printf("  %s\n", dirs[i]);
    ss_plugin_dirs_free(dirs);
    ss_plugin *p = NULL;
    size_t n = ss_plugin_scan(NULL, &p); /* the plugin folders: every .so there is a plugin */
    if (scen) {
        n = named_in_folder(&sc, dir, &p, n);
        ss_scenario_free(&sc);
    }
    printf("%-16s %-15s %-4s %s\n", "name", "kind", "abi", "summary / file");
    for (size_t i = 0; i < n; i++) {
        printf("%-16s %-15s %-4u %s\n", p[i].pol->name, ss_policy_kind_name(p[i].pol->kind), p[i].pol->abi,
               p[i].pol->summary ? p[i].pol->summary : "");
        printf("%-37s %s\n", "", p[i].path);
        ss_plugin_unload(&p[i]);
    }
    free(p);
    free(dir);
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_main, stderr);
        return EXIT_BADINPUT;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage_main, stdout);
        return EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("servesim %s (policy ABI %u)\n", SS_VERSION, SS_POLICY_ABI);
        return EXIT_OK;
    }
    const char *opt = NULL, *val = NULL;
    if (ss_limits_take_args(&argc, argv, 2, &opt, &val) < 0) {
        char msg[256];
        snprintf(msg, sizeof msg, "%s expects a size in bytes (e.g. 100000000, 512M, 16G), got %s%.64s%s", opt,
                 val ? "'" : "nothing", val ? val : "", val ? "'" : "");
        return ss_bad_usage(cmd, "%s", msg);
    }
    if (strcmp(cmd, "run") == 0) return cmd_run(argc - 2, argv + 2);
    if (strcmp(cmd, "check") == 0) return cmd_check(argc - 2, argv + 2);
    if (strcmp(cmd, "plugins") == 0) return cmd_plugins(argc - 2, argv + 2);
    if (strcmp(cmd, "sweep") == 0) return cmd_sweep(argc - 2, argv + 2);
    if (strcmp(cmd, "compare") == 0) return ss_cmd_compare(argc - 2, argv + 2);
    if (strcmp(cmd, "flows") == 0) return ss_cmd_flows(argc - 2, argv + 2);
    if (strcmp(cmd, "plan") == 0) return ss_cmd_plan(argc - 2, argv + 2);
    if (strcmp(cmd, "partition") == 0) return ss_cmd_partition(argc - 2, argv + 2);
    if (strcmp(cmd, "tune") == 0) return ss_cmd_tune(argc - 2, argv + 2);
    if (strcmp(cmd, "calibrate") == 0) return ss_cmd_calibrate(argc - 2, argv + 2);
    if (strcmp(cmd, "validate") == 0) return ss_cmd_validate(argc - 2, argv + 2);
    if (strcmp(cmd, "optimize") == 0) return ss_cmd_optimize(argc - 2, argv + 2);
    if (strcmp(cmd, "plot") == 0) return ss_cmd_plot(argc - 2, argv + 2);
    static const char *const cmds[] = {"run", "check", "plugins", "sweep", "compare", "flows", "plan", "partition", "tune",
                                       "calibrate", "validate", "optimize", "plot", NULL};
    const char *near = ss_suggest(cmd, cmds);
    fprintf(stderr, "servesim: unknown command '%s'%s%s%s\n%s", cmd, near ? " (did you mean '" : "",
            near ? near : "", near ? "'?)" : "", usage_main);
    return EXIT_BADINPUT;
}
