/* test_pipeline_slots.c: `pipeline.slots` (issue 41 item 5(ii); pipeline_cfg.h,
 * pipeline.c): a hop between two processes as a ring of slots, as the probe's
 * shm-handle has (16 per hop); a message holds its slot from its send until its
 * receiver's batch ends, and a sender that finds the ring full blocks.  Hand
 * cases to 1e-9.
 *
 * Blocks f (1 s) then s (3 s), free hops, three requests at 0 s.  Without a
 * ring: f ends them at 1, 2, 3 s; s serves 1-4, 4-7, 7-10, so the requests
 * wait at s 0, 2 and 4 s (mean 2 s) and at f 0, 1 and 2 s (mean 1 s).  With one
 * slot: the second request, done at f at 2 s, finds s's ring held by the first
 * until 4 s, so f's main thread blocks until then and starts the third at 4 s,
 * done at 5 s, blocked until 7 s: they wait at s 0, 0, 0 s and at f 0, 1, 4 s
 * (mean 5/3 s).  s ends them at 4, 7, 10 s either way (it is the bottleneck). */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "test_blockflow.h"

static const char *const split =
    "{\"name\": \"fs\", \"process\": {\"context_vram_mib\": 370, \"host_ram_mib\": 700},\n"
    " \"blocks\": [{\"name\": \"f\", \"in_bytes_per_sample\": 1000, \"out_bytes_per_sample\": 1000,\n"
    "   \"service\": {\"dist\": \"deterministic\", \"value_s\": 1}, \"vram\": {\"process_mib\": 400}},\n"
    "  {\"name\": \"s\", \"in_bytes_per_sample\": 1000, \"out_bytes_per_sample\": 1000,\n"
    "   \"service\": {\"dist\": \"deterministic\", \"value_s\": 3}, \"vram\": {\"process_mib\": 400}}]}\n";

static char *scenario(const char *dir)
{
    free(ss_test_write(dir, "models/fs.json", split));
    free(ss_test_write(dir, "three.csv", "timestamp_s\n0\n0\n0\n"));
    return ss_test_write(dir, "s.yaml",
                         "seed: 1\nduration_s: 20\n"
                         "hosts: [{name: h, devices: [{name: gpu0, kind: gpu}, {name: gpu1, kind: gpu}]}]\n"
                         "models:\n"
                         "  - {name: f, split: fs, block: f}\n"
                         "  - {name: s, split: fs, block: s}\n"
                         "tasks: [{name: p, path: [f, s]}]\n"
                         "deployment: [{model: f, device: gpu0}, {model: s, device: gpu1}]\n"
                         "workloads:\n"
                         "  - {name: w, kind: trace, target: p, file: three.csv}\n"
                         "pipeline:\n"
                         "  transport: {name: zmq-copy, block_fixed_s: 0, block_in_s_per_byte: 0,\n"
                         "              block_out_s_per_byte: 0, delivery_fixed_s: 0, delivery_s_per_byte: 0}\n");
}

static void one_slot_blocks_the_sender(void)
{
    char *dir = ss_test_tmpdir(), *path = scenario(dir);
    char *none[] = {"pipeline.slots=0"}, *one[] = {"pipeline.slots=1"}, *many[] = {"pipeline.slots=3"};
    CU_ASSERT(fabs(run_extra(path, NULL, none, 1, "wait_ms_s", NULL) - 2000) <= 1e-6);
    CU_ASSERT(fabs(run_extra(path, NULL, none, 1, "wait_ms_f", NULL) - 1000) <= 1e-6);
    CU_ASSERT(fabs(run_extra(path, NULL, one, 1, "wait_ms_s", NULL) - 0) <= 1e-6);
    CU_ASSERT(fabs(run_extra(path, NULL, one, 1, "wait_ms_f", NULL) - 5000.0 / 3) <= 1e-6);
    /* a ring as deep as the backlog never blocks: as without one */
    CU_ASSERT(fabs(run_extra(path, NULL, many, 1, "wait_ms_s", NULL) - 2000) <= 1e-6);
    CU_ASSERT(fabs(run_extra(path, NULL, many, 1, "wait_ms_f", NULL) - 1000) <= 1e-6);
    free(path);
    ss_test_rmtree(dir);
}

SS_TEST_SUITE("pipeline-slots", {"one slot blocks the sender; a deep ring does nothing", one_slot_blocks_the_sender})
