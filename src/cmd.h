/* What the commands share: names, messages, help and version text. */
#ifndef CMD_H
#define CMD_H

#include <unistd.h>

/*
 * _(MSGID): MSGID in the language of the locale's LC_MESSAGES, from
 * GNU coreutils' own catalogs (the "coreutils" text domain), which
 * translate spate as they translate GNU: so every text spate shares
 * with GNU 9.1 is written exactly as its msgid there, cut into the same
 * pieces.  spate's own texts, which no catalog has (--version, the
 * last line of --help, the multi-call spate's --help and messages),
 * stay in English.  Without NLS (make NLS=0), MSGID as it is.
 * cmd_gettext(MSGID) is the lookup; it keeps errno.
 */
#ifdef SPATE_NLS
#define _(msgid) cmd_gettext(msgid)
char *cmd_gettext(const char *msgid) __attribute__((format_arg(1)));
#else
#define _(msgid) (msgid)
#endif

/* The msgids of GNU's --help lines for --help and --version. */
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
 * Return ARG quoted for a message as GNU's quote_n(SLOT, ARG) does,
 * between the locale's quotes, with C escapes.  SLOT is 0 or 1: the
 * result lives until the next call with the same SLOT.
 */
const char *cmd_quote_n(int slot, const char *arg);

/* cmd_quote_n(0, ARG), as GNU's quote(ARG). */
const char *cmd_quote(const char *arg);

/*
 * Parse ARG, a size as GNU's head -c takes one: decimal digits (or none:
 * 1), then maybe a suffix, b (512), k or K (1024), m or M, G, T, P, E,
 * Z, Y, R, Q, each but b followed or not by iB (powers of 1024) or by B
 * or D (powers of 1000); leading blanks.  Store it in *SIZE and return
 * 0; return -1 with errno EINVAL (not a size) or EOVERFLOW (too large
 * for an off_t).
 */
int cmd_size(const char *arg, off_t *size);

/*
 * Return the size ARG says (cmd_size), or exit 1 with head -c's message
 * for a bad one: "invalid number of bytes: 'ARG'", and the reason if it
 * is too large.
 */
off_t cmd_size_arg(const char *arg);

/* Report error ERR about file NAME as GNU does: "PROGRAM: NAME: strerror",
 * NAME quoted by cmd_quotef. */
void cmd_warn_name(const char *name, int err);

#endif
