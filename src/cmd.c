/* Shared front-end pieces: program name, messages, --help footer, --version. */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>

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
