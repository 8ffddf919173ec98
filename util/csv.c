#include "csv.h"

#include <string.h>

void cp_put_quoted(FILE *f, const char *s, char q)
{
    fputc(q, f);
    for (; *s; s++) {
        if (*s == q)
            fputc(q, f);
        fputc(*s, f);
    }
    fputc(q, f);
}

void cp_csv_text(FILE *f, const char *s)
{
    if (strpbrk(s, ",\"\n\r"))
        cp_put_quoted(f, s, '"');
    else
        fputs(s, f);
}
