// SPDX-License-Identifier: BSD-2-Clause
/*
 * The SVG writer of ntprof plot (lib/svg.c) on values chosen for their
 * edges: escaping of text and attributes (XML's five characters, control
 * characters from a recording), nice ticks (1, 2 or 5 times a power of
 * ten, at most the number asked, covering the range), log axes, and the
 * pixel mapping. The expected values follow from the rules in svg.h, worked
 * out by hand; tests/plot_test.sh checks the drawing in a browser.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"

/* What svg_esc writes for S. */
static char *escaped(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	svg_esc(f, s);
	fclose(f);
	return buf;
}

static void test_escape(void **state)
{
	char *e = escaped("a<b & \"c\" 'd'>");

	assert_string_equal(e, "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
	free(e);
	/* a terminal escape from a recording is not XML: '?' */
	e = escaped("x\x1b[0my\x01");
	assert_string_equal(e, "x?[0my?");
	free(e);
	e = escaped("");
	assert_string_equal(e, "");
	free(e);
}

static void assert_ticks(const struct svg_axis *a, double lo, double step, int n)
{
	assert_int_equal(a->n, n);
	for (int i = 0; i < n; i++)
		assert_true(fabs(a->tick[i] - (lo + i * step)) < step * 1e-9);
	assert_true(fabs(a->lo - lo) < step * 1e-9);
	assert_true(fabs(a->hi - (lo + (n - 1) * step)) < step * 1e-9);
}

static void test_linear_ticks(void **state)
{
	struct svg_axis a = { .px0 = 0, .px1 = 100 };

	/* 0..74.2 in at most 8 steps: 74.2 / 8 = 9.3, so steps of 10, to 80 */
	svg_axis_fit(&a, 0, 74.2, 8, 0);
	assert_ticks(&a, 0, 10, 9);
	assert_int_equal(a.decimals, 0);
	/* 0..113: 14.1 a step, so 20, to 120 */
	svg_axis_fit(&a, 0, 113, 8, 0);
	assert_ticks(&a, 0, 20, 7);
	/* 0..1 in at most 5: 0.2, one decimal */
	svg_axis_fit(&a, 0, 1, 5, 0);
	assert_ticks(&a, 0, 0.2, 6);
	assert_int_equal(a.decimals, 1);
	/* 0..0.04 in 4: 0.01, two decimals */
	svg_axis_fit(&a, 0, 0.04, 4, 0);
	assert_ticks(&a, 0, 0.01, 5);
	assert_int_equal(a.decimals, 2);
	/* a range that does not start at 0: 12..47 in 4 steps of 10, 10..50 */
	svg_axis_fit(&a, 12, 47, 4, 0);
	assert_ticks(&a, 10, 10, 5);
	/* nothing to span (one value, or none): still an axis */
	svg_axis_fit(&a, 0, 0, 4, 0);
	assert_true(a.n >= 2 && a.hi > a.lo);
	/* a log axis asked for a range with 0 in it is linear */
	svg_axis_fit(&a, 0, 100, 5, 1);
	assert_false(a.log);
}

static void test_log_ticks(void **state)
{
	struct svg_axis a = { .px0 = 80, .px1 = 630 };

	/* 0.01..78.5 us: the powers of ten around it, 0.01 to 100 */
	svg_axis_fit(&a, 0.01, 78.5, 8, 1);
	assert_true(a.log);
	assert_int_equal(a.n, 5);
	assert_true(fabs(a.tick[0] - 0.01) < 1e-12 && fabs(a.tick[4] - 100) < 1e-9);
	/* one decade's values still get two ticks */
	svg_axis_fit(&a, 40, 40, 8, 1);
	assert_true(a.n == 2 && a.lo <= 40 && a.hi >= 40);
	/* 10 is a decade from 1 and from 100: the middle of 1..100 */
	svg_axis_fit(&a, 1, 100, 8, 1);
	assert_true(fabs(svg_px(&a, 10) - (80 + 630) / 2.0) < 1e-9);
	/* a short span, 42..146 us: 1, 2 and 5 times the powers of ten, from
	 * the largest at or below 42 to the smallest at or above 146 */
	svg_axis_fit(&a, 42.455, 146.4, 6, 1);
	assert_true(a.log);
	assert_int_equal(a.n, 4);
	assert_true(fabs(a.tick[0] - 20) < 1e-9 && fabs(a.tick[1] - 50) < 1e-9 &&
		    fabs(a.tick[2] - 100) < 1e-9 && fabs(a.tick[3] - 200) < 1e-9);
	assert_true(fabs(a.lo - 20) < 1e-9 && fabs(a.hi - 200) < 1e-9);
	/* 0.01..0.12: 0.01, 0.02, 0.05, 0.1, 0.2, with two decimals */
	svg_axis_fit(&a, 0.01, 0.12, 6, 1);
	assert_int_equal(a.n, 5);
	assert_true(fabs(a.tick[0] - 0.01) < 1e-12 && fabs(a.tick[4] - 0.2) < 1e-12);
	assert_int_equal(a.decimals, 2);
	/* one value that is a tick itself: still two ticks */
	svg_axis_fit(&a, 50, 50, 6, 1);
	assert_true(a.n == 2 && fabs(a.lo - 50) < 1e-9 && fabs(a.hi - 100) < 1e-9);
	/* more than MAX such ticks: 2 to 5000 still, ticked at its ends and
	 * the powers of ten between */
	svg_axis_fit(&a, 3, 4000, 6, 1);
	assert_int_equal(a.n, 5);
	assert_true(fabs(a.lo - 2) < 1e-9 && fabs(a.hi - 5000) < 1e-6);
	assert_true(fabs(a.tick[1] - 10) < 1e-9 && fabs(a.tick[3] - 1000) < 1e-6);
	/* ends that are powers of ten are ticked once: 10, 100, 1000 */
	svg_axis_fit(&a, 10, 900, 3, 1);
	assert_int_equal(a.n, 3);
	assert_true(fabs(a.tick[0] - 10) < 1e-9 && fabs(a.tick[1] - 100) < 1e-9 &&
		    fabs(a.tick[2] - 1000) < 1e-6);
	/* a value at or below 0 on a log axis: at its start, not NaN */
	assert_true(svg_px(&a, 0) == a.px0);
	assert_true(svg_px(&a, -5) == a.px0);
}

static void test_pixels(void **state)
{
	/* a y axis: values up, pixels down */
	struct svg_axis a = { .px0 = 400, .px1 = 50 };

	svg_axis_fit(&a, 0, 1, 5, 0);
	assert_true(fabs(svg_px(&a, 0) - 400) < 1e-9);
	assert_true(fabs(svg_px(&a, 1) - 50) < 1e-9);
	assert_true(fabs(svg_px(&a, 0.5) - 225) < 1e-9);
}

/* An axis as the plots write it: its class, range and labelled ticks. */
static void test_axis_element(void **state)
{
	struct svg_axis a = { .px0 = 0, .px1 = 100 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	svg_axis_fit(&a, 0, 1, 5, 0);
	svg_axis_x(f, &a, 10, "fraction <of> commands");
	fclose(f);
	assert_non_null(strstr(buf, "<g class=\"axis x\" data-min=\"0.0\" data-max=\"1.0\""
				   " data-scale=\"linear\">"));
	assert_non_null(strstr(buf, "<g class=\"tick\" data-value=\"0.6\">"));
	assert_non_null(strstr(buf, "class=\"tick-label\">0.6</text>"));
	assert_non_null(strstr(buf, "fraction &lt;of&gt; commands"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_linear_ticks),
		cmocka_unit_test(test_log_ticks),
		cmocka_unit_test(test_pixels),
		cmocka_unit_test(test_axis_element),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
