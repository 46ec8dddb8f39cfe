/* Unit tests of cat's text transformations (lib/format.c): GNU cat's
 * output written out for each option, a text fed over several calls,
 * and when the SIMD level is chosen. */
#define _GNU_SOURCE

#include "lib-format.h"

/* Run FLAGS over the C string S as one buffer; compare with WANT. */
static int
gives(unsigned flags, const char *s, const char *want)
{
	size_t cut = strlen(s);
	struct buf got = { 0 };
	int ok = run_cuts(flags, (const unsigned char *)s, cut, &cut, 1, &got);

	ok = ok && got.len == strlen(want) &&
	    (got.len == 0 || memcmp(got.s, want, got.len) == 0);
	if (!ok)
		printf("# got %.*s\n", (int)got.len, got.s ? got.s : "");
	free(got.s);
	return ok;
}

TEST(examples)
{
	ok(gives(SPATE_CAT_NUMBER, "a\n\nb\n", "     1\ta\n     2\t\n     3\tb\n"),
	    "-n numbers every line");
	ok(gives(SPATE_CAT_NUMBER_NONBLANK, "a\n\nb\n", "     1\ta\n\n     2\tb\n"),
	    "-b numbers the non-empty lines");
	ok(gives(SPATE_CAT_NUMBER | SPATE_CAT_NUMBER_NONBLANK, "a\n\nb",
	    "     1\ta\n\n     2\tb"), "-b overrides -n");
	ok(gives(SPATE_CAT_SQUEEZE, "\n\n\na\n\n\n\nb\n\n", "\na\n\nb\n\n"),
	    "-s keeps one empty line of each run");
	ok(gives(SPATE_CAT_SQUEEZE | SPATE_CAT_NUMBER, "\n\n\na\n\n\nb",
	    "     1\t\n     2\ta\n     3\t\n     4\tb"),
	    "-sn numbers what -s keeps");
	ok(gives(SPATE_CAT_SHOW_ENDS, "a\r\nb\rc\n\r", "a^M$\nb\rc$\n\r"),
	    "-E: $ at line ends, ^M for CR LF, a final CR stands");
	ok(gives(SPATE_CAT_SHOW_ENDS | SPATE_CAT_SHOW_NONPRINTING, "a\r\n\r",
	    "a^M$\n^M"), "-vE: ^M for every CR");
	ok(gives(SPATE_CAT_SHOW_TABS, "\ta\t\n", "^Ia^I\n"), "-T: ^I");
	ok(gives(SPATE_CAT_SHOW_NONPRINTING, "\t\001\033\177\200\237\240\376\377\n",
	    "\t^A^[^?M-^@M-^_M- M-~M-^?\n"), "-v: ^, M- and their mixes");
	ok(gives(SPATE_CAT_SHOW_NONPRINTING | SPATE_CAT_SHOW_TABS, "\t\211",
	    "^IM-^I"), "-vT: TAB and M-TAB");
	ok(gives(SPATE_CAT_SHOW_NONPRINTING, "", ""), "empty text, nothing out");
}

/* Feed the pieces PARTS[0..N) in turn; compare with WANT. */
static int
pieces(unsigned flags, const char *const *parts, size_t n, const char *want)
{
	struct fmt f;
	struct buf got = { 0 };
	char out[4096];
	size_t i, k;
	int good;

	fmt_init(&f, flags);
	for (i = 0; i < n; i++) {
		k = fmt_run(&f, parts[i], strlen(parts[i]), out);
		put(&got, out, k);
	}
	put(&got, out, fmt_finish(&f, out));
	good = got.len == strlen(want) &&
	    (got.len == 0 || memcmp(got.s, want, got.len) == 0);
	if (!good)
		printf("# got %.*s\n", (int)got.len, got.s ? got.s : "");
	free(got.s);
	return good;
}

TEST(across_calls)
{
	static const char *const a[] = { "one\ntw", "o\n", "\nthr", "ee" };
	static const char *const b[] = { "\n\n", "\n", "\n", "x\n\n", "\n" };
	static const char *const c[] = { "a\r", "\nb\r", "c\r", "" };
	static const char *const d[] = { "a", "\r", "\r", "\n" };
	static const char *const e[] = { "a\r", "", "\n\r", "" };

	ok(pieces(SPATE_CAT_NUMBER, a, 4,
	    "     1\tone\n     2\ttwo\n     3\t\n     4\tthree"),
	    "-n: a line split across calls keeps one number");
	ok(pieces(SPATE_CAT_SQUEEZE | SPATE_CAT_NUMBER_NONBLANK, b, 5,
	    "\n     1\tx\n\n"), "-sb: a run of empty lines across calls");
	ok(pieces(SPATE_CAT_SHOW_ENDS, c, 4, "a^M$\nb\rc\r"),
	    "-E: a CR at a call's end waits for the next byte, or the end");
	ok(pieces(SPATE_CAT_SHOW_ENDS | SPATE_CAT_SHOW_TABS, d, 4, "a\r^M$\n"),
	    "-ET: CR CR LF over three calls");
	ok(pieces(SPATE_CAT_SHOW_ENDS, e, 4, "a^M$\n\r"),
	    "-E: an empty buffer holds the CR on, fmt_finish ends it");
}

/* The CPU is asked for its SIMD level at the first long buffer only:
 * asking costs a trap to the hypervisor in a virtual machine. */
TEST(level_decided_late)
{
	struct fmt f;
	char *text = xmalloc(4096), *out = xmalloc(fmt_room(4096));
	int before, after;
	enum simd_level level;

	memset(text, 'a', 4096);
	text[4095] = '\n';
	fmt_init(&f, SPATE_CAT_NUMBER);
	fmt_run(&f, "x\n", 2, out);
	before = f.level_set;
	fmt_run(&f, text, 4096, out);
	after = f.level_set;
	level = f.level;
	ok(!before && after && level == cpu_simd_level(),
	    "fmt_run: a short buffer leaves the SIMD level undecided, a "
	    "long one takes the CPU's (%d)", (int)level);
	free(text);
	free(out);
}
