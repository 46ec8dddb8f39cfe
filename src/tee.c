/* tee: copy standard input to each FILE, and also to standard output. */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spate.h"
#include "cmd.h"
#include "progress.h"

/* What a write error does, as --output-error's MODE says. */
enum mode {
	M_SIGPIPE,	/* default: SIGPIPE kills, other errors warn */
	M_WARN,
	M_WARN_NOPIPE,
	M_EXIT,
	M_EXIT_NOPIPE
};

static const char *const mode_names[] = {
	"warn", "warn-nopipe", "exit", "exit-nopipe"
};

/* --slow-output's MODEs, in the order of enum spate_slow. */
static const char *const slow_names[] = { "wait", "close", "drop" };

/*
 * The lag --slow-output allows without --lag: a few MiB per output is
 * within any user's means, and rides out a reader's pause of a second
 * or so at a disk's or a network's speed.
 */
#define DEFAULT_LAG	(4LL << 20)

/* The long options GNU's tee does not have, past the short ones. */
enum { OPT_LAG = 256, OPT_SLOW, OPT_PROGRESS };

static const struct option long_options[] = {
	{ "append", no_argument, NULL, 'a' },
	{ "ignore-interrupts", no_argument, NULL, 'i' },
	{ "output-error", optional_argument, NULL, 'p' },
	{ "lag", required_argument, NULL, OPT_LAG },
	{ "slow-output", required_argument, NULL, OPT_SLOW },
	{ "progress", optional_argument, NULL, OPT_PROGRESS },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'v' },
	{ NULL, 0, NULL, 0 }
};

struct run {
	char **names;	/* names[i] for output i; names[0] is stdout */
	enum mode mode;
	int ok;
	struct spate_fanout_opts opts;
	enum spate_side side;	/* the engine's, when it returns -1 */
};

_Noreturn static void
usage(void)
{
	printf(_("Usage: %s [OPTION]... [FILE]...\n"), program_invocation_name);
	fputs(_("Copy standard input to each FILE, and also to standard output.\n"
	    "\n"
	    "  -a, --append              append to the given FILEs, do not overwrite\n"
	    "  -i, --ignore-interrupts   ignore interrupt signals\n"), stdout);
	fputs(_("  -p                        diagnose errors writing to non pipes\n"
	    "      --output-error[=MODE]   set behavior on write error.  See MODE below\n"),
	    stdout);
	fputs(_(HELP_OPTION_DESCRIPTION), stdout);
	fputs(_(VERSION_OPTION_DESCRIPTION), stdout);
	fputs(_("\n"
	    "MODE determines behavior with write errors on the outputs:\n"
	    "  warn           diagnose errors writing to any output\n"
	    "  warn-nopipe    diagnose errors writing to any output not a pipe\n"
	    "  exit           exit on error writing to any output\n"
	    "  exit-nopipe    exit on error writing to any output not a pipe\n"
	    "The default MODE for the -p option is 'warn-nopipe'.\n"
	    "The default operation when --output-error is not specified, is to\n"
	    "exit immediately on error writing to a pipe, and diagnose errors\n"
	    "writing to non pipe outputs.\n"), stdout);
	fputs(_("\n"
	    "Extensions:\n"
	    "      --lag=SIZE            let each output fall up to SIZE bytes behind\n"
	    "                              the fastest (SIZE as head -c takes it); the\n"
	    "                              input then goes through memory, a thread\n"
	    "                              for each output: 2-3 times the CPU time\n"
	    "      --slow-output=MODE    what becomes of a slow output: 'wait' for it\n"
	    "                              (the default), 'close' it, or 'drop' what\n"
	    "                              it misses; without --lag, a lag of 4 MiB.\n"
	    "                              An output is slow when it is more than the\n"
	    "                              lag behind and has not taken 8 KiB in 2\n"
	    "                              seconds.  A file or a device never is.\n"
	    "      --progress[=SIZE]     show on standard error how far the copy has come\n"
	    "                              (out of SIZE bytes, if given)\n"),
	    stdout);
	cmd_help_footer("tee");
	exit(cmd_flush_stdout());
}

/*
 * The index of the one of the N NAMES that ARG names for option OPT:
 * exact, or an unambiguous prefix, as GNU's argmatch.
 */
