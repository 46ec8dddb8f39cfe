/*
 * tap.c: the main() of every unit test file.  It runs the cases that
 * TEST() registered (tap.h), in the order they are written, and prints
 * TAP: an "ok" or "not ok" line per check, then the plan.  The exit
 * status is 0 if every check passed, 1 if one failed or the file bailed
 * out, 2 for a bad argument.
 *
 *	test_io			every case
 *	test_io --list		the names of the cases, one a line
 *	test_io --run=LIST	only the cases LIST names: names or
 *				fnmatch(3) patterns, comma separated
 */
#define _GNU_SOURCE
#include <fnmatch.h>

#include "tap.h"

/* The linker's bounds of the section tap_cases, which TEST() fills. */
extern const struct tap_case *const __start_tap_cases[];
extern const struct tap_case *const __stop_tap_cases[];

static int tap_n, tap_failed;
/* Where the file is: in the case TAP_CASE, or if NULL in TAP_PHASE. */
static const char *tap_case, *tap_phase = "tap_setup";

void
ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", cond ? "ok" : "not ok", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond && tap_case != NULL)
		printf("# in case %s (--run=%s runs it alone)\n", tap_case,
		    tap_case);
	else if (!cond)
		printf("# in %s\n", tap_phase);
	fflush(stdout);
	tap_failed += !cond;
}

void
skip(const char *fmt, ...)
{
	va_list ap;

	printf("ok %d # skip ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

void
bail_out(const char *fmt, ...)
{
	va_list ap;

	printf("Bail out! ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (tap_case != NULL)
		printf(" (in case %s)\n", tap_case);
	else
		printf(" (in %s)\n", tap_phase);
	fflush(stdout);
	exit(1);
}

/* Write the C string S to stdout: async-signal-safe calls only. */
static void
tap_say(const char *s)
{
	if (write(STDOUT_FILENO, s, strlen(s)) < 0)
		_exit(1);
}

/* SIGALRM: a case hung.  Only async-signal-safe calls here. */
static void
tap_timeout(int sig)
{
	(void)sig;
	tap_say("Bail out! timed out: a hang in ");
	tap_say(tap_case != NULL ? "case " : "");
	tap_say(tap_case != NULL ? tap_case : tap_phase);
	tap_say("\n");
	_exit(1);
}

void
watchdog(unsigned seconds)
{
	signal(SIGALRM, tap_timeout);
	alarm(seconds);
}

/* qsort(3): cases in the order of their lines. */
static int
by_line(const void *a, const void *b)
{
	const struct tap_case *x = *(const struct tap_case *const *)a;
	const struct tap_case *y = *(const struct tap_case *const *)b;

	return (x->line > y->line) - (x->line < y->line);
}

/* The patterns of --run=LIST, NRUN of them (0: run every case). */
static char **run;
static size_t nrun;

/* Split LIST at its commas into RUN; return 0, or -1 if it names
 * nothing. */
static int
run_parse(char *list)
{
	char *save = NULL, *pat;

	if ((run = malloc((strlen(list) / 2 + 1) * sizeof *run)) == NULL)
		bail_out("malloc: %s", strerror(errno));
	for (pat = strtok_r(list, ",", &save); pat != NULL;
	    pat = strtok_r(NULL, ",", &save))
		run[nrun++] = pat;
	return nrun > 0 ? 0 : -1;
}

/* Whether the case NAME is to run: every case, or one that a pattern
 * of --run matches. */
static int
run_wants(const char *name)
{
	size_t i;

	for (i = 0; i < nrun; i++)
		if (fnmatch(run[i], name, 0) == 0)
			return 1;
	return nrun == 0;
}

/* Return 1 if every pattern of --run matches one of the N CASES at
 * least, else name the first that matches none on stderr and return 0:
 * a typo must not pass as a run of nothing. */
static int
run_all_match(const struct tap_case **cases, size_t n)
{
	size_t i, j;

	for (i = 0; i < nrun; i++) {
		for (j = 0; j < n && fnmatch(run[i], cases[j]->name, 0) != 0;
		    j++)
			;
		if (j == n) {
			fprintf(stderr, "--run: no case is named %s\n", run[i]);
			return 0;
		}
	}
	return 1;
}

/* Free CASES and the patterns of --run: nothing left for the leak
 * checkers (valgrind, LeakSanitizer) to report. */
static void
tap_free(const struct tap_case **cases)
{
	free(cases);
	free(run);
}

int
main(int argc, char **argv)
{
	size_t n = __stop_tap_cases - __start_tap_cases, i;
	const struct tap_case **cases = malloc(n * sizeof *cases);
	int list = 0, a;

	if (cases == NULL)
		bail_out("malloc: %s", strerror(errno));
	memcpy(cases, __start_tap_cases, n * sizeof *cases);
	qsort(cases, n, sizeof *cases, by_line);
	for (a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--list") == 0)
			list = 1;
		else if (strncmp(argv[a], "--run=", 6) != 0 || nrun > 0 ||
		    run_parse(argv[a] + 6) == -1)
			break;
	}
	if (a < argc) {
		fprintf(stderr, "usage: %s [--list] [--run=NAME,...]\n",
		    argv[0]);
		tap_free(cases);
		return 2;
	}
	if (!run_all_match(cases, n)) {
		tap_free(cases);
		return 2;
	}
	if (list) {
		for (i = 0; i < n; i++)
			if (run_wants(cases[i]->name))
				printf("%s\n", cases[i]->name);
		tap_free(cases);
		return 0;
	}
	/* The runner may start us with SIGPIPE ignored; default it. */
	signal(SIGPIPE, SIG_DFL);
	if (tap_setup != NULL)
		tap_setup();
	for (i = 0; i < n; i++) {
		if (!run_wants(cases[i]->name))
			continue;
		tap_case = cases[i]->name;
		cases[i]->run();
	}
	tap_case = NULL;
	tap_phase = "tap_teardown";
	if (tap_teardown != NULL)
		tap_teardown();
	tap_free(cases);
	printf("1..%d\n", tap_n);
	return tap_failed != 0;
}
