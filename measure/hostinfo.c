#include "hostinfo.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cm_json_safe(char *s)
{
    for (; *s; s++)
        if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20)
            *s = '_';
}

static FILE *open_under(const char *proc, const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", proc, rel);
    return fopen(path, "r");
}

/* The value of the first "KEY<blanks>: value" line of f, trimmed, its
 * quotes, backslashes and control characters made '_': 1, else 0. */
static int colon_field(FILE *f, const char *key, char *out, size_t size)
{
    char line[1024];
    size_t n = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, n) != 0)
            continue;
        char *v = line + n;
        v += strspn(v, " \t");
        if (*v != ':')
            continue;
        v++;
        v += strspn(v, " \t");
        size_t len = strlen(v);
        while (len > 0 && isspace((unsigned char)v[len - 1]))
            v[--len] = 0;
        snprintf(out, size, "%s", v);
        cm_json_safe(out);
        return 1;
    }
    return 0;
}

void cm_cpu_model(const char *proc, char *out, size_t size)
{
    snprintf(out, size, "unknown");
    FILE *f = open_under(proc, "cpuinfo");
    if (!f)
        return;
    if (!colon_field(f, "model name", out, size) || !out[0])
        snprintf(out, size, "unknown");
    fclose(f);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int cm_node_gpus(const char *proc, char names[][CM_GPU_NAME_SIZE], int max)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/driver/nvidia/gpus", proc);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    enum { MAX_BUSES = 64 };
    char *bus[MAX_BUSES];
    int nb = 0;
    for (struct dirent *e; nb < MAX_BUSES && (e = readdir(d)) != NULL;)
        if (e->d_name[0] != '.' && (bus[nb] = strdup(e->d_name)) != NULL)
            nb++;
    closedir(d);
    qsort(bus, (size_t)nb, sizeof bus[0], by_name); /* bus ids ("0000:18:00.0") sort in bus order */
    int n = 0;
    for (int i = 0; i < nb; i++) {
        char rel[512];
        snprintf(rel, sizeof rel, "driver/nvidia/gpus/%.256s/information", bus[i]);
        FILE *f = open_under(proc, rel);
        if (f && n < max && colon_field(f, "Model", names[n], CM_GPU_NAME_SIZE))
            n++;
        if (f)
            fclose(f);
        free(bus[i]);
    }
    return n;
}

void cm_driver_version(const char *proc, char *out, size_t size)
{
    snprintf(out, size, "unknown");
    FILE *f = open_under(proc, "driver/nvidia/version");
    if (!f)
        return;
    char line[512];
    if (fgets(line, sizeof line, f)) {
        for (char *tok = strtok(line, " \t\n"); tok; tok = strtok(NULL, " \t\n"))
            if (isdigit((unsigned char)tok[0]) && strchr(tok, '.')) {
                snprintf(out, size, "%s", tok);
                break;
            }
    }
    fclose(f);
}

void cm_git_commit(char *out, size_t size)
{
    const char *env = getenv("CNNPERF_GIT_COMMIT");
    snprintf(out, size, "%s", env && *env ? env : "unknown");
    if (env && *env)
        return;
    FILE *p = popen("git rev-parse HEAD 2>/dev/null", "r");
    if (!p)
        return;
    char line[128];
    if (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\r\n")] = 0;
        if (line[0])
            snprintf(out, size, "%s", line);
    }
    pclose(p);
    if (strcmp(out, "unknown") == 0)
        return;
    /* tracked files that differ from HEAD: what ran is not that commit (a
     * copy of a working tree over an older checkout shows up here too) */
    p = popen("git status --porcelain --untracked-files=no 2>/dev/null", "r");
    if (!p)
        return;
    if (fgets(line, sizeof line, p)) {
        size_t n = strlen(out);
        snprintf(out + n, size - n, "+modified");
    }
    pclose(p);
}