static size_t
parse_name(const char *arg, const char *const *names, size_t n,
    const char *opt)
{
	/* ARG is getopt_long's, never NULL here; the analyzer carries an
	 * earlier -p's NULL over to the next option. */
	size_t i, len = strlen(arg);	/* NOLINT(clang-analyzer-core.NonNullParamChecker) */
	int found = -1, ambiguous = 0;

	for (i = 0; i < n; i++) {
		if (strcmp(arg, names[i]) == 0)
			return i;
		if (strncmp(arg, names[i], len) == 0) {
			ambiguous = found != -1;
			found = i;
		}
	}
	if (found != -1 && !ambiguous)
		return found;
	warnx(found == -1 ? _("invalid argument %s for %s") :
	    _("ambiguous argument %s for %s"), cmd_quote_n(0, arg),
	    cmd_quote_n(1, opt));
	fputs(_("Valid arguments are:"), stderr);
	for (i = 0; i < n; i++)
		fprintf(stderr, "\n  - %s", cmd_quote(names[i]));
	fputc('\n', stderr);
	cmd_try_help();
}

static enum mode
parse_mode(const char *arg)
{
	return M_WARN + parse_name(arg, mode_names,
	    sizeof mode_names / sizeof *mode_names, "--output-error");
}

/* --lag's SIZE, or an error in GNU's words for a bad size (head -c's). */
static off_t
parse_lag(const char *arg)
{
	off_t size;

	if (cmd_size(arg, &size) == 0)
		return size;
	if (errno == EOVERFLOW)
		errx(1, "%s: %s: %s", _("invalid number of bytes"), cmd_quote(arg),
		    strerror(errno));
	errx(1, "%s: %s", _("invalid number of bytes"), cmd_quote(arg));
}

static int
exits(enum mode m)
{
	return m == M_EXIT || m == M_EXIT_NOPIPE;
}

/*
 * How the engine is to copy in mode M.  Where an error stops tee, no
 * output may have had more than GNU gives it: GNU's chunks, served in
 * order on one thread.  In the nopipe modes an output pipe whose reader
 * left is dropped while the input is idle, as GNU 9.2's tee does, so
 * that tee ends once every output is such a pipe.
 */
static unsigned
fanout_flags(enum mode m)
{
	unsigned flags = exits(m) ? SPATE_FANOUT_GNU_CHUNKS :
	    SPATE_FANOUT_THREADS;

	if (m == M_WARN_NOPIPE || m == M_EXIT_NOPIPE)
		flags |= SPATE_FANOUT_PIPE_CHECK;
	return flags;
}

/* The engine's report of a failed output: warn, and maybe stop. */
static int
failed(void *ctx, size_t i, int err)
{
	struct run *r = ctx;

	/* A broken pipe is worth a word only in the warn and exit modes. */
	if (err == EPIPE && r->mode != M_WARN && r->mode != M_EXIT)
		return 0;
	progress_break();
	/* Translated only here: looking it up opens the catalog. */
	cmd_warn_name(i == 0 ? _(r->names[0]) : r->names[i], err);
	r->ok = 0;
	return exits(r->mode) ? -1 : 0;
}

/* The engine's report of an output too slow for the lag. */
static void
too_slow(void *ctx, size_t i, enum spate_slow what, long long missed)
{
	struct run *r = ctx;
	const char *name = i == 0 ? _(r->names[0]) : r->names[i];

	progress_break();
	if (what == SPATE_SLOW_CLOSE)
		warnx("%s: %s", cmd_quotef(name), _("output too slow, closed"));
	else
		warnx(_("%s: output too slow, %jd bytes dropped"),
		    cmd_quotef(name), (intmax_t)missed);
	r->ok = 0;
}

/* Open NAME for output; keep it off fds 0-2, as GNU's fopen_safer. */
static int
open_out(const char *name, int append)
{
	int fd = open(name, O_WRONLY | O_CREAT | O_CLOEXEC |
	    (append ? O_APPEND : O_TRUNC), 0666);

	if (fd >= 0 && fd <= STDERR_FILENO) {
		int hi = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
		int e = errno;

		close(fd);
		errno = e;
		fd = hi;
	}
	return fd;
}

/*
 * Parse tee's options into R; return whether -a was given.  Settles
 * what the options imply together: SIGPIPE ignored in every mode but
 * the default, --slow-output's lag without --lag, and the refusal of a
 * lag under a seccomp filter (before a file is opened).
 */
