/* trace.h: loading request-arrival traces from CSV.
 *
 * Two formats (traces/README.md documents both):
 *   servesim: a header line whose first column is `timestamp_s`, then one
 *             arrival per line, first column seconds (any origin).
 *   azure:    the Azure LLM inference trace as published, header
 *             `TIMESTAMP,ContextTokens,GeneratedTokens`, timestamps
 *             `YYYY-MM-DD HH:MM:SS.fffffff` (UTC, 100 ns ticks).
 * The format is recognised from the header.  Times are returned relative to
 * the first arrival, scaled by `time_scale` (0.5 = replay twice as fast),
 * and must not decrease.  Any unparsable line is an error naming
 * file:line:col. */
#ifndef SS_TRACE_H
#define SS_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "core/util.h"

int ss_trace_load(const char *path, double time_scale, double **times_s, size_t *n, ss_err *err);
/* The same with each request's token counts, for LLM workloads: the Azure
 * trace's ContextTokens and GeneratedTokens, or a servesim trace whose
 * header is `timestamp_s,prompt_tokens,output_tokens`; each a whole number
 * from 1 to 1e9 (a row without them: file:line:col). */
/* Does the trace's header announce each request's token counts (a servesim
 * trace's `timestamp_s,prompt_tokens,output_tokens`, or the Azure trace)?
 * 0 also where it cannot be read (ss_trace_load then says why). */
int ss_trace_has_tokens(const char *path);
int ss_trace_load_tokens(const char *path, double time_scale, double **times_s, uint32_t **prompt_tokens,
                         uint32_t **output_tokens, size_t *n, ss_err *err);

#endif
