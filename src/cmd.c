/* Shared front-end pieces: program name, --help footer, --version. */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>

#include "sluice.h"
#include "cmd.h"

void
cmd_init(char *argv0)
{
	setlocale(LC_ALL, "");
#ifdef SLUICE_NLS
	/*
	 * Only the binding: the catalog is opened by the first message
	 * that is looked up in a locale other than C, none before.
	 */
	bindtextdomain("coreutils", SLUICE_LOCALEDIR);
#endif
	/*
	 * GNU names the program by argv[0] exactly as given ("/usr/bin/yes:
	 * ..."), and getopt already does; make err(3) agree.
	 */
	program_invocation_short_name = argv0;
}

void
cmd_help_footer(const char *name)
{
	printf("\nsluice %s: fast yes, tee and cat.  See %s(1) for details.\n",
	    SLUICE_VERSION, name);
}

void
cmd_version(const char *name)
{
	printf("%s (sluice) %s\n"
	    "Copyright (C) 2026 The sluice authors.\n"
	    "License ISC: <https://opensource.org/licenses/ISC>.\n"
	    "This is free software: you are free to change and redistribute it.\n"
	    "There is NO WARRANTY, to the extent permitted by law.\n",
	    name, SLUICE_VERSION);
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
