// SPDX-License-Identifier: BSD-2-Clause
/* The tiny JSON writer (json.h). */
#include <string.h>

#include "json.h"

void ntp_json_init(struct ntp_json *w, FILE *f)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
}

/* Before a value or a name: the separator from the one before, if any. */
static void next_item(struct ntp_json *w)
{
	if (w->named) {
		w->named = 0;
		return;
	}
	if (w->items[w->depth]++)
		fputs(", ", w->f);
}

/* S quoted: no control character, quotes and backslashes escaped. */
static void put_string(struct ntp_json *w, const char *s)
{
	fputc('"', w->f);
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', w->f);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, w->f);
	}
	fputc('"', w->f);
}

void ntp_json_name(struct ntp_json *w, const char *name)
{
	next_item(w);
	put_string(w, name);
	fputs(": ", w->f);
	w->named = 1;
}

static void open_nest(struct ntp_json *w, char c)
{
	next_item(w);
	fputc(c, w->f);
	if (w->depth < NTP_JSON_DEPTH - 1)
		w->items[++w->depth] = 0;
}

static void close_nest(struct ntp_json *w, char c)
{
	fputc(c, w->f);
	if (w->depth > 0)
		w->depth--;
	if (w->depth == 0)
		fputc('\n', w->f);
}

void ntp_json_start_object(struct ntp_json *w)
{
	open_nest(w, '{');
}

void ntp_json_end_object(struct ntp_json *w)
{
	close_nest(w, '}');
}

void ntp_json_start_array(struct ntp_json *w)
{
	open_nest(w, '[');
}

void ntp_json_end_array(struct ntp_json *w)
{
	close_nest(w, ']');
}

void ntp_json_string(struct ntp_json *w, const char *s)
{
	next_item(w);
	put_string(w, s);
}

void ntp_json_int(struct ntp_json *w, long long v)
{
	next_item(w);
	fprintf(w->f, "%lld", v);
}

void ntp_json_bool(struct ntp_json *w, int v)
{
	next_item(w);
	fputs(v ? "true" : "false", w->f);
}

void ntp_json_string_field(struct ntp_json *w, const char *name, const char *s)
{
	ntp_json_name(w, name);
	ntp_json_string(w, s);
}

void ntp_json_int_field(struct ntp_json *w, const char *name, long long v)
{
	ntp_json_name(w, name);
	ntp_json_int(w, v);
}

void ntp_json_bool_field(struct ntp_json *w, const char *name, int v)
{
	ntp_json_name(w, name);
	ntp_json_bool(w, v);
}
