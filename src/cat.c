/* cat: concatenate FILEs, or standard input, to standard output. */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spate.h"
#include "cmd.h"
#include "progress.h"

/* The long options that have no short one. */
enum { PROGRESS_OPTION = CHAR_MAX + 1 };

/*
 * In GNU's order, which getopt_long follows when it lists the
 * candidates of an ambiguous abbreviation such as --n or --show; then
 * spate's own.
 */
static const struct option long_options[] = {
	{ "number-nonblank", no_argument, NULL, 'b' },
	{ "number", no_argument, NULL, 'n' },
	{ "squeeze-blank", no_argument, NULL, 's' },
	{ "show-nonprinting", no_argument, NULL, 'v' },
	{ "show-ends", no_argument, NULL, 'E' },
	{ "show-tabs", no_argument, NULL, 'T' },
	{ "show-all", no_argument, NULL, 'A' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "progress", optional_argument, NULL, PROGRESS_OPTION },
	{ NULL, 0, NULL, 0 }
};

/* Where the output is, for the input-is-output check. */
struct out {
	int isreg;	/* a regular file: the only kind the check is for */
	int grows;	/* the options may write more bytes than they read */
	int append;	/* O_APPEND; -1 until the check first needs to know */
	dev_t dev;
	ino_t ino;
};

_Noreturn static void
usage(void)
{
	printf(_("Usage: %s [OPTION]... [FILE]...\n"), program_invocation_name);
	fputs(_("Concatenate FILE(s) to standard output.\n"), stdout);
	fputs(_("\n"
	    "With no FILE, or when FILE is -, read standard input.\n"), stdout);
	fputs(_("\n"
	    "  -A, --show-all           equivalent to -vET\n"
	    "  -b, --number-nonblank    number nonempty output lines, overrides -n\n"
	    "  -e                       equivalent to -vE\n"
	    "  -E, --show-ends          display $ at end of each line\n"
	    "  -n, --number             number all output lines\n"
	    "  -s, --squeeze-blank      suppress repeated empty output lines\n"),
	    stdout);
	fputs(_("  -t                       equivalent to -vT\n"
	    "  -T, --show-tabs          display TAB characters as ^I\n"
	    "  -u                       (ignored)\n"
	    "  -v, --show-nonprinting   use ^ and M- notation, except for LFD and TAB\n"),
	    stdout);
	fputs(_(HELP_OPTION_DESCRIPTION), stdout);
	fputs(_(VERSION_OPTION_DESCRIPTION), stdout);
	printf(_("\n"
	    "Examples:\n"
	    "  %s f - g  Output f's contents, then standard input, then g's contents.\n"
	    "  %s        Copy standard input to standard output.\n"),
	    program_invocation_name, program_invocation_name);
	fputs(_("\n"
	    "Extensions:\n"
	    "      --progress[=SIZE]    show on standard error how far the copy has come\n"
	    "                             (out of SIZE bytes, if given)\n"),
	    stdout);
	cmd_help_footer("cat");
	exit(cmd_flush_stdout());
}

/*
 * Whether input FD, whose status is ST, is the regular file OUT is and
 * copying it would read back what cat writes, never to end (until the
 * disk is full).  An input with nothing ahead of its offset (an empty
 * file, one read to its end) may always be the output (GNU 9.1).  The
 * rest is copied onto itself, as GNU 9.7 and later copy it, where every
 * write lands behind the reads: the output is not O_APPEND (which writes
 * past all there is to read), its offset is not past the input's, and
 * the options write no more than they read (none, or -s).  -n, -b, -E,
 * -T and -v write more and would overtake the reads: refused, as GNU 9.1
 * refuses them (GNU 9.11 copies for ever).  The output's offset counts
 * every earlier input: the engine writes what it holds at the end of
 * each (but for what -E holds back).  The output's flags and offset are
 * asked for only here: an input that is not the output costs no call.
 */
static int
is_output(int fd, const struct stat *st, struct out *out)
{
	off_t at;

	if (!out->isreg || st->st_dev != out->dev || st->st_ino != out->ino)
		return 0;
	if ((at = lseek(fd, 0, SEEK_CUR)) >= st->st_size)
		return 0;
	if (out->grows)
		return 1;
	/* A failed F_GETFL (-1) has every bit: taken as O_APPEND, refused. */
	if (out->append == -1)
		out->append = (fcntl(STDOUT_FILENO, F_GETFL) & O_APPEND) != 0;
	return out->append || at < lseek(STDOUT_FILENO, 0, SEEK_CUR);
}

/*
 * Append input NAME (standard input if "-") to C.  Return 1 if it went
 * well, 0 after a message; exit at once when the output failed.
 */
static int
add(struct spate_cat *c, const char *name, struct out *out)
{
	int stdin_ = strcmp(name, "-") == 0, ok = 1, fd;
	enum spate_side side;
	struct stat st;

	/* Like GNU, no care to keep fds 0-2: cat opens only inputs. */
	fd = stdin_ ? STDIN_FILENO : open(name, O_RDONLY | O_CLOEXEC);
	if (fd == -1) {
		progress_break();
		cmd_warn_name(name, errno);
		return 0;
	}
	if (fstat(fd, &st) == -1) {
		progress_break();
		cmd_warn_name(name, errno);
		ok = 0;
	} else if (is_output(fd, &st, out)) {
		progress_break();
		warnx(_("%s: input file is output file"), cmd_quotef(name));
		ok = 0;
	} else if (spate_cat_add_stat(c, fd, &st, &side) == -1) {
		progress_break();
		if (side == SPATE_MEMORY)
			errx(1, "%s", _("memory exhausted"));
		if (side == SPATE_OUTPUT)
			err(1, "%s", _("write error"));
		cmd_warn_name(name, errno);
		ok = 0;
	}
	if (!stdin_ && close(fd) == -1) {
		progress_break();
		cmd_warn_name(name, errno);
		ok = 0;
	}
	return ok;
}

