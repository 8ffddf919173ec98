/* atomic_file: results are written to a temporary file beside the target
 * and renamed over it only when complete, so an interrupted run never leaves
 * a half-written file or destroys an earlier one. */
#ifndef CP_ATOMIC_FILE_H
#define CP_ATOMIC_FILE_H

#include <stdio.h>

#include "cp_error.h"

typedef struct {
    FILE *f;
    char path[1024];
    char tmp[1040];
} cp_atomic_file;

/* path "-" or NULL means standard output (nothing to rename). */
int cp_atomic_open(cp_atomic_file *a, const char *path, cp_error *err);
/* Flushes, syncs and renames; on any earlier write error removes the temporary. */
int cp_atomic_commit(cp_atomic_file *a, cp_error *err);
void cp_atomic_abort(cp_atomic_file *a);

/* The whole round: open, fn(f, what, arg) (0, or -1 on a write error),
 * commit. Returns 0; -1 when path cannot be opened; -2 when writing or
 * renaming failed (the earlier file, if any, is untouched). err says why. */
int cp_atomic_write(const char *path, int (*fn)(FILE *, const void *, int), const void *what, int arg,
                    cp_error *err);

#endif
