/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A tiny JSON writer, after bpftool's json_writer: objects and arrays
 * nest, names and values are written in order, the separators ("{", ", ",
 * ": ") come by themselves. One line, no pretty printing. Used by
 * `ntprof-collect probe -j` and `ntprof report --json`; ntprof-shell's json
 * mode escapes its strings with ntp_json_put_string.
 */
#ifndef NTP_JSON_WRITER_H
#define NTP_JSON_WRITER_H

#include <stdio.h>

#define NTP_JSON_DEPTH 8

struct ntp_json {
	FILE *f;
	int depth;                  /* open objects and arrays */
	int items[NTP_JSON_DEPTH];  /* values written at each depth so far */
	int named;                  /* a name was written: its value comes next */
};

void ntp_json_init(struct ntp_json *w, FILE *f);

/* A name in an object; its value follows. */
void ntp_json_name(struct ntp_json *w, const char *name);

void ntp_json_start_object(struct ntp_json *w);
void ntp_json_end_object(struct ntp_json *w);
void ntp_json_start_array(struct ntp_json *w);
void ntp_json_end_array(struct ntp_json *w);

/* Values. A string's quotes, backslashes and control characters are
 * escaped (NULL is ""). ntp_json_raw writes TEXT as it is: a number the
 * caller formatted, or null. */
void ntp_json_string(struct ntp_json *w, const char *s);
void ntp_json_int(struct ntp_json *w, long long v);
void ntp_json_bool(struct ntp_json *w, int v);
void ntp_json_raw(struct ntp_json *w, const char *text);

/* S to F as a JSON string, quotes included (NULL: ""). */
void ntp_json_put_string(FILE *f, const char *s);

/* A name and its value. */
void ntp_json_string_field(struct ntp_json *w, const char *name, const char *s);
void ntp_json_int_field(struct ntp_json *w, const char *name, long long v);
void ntp_json_bool_field(struct ntp_json *w, const char *name, int v);

#endif
