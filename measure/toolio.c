/* toolio: see toolio.h. */
#include "toolio.h"

#include "hostinfo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int cm_arg_ll(const char *s, long long lo, long long hi, long long *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || !*s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

typedef struct {
    char command[1024], host[256], date[32], driver[64], cpu[256];
    char gpus[16][CM_GPU_NAME_SIZE];
    int n_gpus;
    long cpus; /* online, or -1 */
    const char *commit; /* $CNNPERF_GIT_COMMIT or "unknown" */
} stamp;

/* The command's quotes, backslashes and control characters become '_', so
 * each member prints as a JSON string as it is. */
static void stamp_now(stamp *s, int argc, char **argv)
{
    memset(s, 0, sizeof *s);
    snprintf(s->host, sizeof s->host, "?");
    snprintf(s->date, sizeof s->date, "?");
    gethostname(s->host, sizeof s->host - 1);
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(s->date, sizeof s->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    for (int i = 0; i < argc; i++)
        snprintf(s->command + strlen(s->command), sizeof s->command - strlen(s->command), "%s%s", i ? " " : "",
                 argv[i]);
    cm_json_safe(s->command); /* the JSON writers print it between quotes as it is */
    /* no GPU takes part in these tools' runs, but the node's GPUs say which
     * machine of a call it was, and the CPU sets a server's pace */
    cm_driver_version("/proc", s->driver, sizeof s->driver);
    cm_cpu_model("/proc", s->cpu, sizeof s->cpu);
    s->n_gpus = cm_node_gpus("/proc", s->gpus, (int)(sizeof s->gpus / sizeof s->gpus[0]));
    s->cpus = sysconf(_SC_NPROCESSORS_ONLN);
    s->commit = getenv("CNNPERF_GIT_COMMIT");
    if (!s->commit || strpbrk(s->commit, "\"\\"))
        s->commit = "unknown";
}

FILE *cm_json_open(const char *prog, const char *format, const char *out, char *tmp, size_t tmp_size, int argc,
                   char **argv)
{
    stamp s;
    stamp_now(&s, argc, argv);
    FILE *f = stdout;
    if (out) {
        snprintf(tmp, tmp_size, "%s.tmp", out);
        f = fopen(tmp, "w");
        if (!f) {
            fprintf(stderr, "%s: %s: %s\n", prog, tmp, strerror(errno));
            return NULL;
        }
    }
    fprintf(f,
            "{\n \"format\": \"%s\",\n \"provenance\": {\"command\": \"%s\", \"hostname\": \"%s\", \"date_utc\": \"%s\", "
            "\"git_commit\": \"%s\", \"cpu_model\": \"%s\", \"cpu_count\": %ld, \"driver_version\": \"%s\", \"node_gpus\": [",
            format, s.command, s.host, s.date, s.commit, s.cpu, s.cpus, s.driver);
    for (int i = 0; i < s.n_gpus; i++)
        fprintf(f, "%s\"%s\"", i ? ", " : "", s.gpus[i]);
    fprintf(f, "]");
    return f;
}

int cm_atomic_close(const char *prog, FILE *f, const char *out, const char *tmp)
{
    if (!out)
        return fflush(f) != 0;
    if (fclose(f) != 0 || rename(tmp, out) != 0) {
        fprintf(stderr, "%s: %s: %s\n", prog, out, strerror(errno));
        remove(tmp);
        return 1;
    }
    return 0;
}
