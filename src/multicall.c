/*
 * The multi-call spate: every command in one program, chosen by the name
 * it is called by (man/spate.1).  The installed program is `spate`.
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spate.h"
#include "cmd.h"

/*
 * Each command's main(), renamed: the Makefile compiles src/CMD.c a
 * second time with -Dmain=CMD_main, so the sources stay as they are.
 */
int cat_main(int argc, char *argv[]);
int tee_main(int argc, char *argv[]);
int yes_main(int argc, char *argv[]);

/* The commands, in the order --list prints them. */
static const struct command {
	const char *name;
	int (*main)(int, char *[]);
} commands[] = {
	{ "cat", cat_main },
	{ "tee", tee_main },
	{ "yes", yes_main },
};

#define NCOMMANDS (sizeof commands / sizeof *commands)

/* Return the command called NAME exactly, or NULL. */
static const struct command *
find(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (strcmp(name, commands[i].name) == 0)
			return &commands[i];
	return NULL;
}

/*
 * Return the command that ARGV0 names, or NULL: its last path component,
 * less the '-' that login(1) puts before a login shell's name, as
 * busybox and toybox read it.
 */
static const struct command *
called_as(const char *argv0)
{
	const char *name;

	if ((name = strrchr(argv0, '/')) != NULL)
		argv0 = name + 1;
	if (*argv0 == '-')
		argv0++;
	return find(argv0);
}

/* Print --help: the forms of the call, the options, the commands; exit. */
_Noreturn static void
usage(void)
{
	size_t i;

	printf("Usage: %s COMMAND [ARGUMENT]...\n"
	    "  or:  %s OPTION\n"
	    "  or:  COMMAND [ARGUMENT]...    (called by a link named COMMAND)\n",
	    program_invocation_name, program_invocation_name);
	fputs("Run COMMAND, one of the commands built into this program, with the\n"
	    "ARGUMENTs, as if it had been called by that name.\n"
	    "\n"
	    "      --list        print the names of the commands, one a line, and exit\n",
	    stdout);
	fputs(HELP_OPTION_DESCRIPTION, stdout);
	fputs(VERSION_OPTION_DESCRIPTION, stdout);
	fputs("\nCommands:", stdout);
	for (i = 0; i < NCOMMANDS; i++)
		printf(" %s", commands[i].name);
	putchar('\n');
	cmd_help_footer("spate");
	exit(cmd_flush_stdout());
}

/* Print --list: the commands, one a line; exit. */
_Noreturn static void
list(void)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		puts(commands[i].name);
	exit(cmd_flush_stdout());
}

int
main(int argc, char *argv[])
{
	static char self[] = "spate";
	const struct command *c;

	/* A command called by its own name: nothing here to get in its way. */
	if (argc > 0 && (c = called_as(argv[0])) != NULL)
		return c->main(argc, argv);

	/*
	 * Any other name is the dispatcher; so is none, an empty argv,
	 * which Linux turns into an argv[0] of "": name ourselves then.
	 */
	if (argc < 1 || *argv[0] == '\0')
		program_invocation_name = self;
	cmd_init(program_invocation_name);
	if (argc < 2) {
		warnx("missing command");
		cmd_try_help();
	}
	if (strcmp(argv[1], "--help") == 0)
		usage();
	if (strcmp(argv[1], "--version") == 0)
		cmd_version("spate");
	if (strcmp(argv[1], "--list") == 0)
		list();
	if (argv[1][0] == '-') {
		warnx("unrecognized option %s", cmd_quote(argv[1]));
		cmd_try_help();
	}

	/*
	 * `spate CMD ARG...` is `CMD ARG...`: argv[0] is "CMD", as busybox
	 * passes it, so every message, --help and --version reads as from
	 * the separate CMD called by that name.  libc set the program's
	 * name from our own argv[0]; the command's cmd_init sets the short
	 * name, and usage lines and getopt take the full one.
	 */
	if ((c = find(argv[1])) != NULL) {
		program_invocation_name = argv[1];
		return c->main(argc - 1, argv + 1);
	}
	errx(1, "unknown command %s", cmd_quote(argv[1]));
}
