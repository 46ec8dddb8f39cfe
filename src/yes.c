/* yes: output a line with all the STRINGs, or 'y', until killed. */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spate.h"
#include "cmd.h"

static const struct option long_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'v' },
	{ NULL, 0, NULL, 0 }
};

_Noreturn static void
usage(void)
{
	printf(_("Usage: %s [STRING]...\n"
	    "  or:  %s OPTION\n"), program_invocation_name,
	    program_invocation_name);
	fputs(_("Repeatedly output a line with all specified STRING(s), or 'y'.\n"
	    "\n"), stdout);
	fputs(_(HELP_OPTION_DESCRIPTION), stdout);
	fputs(_(VERSION_OPTION_DESCRIPTION), stdout);
	cmd_help_footer("yes");
	exit(cmd_flush_stdout());
}

/* Join the N operands ARGS with spaces and a newline; store the length. */
static char *
join(char **args, int n, size_t *len)
{
	size_t total = 0;
	char *line, *p;
	int i;

	for (i = 0; i < n; i++) {
		size_t k = strlen(args[i]) + 1;

		if (total > SIZE_MAX - k)
			errx(1, "%s", _("memory exhausted"));
		total += k;
	}
	if ((line = malloc(total)) == NULL)
		errx(1, "%s", _("memory exhausted"));
	for (p = line, i = 0; i < n; i++) {
		size_t k = strlen(args[i]);

		memcpy(p, args[i], k);
		p += k;
		*p++ = i + 1 < n ? ' ' : '\n';
	}
	*len = total;
	return line;
}

int
main(int argc, char *argv[])
{
	static char y[] = "y";
	static char *dflt[] = { y };
	char **args = dflt, *line;
	int nargs = 1;
	size_t len;

	cmd_init(argv[0]);
	/*
	 * Like GNU, look at one option only: --help or --version wherever
	 * it stands, anything else is an error; "--" ends the options.
	 */
	switch (getopt_long(argc, argv, "", long_options, NULL)) {
	case -1:
		break;
	case 'h':
		usage();
	case 'v':
		cmd_version("yes");
	default:
		cmd_try_help();
	}
	if (optind < argc) {
		args = argv + optind;
		nargs = argc - optind;
	}
	line = join(args, nargs, &len);
	spate_repeat(STDOUT_FILENO, line, len);
	err(1, "%s", _("standard output"));
}
