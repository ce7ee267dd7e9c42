/* fuzz_topo.c: libFuzzer harness for the topology reader (ss_topo_load,
 * sim/net/topo_read.c and topo_host.c): the input is a topology YAML file;
 * host type files may be named as hosts/<file> (the repository's
 * topologies/hosts/).  Seeds: tests/fuzz/topo/. */
#include <stdlib.h>

#include "fuzz.h"
#include "net/topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *path = fuzz_write("topology.yaml", data, size);
    ss_err err = {0};
    ss_topo *t = ss_topo_load(path, &err);
    fuzz_check(t ? 0 : -1, &err);
    ss_topo_free(t);
    free(path);
    return 0;
}
