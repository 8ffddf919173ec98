#include "atomic_file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int cp_atomic_open(cp_atomic_file *a, const char *path, cp_error *err)
{
    memset(a, 0, sizeof *a);
    if (!path || strcmp(path, "-") == 0) {
        a->f = stdout;
        return 0;
    }
    if (strlen(path) >= sizeof a->path)
        return cp_fail(err, path, NULL, "path too long");
    snprintf(a->path, sizeof a->path, "%s", path);
    snprintf(a->tmp, sizeof a->tmp, "%s.tmp.%ld", path, (long)getpid());
    a->f = fopen(a->tmp, "w");
    if (!a->f)
        return cp_fail(err, path, NULL, "cannot write: %s", strerror(errno));
    return 0;
}

int cp_atomic_commit(cp_atomic_file *a, cp_error *err)
{
    if (a->f == stdout) {
        if (fflush(stdout) != 0)
            return cp_fail(err, "<stdout>", NULL, "write error: %s", strerror(errno));
        return 0;
    }
    int bad = ferror(a->f) || fflush(a->f) != 0 || fsync(fileno(a->f)) != 0;
    int saved = errno;
    if (fclose(a->f) != 0)
        bad = 1;
    a->f = NULL;
    if (bad || rename(a->tmp, a->path) != 0) {
        if (!bad)
            saved = errno;
        remove(a->tmp);
        return cp_fail(err, a->path, NULL, "write failed: %s", strerror(saved));
    }
    return 0;
}

void cp_atomic_abort(cp_atomic_file *a)
{
    if (a->f && a->f != stdout) {
        fclose(a->f);
        remove(a->tmp);
    }
    a->f = NULL;
}

int cp_atomic_write(const char *path, int (*fn)(FILE *, const void *, int), const void *what, int arg,
                    cp_error *err)
{
    cp_atomic_file a;
    if (cp_atomic_open(&a, path, err))
        return -1;
    if (fn(a.f, what, arg)) {
        cp_atomic_abort(&a);
        cp_fail(err, path && strcmp(path, "-") ? path : "<stdout>", NULL, "write error");
        return -2;
    }
    return cp_atomic_commit(&a, err) ? -2 : 0;
}