/*
 * What copying the N inputs NAMES moves, for --progress: the sum of
 * their sizes (standard input's from its offset, and once), if every
 * one is a regular file and FLAGS transform nothing; else -1.
 */
static off_t
progress_total(char **names, int n, unsigned flags)
{
	off_t total = 0, k;
	int i, stdin_seen = 0;
	struct stat st;

	if (flags != 0)
		return -1;	/* the output is not the input's size */
	for (i = 0; i < n; i++) {
		if (strcmp(names[i], "-") != 0)
			k = stat(names[i], &st) == 0 && S_ISREG(st.st_mode) ?
			    st.st_size : -1;
		else if ((k = progress_file_left(STDIN_FILENO)) != -1 &&
		    stdin_seen++)
			k = 0;	/* read to its end the first time */
		if (k == -1)
			return -1;
		total += k;
	}
	return total;
}

/*
 * Parse cat's options: return the engine's flags for the text, and set
 * *PROGRESS if --progress was given.
 */
static unsigned
parse_options(int argc, char *argv[], int *progress)
{
	unsigned flags = 0;
	int c;

	while ((c = getopt_long(argc, argv, "benstuvAET", long_options,
	    NULL)) != -1) {
		switch (c) {
		case 'b':
			flags |= SPATE_CAT_NUMBER_NONBLANK;
			break;
		case 'e':
			flags |= SPATE_CAT_SHOW_NONPRINTING | SPATE_CAT_SHOW_ENDS;
			break;
		case 'n':
			flags |= SPATE_CAT_NUMBER;
			break;
		case 's':
			flags |= SPATE_CAT_SQUEEZE;
			break;
		case 't':
			flags |= SPATE_CAT_SHOW_NONPRINTING | SPATE_CAT_SHOW_TABS;
			break;
		case 'u':
			/* Output is never held back: -u asks for nothing. */
			break;
		case 'v':
			flags |= SPATE_CAT_SHOW_NONPRINTING;
			break;
		case 'A':
			flags |= SPATE_CAT_SHOW_NONPRINTING | SPATE_CAT_SHOW_ENDS |
			    SPATE_CAT_SHOW_TABS;
			break;
		case 'E':
			flags |= SPATE_CAT_SHOW_ENDS;
			break;
		case 'T':
			flags |= SPATE_CAT_SHOW_TABS;
			break;
		case PROGRESS_OPTION:
			*progress = 1;
			if (optarg != NULL)
				progress_expect(optarg);
			break;
		case 'h':
			usage();
		case 'V':
			cmd_version("cat");
		default:
			cmd_try_help();
		}
	}
	/* -b overrides -n. */
	if (flags & SPATE_CAT_NUMBER_NONBLANK)
		flags &= ~SPATE_CAT_NUMBER;
	return flags;
}

/*
 * Open the concatenation into standard output with FLAGS, and describe
 * the output in OUT for the input-is-output check.  With PROGRESS, the
 * N inputs NAMES are measured for --progress's total.
 */
static struct spate_cat *
open_output(unsigned flags, int progress, char **names, int n,
    struct out *out)
{
	struct spate_cat *cat;
	struct stat st;

	if (fstat(STDOUT_FILENO, &st) == -1)
		err(1, "%s", _("standard output"));
	if (S_ISREG(st.st_mode)) {
		out->isreg = 1;
		out->grows = (flags & ~SPATE_CAT_SQUEEZE) != 0;
		out->append = -1;
		out->dev = st.st_dev;
		out->ino = st.st_ino;
	}
	if ((cat = spate_cat_open(STDOUT_FILENO, flags)) == NULL) {
		if (errno == ENOMEM)
			errx(1, "%s", _("memory exhausted"));
		err(1, "%s", _("standard output"));
	}
	if (progress) {
		progress_start(progress_total(names, n, flags));
		spate_cat_progress(cat, progress_update, NULL);
	}
	return cat;
}

/*
 * Copy the N inputs NAMES, in order, through CAT to OUT, and close CAT
 * and standard input if it was read.  Return 1 if every input went
 * well, 0 after a message; exit at once when the output failed.
 */
static int
copy(struct spate_cat *cat, char **names, int n, struct out *out)
{
	int i, ok = 1, read_stdin = 0;

	for (i = 0; i < n; i++) {
		read_stdin |= strcmp(names[i], "-") == 0;
		ok &= add(cat, names[i], out);
	}
	if (spate_cat_close(cat) == -1) {
		progress_break();
		err(1, "%s", _("write error"));
	}
	if (read_stdin && close(STDIN_FILENO) == -1) {
		progress_break();
		err(1, "%s", _("closing standard input"));
	}
	return ok;
}

int
main(int argc, char *argv[])
{
	static char dash[] = "-";
	static char *dflt[] = { dash };
	char **names = dflt;
	int n = 1, progress = 0;
	struct out out = { 0 };
	struct spate_cat *cat;
	unsigned flags;

	cmd_init(argv[0]);
	flags = parse_options(argc, argv, &progress);
	if (optind < argc) {
		names = argv + optind;
		n = argc - optind;
	}

	cat = open_output(flags, progress, names, n, &out);
	return copy(cat, names, n, &out) ? 0 : 1;
}
