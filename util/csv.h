/* csv: one field of a CSV row (RFC 4180), shared by every CSV writer. */
#ifndef CP_CSV_H
#define CP_CSV_H

#include <stdio.h>

/* s as one CSV field, quoted when it holds a comma, a quote or a line break. */
void cp_csv_text(FILE *f, const char *s);
/* s between two q's, each q inside doubled: CSV's quoting with '"', and
 * gnuplot's single-quoted strings with '\''. */
void cp_put_quoted(FILE *f, const char *s, char q);

#endif
