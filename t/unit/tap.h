/*
 * tap.h: a tiny TAP producer for the engine's unit tests.
 *
 *	static void test_something(void) { ok(1 + 1 == 2, "adds"); }
 *	int main(void) { test_something(); return done(); }
 */
#ifndef TAP_H
#define TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_n, tap_failed;

/* Report one check: COND true passes; FMT... is its title. */
static void __attribute__((format(printf, 2, 3)))
ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", cond ? "ok" : "not ok", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	tap_failed += !cond;
}

/* Print the plan; return the exit status for main(). */
static int
done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed != 0;
}

#endif
