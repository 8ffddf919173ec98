#include "hostinfo.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cm_driver_version(char *out, size_t size)
{
    snprintf(out, size, "unknown");
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
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
