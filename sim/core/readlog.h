/* readlog.h: the input files a process reads, for two kinds of callers:
 *
 *  - those that must know every file an input depends on (a sweep's
 *    fingerprint: a resumed sweep is refused when any of them changed): a
 *    log, off until ss_read_log_start();
 *  - the output files (afile.c): an output path that is any file the
 *    command read - by whatever path, through links - is refused, so no
 *    command overwrites its own input.  This set is always kept.
 *
 * Every reader of input files notes its path here (ss_open_input does, under
 * ss_read_file and the trace reader, so YAML, JSON, CSV and trace inputs
 * are covered; the plugin loader notes its plugins' identity).
 * Process-wide, which is fine for the single-threaded loading it watches. */
#ifndef SS_READLOG_H
#define SS_READLOG_H

#include <stddef.h>

/* Start recording (an earlier, untaken log is dropped). */
void ss_read_log_start(void);
/* Note that `path` is read, into the log while it is on. */
void ss_read_log_note(const char *path);
/* Note the file of identity (dev, ino), opened as `path`, into the set of
 * inputs (always kept; the reader has the identity from its fstat). */
void ss_read_note_input(const char *path, unsigned long long dev, unsigned long long ino);
/* While paused (1), reads note nothing: a command reading back what it
 * writes itself (a resumed sweep's results and checksums), which is not an
 * input.  Pause and resume (0) around those reads only. */
void ss_read_note_pause(int paused);
/* The path by which the file of identity (dev, ino) was read, or NULL if
 * the process read no such file. */
const char *ss_read_input_path(unsigned long long dev, unsigned long long ino);
/* Stop recording; the distinct paths read, in first-read order, *n of
 * them (newly allocated, each string too; NULL if none). */
char **ss_read_log_take(size_t *n);

#endif
