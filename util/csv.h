/* csv: one field of a CSV row (RFC 4180), shared by every CSV writer. */
#ifndef CP_CSV_H
#define CP_CSV_H

#include <stdio.h>

/* s as one CSV field, quoted when it holds a comma, a quote or a line break. */
void cp_csv_text(FILE *f, const char *s);

#endif
