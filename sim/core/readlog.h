/* readlog.h: a log of the input files a process reads, for callers that
 * must know every file an input depends on (a sweep's fingerprint: a
 * resumed sweep is refused when any of them changed).
 *
 * Every reader of input files notes its path here (ss_read_file does, so
 * YAML, JSON and CSV inputs are covered; the trace reader does too).  The
 * log is off until ss_read_log_start(); it is process-wide, which is fine
 * for the single-threaded loading it watches. */
#ifndef SS_READLOG_H
#define SS_READLOG_H

#include <stddef.h>

/* Start recording (an earlier, untaken log is dropped). */
void ss_read_log_start(void);
/* Note that `path` was read (nothing while the log is off). */
void ss_read_log_note(const char *path);
/* Stop recording; the distinct paths read, in first-read order, *n of
 * them (newly allocated, each string too; NULL if none). */
char **ss_read_log_take(size_t *n);

#endif
