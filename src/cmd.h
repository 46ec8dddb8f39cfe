/* What the yes and tee front-ends share: names, help and version text. */
#ifndef CMD_H
#define CMD_H

#include <unistd.h>

#define HELP_OPTION_DESCRIPTION \
	"      --help        display this help and exit\n"
#define VERSION_OPTION_DESCRIPTION \
	"      --version     output version information and exit\n"

/* Set the locale and name the program ARGV0 in messages, as GNU does. */
void cmd_init(char *argv0);

/* Print the closing lines of --help for command NAME. */
void cmd_help_footer(const char *name);

/* Print --version for command NAME and exit. */
_Noreturn void cmd_version(const char *name);

/* Say "Try '... --help'" on stderr and exit 1. */
_Noreturn void cmd_try_help(void);

/* Flush stdout; return 0, or report the error and return 1. */
int cmd_flush_stdout(void);

/*
 * Return NAME quoted for a message as GNU's quotef() does: as is when
 * the shell would take it so, else in shell quotes.  The result lives
 * until the next call.
 */
const char *cmd_quotef(const char *name);

/*
 * Return ARG quoted for a message as GNU's quote() does, between the
 * locale's quotes, with C escapes.  The result lives until the next call.
 */
const char *cmd_quote(const char *arg);

/* Report error ERR about file NAME as GNU does: "PROGRAM: NAME: strerror",
 * NAME quoted by cmd_quotef. */
void cmd_warn_name(const char *name, int err);

/* The quotes GNU's quote() puts around an argument in this locale. */
const char *cmd_lquote(void);
const char *cmd_rquote(void);

#endif
