/* afile.h: output files that appear whole or not at all, and never in
 * place of an input.
 *
 * Writes go to a temporary file beside the target ("<path>.tmp.XXXXXX");
 * commit flushes, fsyncs and renames it over the target; abort unlinks it.
 * A crash or a bad-input exit therefore never leaves a half-written result,
 * and SIGINT, SIGTERM, SIGHUP or SIGQUIT leave no temporary file behind
 * (a handler unlinks the open ones, then the signal takes its course).
 * Missing parent folders of the target are created, and removed again
 * when the output is aborted and they are empty.
 *
 * An output path is refused (ss_afile_check, which ss_afile_open makes
 * first) when it is a folder, a FIFO, a device or a socket (a rename
 * would replace the device with a file, a FIFO would wait for a reader),
 * or any file the process has read as an input (core/readlog.h: the same
 * device and inode, so through hard and symbolic links too).  The path
 * "-" is the standard output, written as it goes (a pipe's reader, a
 * terminal): no temporary file, commit flushes it.  Open fails
 * on what the user named (exit 2); commit fails on what the machine could
 * not do, a full disk say (exit 1). */
#ifndef SS_AFILE_H
#define SS_AFILE_H

#include <stdio.h>
#include "core/util.h"

typedef struct ss_afile {
    FILE *fp;    /* write through this */
    char *path;  /* final path */
    char *tmp;   /* temporary path */
} ss_afile;

/* 0 if path may be an output (above), else -1 with err set. */
int ss_afile_check(const char *path, ss_err *err);
/* 0 ok, -1 with err set ("path: cannot create: reason"). */
int ss_afile_open(ss_afile *f, const char *path, ss_err *err);
int ss_afile_commit(ss_afile *f, ss_err *err);
/* The outputs of one command together: every one flushed and synced
 * first, and renamed into place only when all of them were; if one fails
 * (a full disk), none appears and every temporary is removed.  0, or -1
 * with err naming the one that failed. */
int ss_afile_commit_all(ss_afile *const *fs, size_t n, ss_err *err);
void ss_afile_abort(ss_afile *f);
/* In a forked child: the parent's temporary files are not this process's
 * to remove; forget them (and the signal handlers that would). */
void ss_afile_forget(void);

/* Write s as one CSV field (quoted if it holds a comma, quote or newline). */
void ss_csv_field(FILE *fp, const char *s);

#endif
