/* Shared front-end pieces: program name, messages, --help footer, --version. */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <ctype.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spate.h"
#include "cmd.h"

#ifdef SPATE_NLS
#include <libintl.h>
#endif

void
cmd_init(char *argv0)
{
	setlocale(LC_ALL, "");
	/*
	 * GNU names the program by argv[0] exactly as given ("/usr/bin/yes:
	 * ..."), and getopt already does; make err(3) agree.
	 */
	program_invocation_short_name = argv0;
}

#ifdef SPATE_NLS
char *
cmd_gettext(const char *msgid)
{
	static int bound;
	int e = errno;	/* the caller may be about to report it */
	char *s;

	/*
	 * Bound at the first message, not at the start, where it would
	 * cost every run that says nothing (echo x | cat) a few thousand
	 * instructions.
	 */
	if (!bound) {
		bindtextdomain("coreutils", SPATE_LOCALEDIR);
		bound = 1;
	}
	s = dgettext("coreutils", msgid);
	errno = e;
	return s;
}
#endif

void
cmd_help_footer(const char *name)
{
	printf("\nspate %s: fast yes, tee and cat.  See %s(1) for details.\n",
	    SPATE_VERSION, name);
}

void
cmd_version(const char *name)
{
	printf("%s (spate) %s\n"
	    "Copyright (C) 2026 The spate authors.\n"
	    "License ISC: <https://opensource.org/licenses/ISC>.\n"
	    "This is free software: you are free to change and redistribute it.\n"
	    "There is NO WARRANTY, to the extent permitted by law.\n",
	    name, SPATE_VERSION);
	exit(cmd_flush_stdout());
}

void
cmd_try_help(void)
{
	fprintf(stderr, _("Try '%s --help' for more information.\n"),
	    program_invocation_name);
	exit(1);
}

int
cmd_flush_stdout(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	warn("%s", _("write error"));
	return 1;
}

void
cmd_warn_name(const char *name, int err)
{
	const char *q = cmd_quotef(name);	/* may change errno */

	errno = err;
	warn("%s", q);
}

/* The largest off_t. */
#define OFF_MAX	((uintmax_t)(((uintmax_t)1 << (sizeof(off_t) * 8 - 1)) - 1))

/* Multiply *V by BASE to the power POWER; return -1 past OFF_MAX. */
static int
scale(uintmax_t *v, unsigned base, int power)
{
	while (power-- > 0) {
		if (*v > OFF_MAX / base)
			return -1;
		*v *= base;
	}
	return 0;
}

int
cmd_size(const char *arg, off_t *size)
{
	static const char powers[] = "KMGTPEZYRQ";
	const unsigned char *p = (const unsigned char *)arg;
	uintmax_t v = 1;
	unsigned base = 1024;
	int overflow = 0, digits;
	char c;

	while (isspace(*p))
		p++;
	if ((digits = isdigit(*p)))
		for (v = 0; isdigit(*p) && !overflow; p++)
			overflow = scale(&v, 10, 1) == -1 ||
			    (v += *p - '0') > OFF_MAX;
	while (isdigit(*p))
		p++;
	/* GNU's suffixes for head -c: no lower-case g, t... */
	if (*p != '\0' && strchr("bkKmMGTPEZYRQ", *p) != NULL) {
		c = *p++;
		/* ... each followed or not by iB, B or D. */
		if (p[0] == 'i' && p[1] == 'B')
			p += 2;
		else if (*p == 'B' || *p == 'D') {
			base = 1000;
			p++;
		}
		overflow |= c == 'b' ? scale(&v, 512, 1) == -1 :
		    scale(&v, base, strchr(powers, toupper(c)) - powers + 1) == -1;
	} else if (!digits)
		p = (const unsigned char *)"?";	/* neither number nor suffix */
	if (*p != '\0') {
		errno = EINVAL;
		return -1;
	}
	if (overflow) {
		errno = EOVERFLOW;
		return -1;
	}
	*size = (off_t)v;
	return 0;
}

off_t
cmd_size_arg(const char *arg)
{
	off_t size;

	if (cmd_size(arg, &size) == 0)
		return size;
	if (errno == EOVERFLOW)
		errx(1, "%s: %s: %s", _("invalid number of bytes"),
		    cmd_quote(arg), strerror(errno));
	errx(1, "%s: %s", _("invalid number of bytes"), cmd_quote(arg));
}
