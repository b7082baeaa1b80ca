/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A tiny JSON writer, after bpftool's json_writer: objects and arrays
 * nest, names and values are written in order, the separators ("{", ", ",
 * ": ") come by themselves. One line, no pretty printing.
 */
#ifndef NTP_JSON_H
#define NTP_JSON_H

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

/* Values. A string keeps no control character; quotes and backslashes
 * are escaped. */
void ntp_json_string(struct ntp_json *w, const char *s);
void ntp_json_int(struct ntp_json *w, long long v);
void ntp_json_bool(struct ntp_json *w, int v);

/* A name and its value. */
void ntp_json_string_field(struct ntp_json *w, const char *name, const char *s);
void ntp_json_int_field(struct ntp_json *w, const char *name, long long v);
void ntp_json_bool_field(struct ntp_json *w, const char *name, int v);

#endif
