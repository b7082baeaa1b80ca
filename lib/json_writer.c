// SPDX-License-Identifier: BSD-2-Clause
/* The tiny JSON writer (json_writer.h). */
#include <string.h>

#include "json_writer.h"
#include "ntp_err.h"

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

void ntp_json_put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;

		switch (ch) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (ch < 0x20 || ch == 0x7f) {
				fprintf(f, "\\u%04x", ch);
			} else if (ntp_control_at(s) == 2) { /* C1, as \u0080-\u009f */
				fprintf(f, "\\u%04x", (unsigned char)s[1]);
				s++;
			} else {
				fputc(ch, f);
			}
		}
	}
	fputc('"', f);
}

void ntp_json_name(struct ntp_json *w, const char *name)
{
	next_item(w);
	ntp_json_put_string(w->f, name);
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
	ntp_json_put_string(w->f, s);
}

void ntp_json_int(struct ntp_json *w, long long v)
{
	next_item(w);
	fprintf(w->f, "%lld", v);
}

void ntp_json_raw(struct ntp_json *w, const char *text)
{
	next_item(w);
	fputs(text, w->f);
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
