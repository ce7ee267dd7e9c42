/* fuzz_transfers.c: libFuzzer harness for the transfer list reader of
 * `servesim flows` (ss_transfers_read, sim/cmd/flows_cmd.c): the input is
 * a transfers CSV (`start_s,src,dst,bytes`) for the fixed topology
 * topologies/three-hosts-one-tor.yaml (nodes tor, host1..host3 and their
 * devices, store; host indices 0..2).  A list that loads must hold what
 * the replay relies on: each transfer's start and size finite and >= 0,
 * its ends nodes of the topology with a route between them, and no finish
 * yet.  Seeds: tests/fuzz/transfers/. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/flows_cmd.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ss_topo *topo;
    ss_err err = {0};
    if (!topo) {
        char *tp = ss_xasprintf("%s/topologies/three-hosts-one-tor.yaml", fuzz_dir());
        if (!(topo = ss_topo_load(tp, &err))) {
            fprintf(stderr, "fuzz: the fixed topology does not load: %s\n", err.msg);
            abort();
        }
        free(tp);
    }
    char *path = fuzz_write("transfers.csv", data, size);
    ss_transfer *t = NULL;
    size_t n = 0;
    int rc = ss_transfers_read(topo, path, &t, &n, &err);
    fuzz_check(rc, &err);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        double lat;
        if (!isfinite(t[i].start_s) || t[i].start_s < 0 || !isfinite(t[i].bytes) || t[i].bytes < 0 ||
            t[i].src >= ss_topo_nnodes(topo) || t[i].dst >= ss_topo_nnodes(topo) || !isnan(t[i].finish_s) ||
            ss_topo_route(topo, t[i].src, t[i].dst, 0, NULL, 0, &lat) == SS_TOPO_NO_ROUTE) {
            fprintf(stderr, "fuzz: transfer %zu (start %g s, %g bytes, nodes %u to %u) cannot be replayed\n", i,
                    t[i].start_s, t[i].bytes, t[i].src, t[i].dst);
            abort();
        }
    }
    free(t);
    free(path);
    return 0;
}
