/* flows_cmd.h: `servesim flows` - transfer-list replay on a topology with
 * the max-min flow model (see flows_cmd.c for the formats). */
#ifndef SS_FLOWS_CMD_H
#define SS_FLOWS_CMD_H

#include <stddef.h>
#include <stdint.h>

#include "core/util.h"
#include "net/topo.h"

/* One transfer of a list: when it starts, its ends (topology nodes) and
 * size; finish_s is NAN until the replay sets it. */
typedef struct ss_transfer {
    double start_s, bytes, finish_s;
    uint32_t src, dst;
} ss_transfer;

/* Read a transfer list (`start_s,src,dst,bytes` per line, the header
 * optional, blank lines skipped) for topology `topo`: *out (malloc'd, in
 * file order) and *n.  0, or -1 with err set ("file:line:col: message"): a
 * line without 4 fields, a time or size that is not a finite number >= 0,
 * an unknown node or host index, two ends without a route. */
int ss_transfers_read(const ss_topo *topo, const char *path, ss_transfer **out, size_t *n, ss_err *err);

/* argv after "flows".  Exit status 0, 1 (an output could not be written),
 * or 2 on bad input. */
int ss_cmd_flows(int argc, char **argv);

#endif