static int
parse_options(int argc, char *argv[], struct run *r)
{
	int c, append = 0, lag_given = 0, slow_given = 0;

	while ((c = getopt_long(argc, argv, "aip", long_options, NULL)) != -1) {
		switch (c) {
		case 'a':
			append = 1;
			break;
		case 'i':
			signal(SIGINT, SIG_IGN);
			break;
		case 'p':
			r->mode = optarg ? parse_mode(optarg) : M_WARN_NOPIPE;
			break;
		case OPT_LAG:
			r->opts.lag = parse_lag(optarg);
			lag_given = 1;
			break;
		case OPT_SLOW:
			r->opts.slow = parse_name(optarg, slow_names,
			    sizeof slow_names / sizeof *slow_names,
			    "--slow-output");
			slow_given = 1;
			break;
		case OPT_PROGRESS:
			r->opts.progress = progress_update;
			if (optarg != NULL)
				progress_expect(optarg);
			break;
		case 'h':
			usage();
		case 'v':
			cmd_version("tee");
		default:
			cmd_try_help();
		}
	}
	if (r->mode != M_SIGPIPE)
		signal(SIGPIPE, SIG_IGN);
	if (slow_given && !lag_given)
		r->opts.lag = DEFAULT_LAG;
	r->opts.flags = fanout_flags(r->mode);
	r->opts.slow_fn = too_slow;
	r->opts.side = &r->side;
	/* A lag takes a thread an output, which a seccomp filter may kill
	 * for: refused there, unless trusted. */
	if ((lag_given || slow_given) && spate_gnu_calls())
		errx(1, "%s", _("--lag and --slow-output need threads, which "
		    "a seccomp filter may kill for; SPATE_SECCOMP=trust "
		    "allows them"));
	return append;
}

/*
 * The N outputs: standard output, then each FILE of R's names opened.
 * A FILE that cannot be opened is told and left out (fd -1), or ends
 * tee in the exit modes, as GNU's.
 */
static struct spate_out *
open_outputs(struct run *r, int n, int append)
{
	struct spate_out *outs;
	int i;

	if ((outs = calloc(n, sizeof *outs)) == NULL)
		errx(1, "%s", _("memory exhausted"));
	outs[0].fd = STDOUT_FILENO;
	/* "-" is a file like any other, as POSIX asks. */
	for (i = 1; i < n; i++) {
		if ((outs[i].fd = open_out(r->names[i], append)) == -1) {
			cmd_warn_name(r->names[i], errno);
			if (exits(r->mode))
				exit(1);
			r->ok = 0;
		}
	}
	return outs;
}

/* Copy standard input to the N outputs OUTS, telling a failure. */
static void
copy(struct run *r, struct spate_out *outs, int n)
{
	if (r->opts.progress != NULL)
		progress_start(progress_file_left(STDIN_FILENO));
	if (spate_fanout_with(STDIN_FILENO, outs, n, &r->opts, failed,
	    r) == -1) {
		progress_break();
		/* The engine's own pipe is no read of the input's; the lag's
		 * threads or memory refused are no read at all. */
		warn("%s", r->side == SPATE_PRIVATE ? _("internal pipe") :
		    r->side == SPATE_MEMORY ? _("cannot start the lag") :
		    _("read error"));
		r->ok = 0;
	}
}

/* Close the FILEs among the N outputs OUTS, telling a failure. */
static void
close_outputs(struct run *r, struct spate_out *outs, int n)
{
	int i;

	for (i = 1; i < n; i++)
		if (outs[i].fd != -1 && close(outs[i].fd) == -1) {
			progress_break();
			cmd_warn_name(r->names[i], errno);
			r->ok = 0;
		}
}

int
main(int argc, char *argv[])
{
	struct run r = { .mode = M_SIGPIPE, .ok = 1, .side = SPATE_INPUT };
	struct spate_out *outs;
	int append, n;

	cmd_init(argv[0]);
	append = parse_options(argc, argv, &r);
	n = argc - optind + 1;
	r.names = argv + optind - 1;
	r.names[0] = "standard output";

	outs = open_outputs(&r, n, append);
	copy(&r, outs, n);
	close_outputs(&r, outs, n);
	free(outs);
	if (close(STDIN_FILENO) == -1) {
		progress_break();
		err(1, "%s", _("standard input"));
	}
	return r.ok ? 0 : 1;
}
