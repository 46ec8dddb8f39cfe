#!/bin/sh
# test-lib.sh: the shell test harness, sourced by each t/tNNNN-*.sh.
#
# Each case is a title and a chain of && steps run in a scratch directory:
#
#	test_expect_success 'title' '
#		yes | head -n 2 >actual &&
#		printf "y\ny\n" >expect &&
#		test_cmp expect actual
#	'
#	test_done
#
# The commands under test are called by name (yes, tee, cat): from the build
# tree, or with TEST_HOST=1 the reference GNU tools in /usr/bin, so that
# every expectation is itself checked against GNU.
# SPATE_BIN=DIR tests the commands in DIR instead (an installed copy,
# a static build, a package).  Output is TAP.
# A case may name prerequisites (test_expect_success STRACE,!ROOT 'title'
# '...'); a missing one skips the case, and t/run counts skips apart.
# Helpers beyond the core are in t/lib-*.sh; t/README lists them all.

# Run rather than sourced (prove t/t*.sh matches this file too): no tests.
case $0 in
test-lib.sh|*/test-lib.sh)
	echo "1..0 # SKIP the harness that t/tNNNN-*.sh source, not a test"
	exit 0 ;;
esac

set -u
LC_ALL=C
export LC_ALL
unset POSIXLY_CORRECT SPATE_ZEROCOPY

TEST_DIR=$(cd "$(dirname "$0")" && pwd)
SRC_DIR=$(dirname "$TEST_DIR")
if [ "${TEST_HOST:-}" = 1 ]; then
	BIN_DIR=/usr/bin
elif [ -n "${SPATE_BIN:-}" ]; then
	BIN_DIR=$(cd "$SPATE_BIN" && pwd) || exit 1
else
	BIN_DIR=$SRC_DIR/${BUILD:-build}
fi
PATH=$BIN_DIR:$PATH
export PATH BIN_DIR TEST_DIR SRC_DIR

# The system's tools, by their path: the commands under test come first
# in PATH, and neither a helper nor an expectation may be made with them.
# SYS_CAT only copies bytes, as any cat does (plumbing, reading a file);
# GNU_CAT makes the expected output of cat's options, as GNU coreutils'
# cat does, GNU_TEE tee's (its chunks, its records), and GNU_YES
# (through lib-data.sh's yes_ref) yes's stream: cases that use them
# need the prerequisite GNU.  SQ is a single quote, for messages.
SYS_CAT=/usr/bin/cat
GNU_CAT=/usr/bin/cat
GNU_TEE=/usr/bin/tee
GNU_YES=/usr/bin/yes
SQ="'"
export SYS_CAT GNU_CAT GNU_TEE GNU_YES

# spate installed over the system's yes, tee or cat (or the commands
# under test in /usr/bin) would be its own reference: every helper and
# every expectation made with it, so that nothing it does wrong could
# show.  Refuse to run.  With TEST_HOST=1 the commands under test are
# /usr/bin's, GNU's, on purpose.
for tl_tool in "$SYS_CAT" "$GNU_CAT" "$GNU_TEE" "$GNU_YES"; do
	tl_cmd=${tl_tool##*/}
	if { [ "${TEST_HOST:-}" != 1 ] &&
	    [ "$tl_tool" -ef "$BIN_DIR/$tl_cmd" ]; } ||
	    "$tl_tool" --version 2>/dev/null | grep -q "(spate)"; then
		echo "Bail out! test-lib: $tl_tool is spate's $tl_cmd," \
			"not GNU coreutils': the tests would check spate" \
			"against itself.  Run them where /usr/bin has GNU's" \
			"yes, tee and cat."
		exit 1
	fi
done

# The script's options, as git's test-lib takes them: --run=LIST (only
# the cases numbered in LIST, such as 1,4-6; the others are skipped),
# -v (each case's output shown, passed or not), -i (stop at the first
# failing case).
test_run_list= test_verbose= test_immediate=
for test_arg in "$@"; do
	case $test_arg in
	--run=*)	test_run_list=${test_arg#--run=} ;;
	-v|--verbose)	test_verbose=1 ;;
	-i|--immediate)	test_immediate=1 ;;
	*)	echo "Bail out! test-lib: unknown option $test_arg" \
			"(--run=LIST, -v, -i)"
		exit 1 ;;
	esac
done

test_count=0
test_failed=0
TRASH=$(mktemp -d "${TMPDIR:-/tmp}/spate-test.XXXXXX") || exit 1
trap 'cd / && rm -rf "$TRASH"' EXIT
# Killed (t/run's guard against a hang): the scratch directory goes too.
trap 'exit 143' TERM
cd "$TRASH" || exit 1

# The strace the cases run: a shim (lib-strace.sh), found from the tree
# for a script outside t/ too (bench/check).
. "$SRC_DIR/t/lib-strace.sh"

# Prerequisites.  A case names them, comma separated, before its title:
# test_expect_success STRACE,!ROOT 'title' '...'.  A prerequisite is set
# (test_set_prereq) or lazy (test_lazy_prereq), and !NAME asks for it to
# be missing.  A case whose prerequisites are not met is skipped, never
# run, and reported as a skip.

# test_set_prereq NAME: the prerequisite NAME is met.
test_set_prereq() {
	eval "prereq_have_$1=yes"
}

# test_lazy_prereq NAME SCRIPT: NAME is met if SCRIPT succeeds.  SCRIPT
# runs once, when a case first asks for NAME, in a subshell in a scratch
# directory, its output in $TRASH/prereq-NAME.log.
test_lazy_prereq() {
	eval "prereq_lazy_$1=\$2"
}

# test_have_prereq NAME[,NAME...]: every NAME is met, and every !NAME is
# not.
test_have_prereq() {
	hp_rest=$1,
	while [ -n "$hp_rest" ]; do
		hp=${hp_rest%%,*} hp_rest=${hp_rest#*,}
		case $hp in
		!*)	! prereq_check "${hp#!}" || return 1 ;;
		*)	prereq_check "$hp" || return 1 ;;
		esac
	done
}

# prereq_check NAME: 0 if NAME is met, 1 if not.  A lazy NAME is decided
# here the first time, with SPATE_ZEROCOPY unset whatever the case set.
# A NAME never set nor declared ends the script: a typo must not pass for
# a skip.
prereq_check() {
	case $1 in
	*[!A-Z0-9_]*|'')
		echo "test-lib: bad prerequisite name '$1'" >&2
		exit 1 ;;
	esac
	eval "pc_have=\${prereq_have_$1:-} pc_lazy=\${prereq_lazy_$1+set}"
	if [ -z "$pc_have" ] && [ -z "$pc_lazy" ]; then
		echo "test-lib: unknown prerequisite $1" >&2
		exit 1
	fi
	if [ -z "$pc_have" ]; then
		pc_have=no
		rm -rf "$TRASH/prereq-$1" && mkdir "$TRASH/prereq-$1" || exit 1
		if (
			unset SPATE_ZEROCOPY
			cd "$TRASH/prereq-$1" &&
			eval "eval \"\$prereq_lazy_$1\""
		) >"$TRASH/prereq-$1.log" 2>&1 </dev/null
		then
			pc_have=yes
		fi
		rm -rf "$TRASH/prereq-$1"
		eval "prereq_have_$1=\$pc_have"
	fi
	[ "$pc_have" = yes ]
}

# NATIVE: the commands under test run on this machine's CPU, not under
# an emulator (SPATE_EMULATOR, set by `make check-cross` for qemu-user):
# the system calls a tracer sees are theirs, and the memory their limits
# count and the threads of their process are theirs alone, not the
# emulator's as well; a signal that kills them does so when it is sent,
# where the emulator catches every signal and passes it on later.
test_lazy_prereq NATIVE '
	test -z "${SPATE_EMULATOR:-}"
'

# STRACE: strace runs here and its fault injection works (not under a
# ptrace that forbids it, as some containers do), on the commands under
# test themselves (NATIVE): under qemu-user it would trace and inject
# into the emulator's calls, which qemu makes for its own ends as well
# as the program's, and qemu cannot trace the program (no ptrace of the
# guest).  Also with the seccomp filter that with_faults stops only the
# calls it fakes with (strace 5.3 or later).
test_lazy_prereq STRACE '
	test_have_prereq NATIVE &&
	command -v strace &&
	strace -f -qq -o /dev/null --seccomp-bpf -e trace=getpid \
		-e inject=getpid:error=EPERM true
'

# DEVFULL: /dev/full exists and can be opened for writing.
test_lazy_prereq DEVFULL '
	test -c /dev/full && test -w /dev/full
'

# SPATE: the commands under test are spate's, not GNU's (TEST_HOST=1).
test_lazy_prereq SPATE '
	test "${TEST_HOST:-}" != 1
'

# MULTICALL: the commands under test come with a multi-call spate
# beside them (the build, `make check-multi`'s links); not GNU's.
test_lazy_prereq MULTICALL '
	test_have_prereq SPATE &&
	test -x "$BIN_DIR/spate"
'

# GNU: the reference tools are GNU coreutils' (GNU_CAT, GNU_TEE,
# GNU_YES), whose output the expectations are.
test_lazy_prereq GNU '
	$GNU_CAT --version | grep -q "GNU coreutils" &&
	$GNU_TEE --version | grep -q "GNU coreutils" &&
	$GNU_YES --version | grep -q "GNU coreutils"
'

# test_require_prereq NAME: every case of the script needs NAME (GNU, for
# a script whose expectations come from GNU_CAT or yes_ref).  Without it
# none runs: the plan "1..0 # SKIP missing NAME", which t/run counts as a
# skip.
test_require_prereq() {
	test_have_prereq "$1" && return 0
	echo "1..0 # SKIP missing $1"
	exit 0
}

# ROOT: running as root, whom permission bits do not stop.
test_lazy_prereq ROOT '
	test "$(id -u)" = 0
'

# ZEROCOPY: yes makes zero-copy calls (not so in a portable build or in
# GNU's): ask the binary itself, by watching it write into a pipe.
test_lazy_prereq ZEROCOPY '
	test_have_prereq SPATE,STRACE &&
	strace -f -qq -e trace=vmsplice -o trace yes | head -c 1 >/dev/null &&
	grep vmsplice trace
'

# PYTHON3: a python3 interpreter, run with test_python3.
test_lazy_prereq PYTHON3 '
	python3 -c "import sys; print(sys.executable)" >"$TRASH/python3" &&
	test -x "$($SYS_CAT "$TRASH/python3")"
'

# test_python3 ARG...: run the python3 interpreter itself, isolated (-I
# -S): not a launcher in front of it (pyenv's shim is a shell script that
# strace and signals would meet first).  For cases that need PYTHON3.
test_python3() {
	"$(python3_path)" -I -S "$@"
}

# python3_path: print the path of that interpreter, as a word to put after
# strace or env, where a shell function cannot go.
python3_path() {
	test_have_prereq PYTHON3 && read -r pp_path <"$TRASH/python3" &&
	echo "$pp_path" || {
		echo "python3_path: no python3 (a case without PYTHON3?)" >&2
		return 1
	}
}

# test_selected N: case N is to run (the script's --run=LIST, if any,
# names it: numbers and ranges A-B, comma separated).
test_selected() {
	[ -z "$test_run_list" ] && return 0
	for ts_item in $(echo "$test_run_list" | tr , ' '); do
		case $ts_item in
		*-*)	[ "$1" -ge "${ts_item%-*}" ] &&
			[ "$1" -le "${ts_item#*-}" ] && return 0 ;;
		*)	[ "$1" = "$ts_item" ] && return 0 ;;
		esac
	done
	return 1
}

# test_expect_success [PREREQ,...] TITLE SCRIPT: one case.  SCRIPT runs
# in a subshell, in a fresh directory $TRASH/case; it passes if it exits
# 0 and what it gave test_when_finished succeeds.  Its output is shown
# only if it fails (or under -v).  Any other number of arguments (a
# quote lost) ends the script.  With SPATE_TEST_PREREQS set (t/run
# --prereqs), the prerequisites are evaluated and SCRIPT is not run.
test_expect_success() {
	case $# in
	2)	prereq= ;;
	3)	prereq=$1
		shift ;;
	*)	echo "Bail out! test_expect_success: $# arguments," \
			"not [PREREQ] TITLE SCRIPT, after case $test_count"
		exit 1 ;;
	esac
	test_count=$((test_count + 1))
	if ! test_selected $test_count; then
		echo "ok $test_count # skip $1 (--run)"
		return 0
	fi
	te_rest=${prereq:+$prereq,}
	while [ -n "$te_rest" ]; do
		p=${te_rest%%,*} te_rest=${te_rest#*,}
		if ! test_have_prereq "$p"; then
			echo "ok $test_count # skip $1 (missing $p)"
			return 0
		fi
	done
	if [ -n "${SPATE_TEST_PREREQS:-}" ]; then
		echo "ok $test_count - $1 # prerequisites met, not run"
		return 0
	fi
	rm -rf "$TRASH/case" && mkdir "$TRASH/case" && cd "$TRASH/case" ||
		exit 1
	if [ -n "${TEST_CASE_LOG:-}" ]; then
		echo "$test_count - $1" >"$TEST_CASE_LOG"
	fi
	if (
		test_cleanup=
		trap 'tc_status=$?; tc_failed=; eval "$test_cleanup"
			[ -z "$tc_failed" ] || tc_status=1; exit $tc_status' EXIT
		eval "$2"
	) >"$TRASH/log" 2>&1; then
		echo "ok $test_count - $1"
		if [ -n "$test_verbose" ]; then
			sed 's/^/#   /' "$TRASH/log"
		fi
	else
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $1"
		sed 's/^/#   /' "$TRASH/log"
		printf '#   in:%s\n' "$(echo "$2" | sed 's/^/#     /')"
		if [ -n "$test_immediate" ]; then
			echo "1..$test_count"
			exit 1
		fi
	fi
	cd "$TRASH" || exit 1
}

# test_when_finished CMD...: inside a case, run CMD when the case ends,
# passed, failed or left by exit: a clean-up that cannot be skipped.
# Clean-ups run last first; one that fails makes the case fail.
test_when_finished() {
	test_cleanup="{ $*
} || tc_failed=1; $test_cleanup"
}

# The two paths of the engine: zc, the default settings, where zero-copy
# calls (vmsplice, splice, tee) are allowed; rw, with SPATE_ZEROCOPY=0,
# read(2) and write(2) only.  GNU has no switch: with TEST_HOST=1 both
# run the same GNU command, and both must pass.

# test_path PATH [PREREQ,...] TITLE SCRIPT: one case on PATH (zc or rw),
# titled "zero-copy: TITLE" or "SPATE_ZEROCOPY=0: TITLE".  SCRIPT sees
# SPATE_ZEROCOPY=0 exported on the rw path and unset on the zc path.
test_path() {
	case $# in
	3|4)	;;
	*)	echo "Bail out! test_path: $# arguments," \
			"not PATH [PREREQ] TITLE SCRIPT, after case $test_count"
		exit 1 ;;
	esac
	tp_path=$1
	shift
	tp_prereq=
	if [ $# = 3 ]; then
		tp_prereq=$1
		shift
	fi
	case $tp_path in
	zc)	test_expect_success "$tp_prereq" "zero-copy: $1" "
		unset SPATE_ZEROCOPY
		$2" ;;
	rw)	test_expect_success "$tp_prereq" "SPATE_ZEROCOPY=0: $1" "
		SPATE_ZEROCOPY=0 && export SPATE_ZEROCOPY &&
		$2" ;;
	*)	echo "test_path: no path $tp_path" >&2; exit 1 ;;
	esac
}

# test_both_paths [PREREQ,...] TITLE SCRIPT: the case on the zc path,
# then the same case on the rw path: two cases.
test_both_paths() {
	test_path zc "$@"
	test_path rw "$@"
}

test_done() {
	echo "1..$test_count"
	[ "$test_failed" = 0 ]
	exit
}

# test_cmp EXPECT ACTUAL: the files are equal; show a diff if not.
test_cmp() {
	cmp -s "$1" "$2" && return 0
	diff -u "$1" "$2" | head -40 || echo "test_cmp: $1 and $2 differ"
	return 1
}

# test_expect_code CODE CMD...: CMD exits with status CODE; if not, say
# so on stderr and fail.  Redirections after it apply to CMD as well.
test_expect_code() {
	want=$1
	shift
	"$@"
	got=$?
	[ "$got" = "$want" ] && return 0
	echo "test_expect_code: '$*' exited $got, not $want" >&2
	return 1
}

# save_status CMD...: run CMD and write its exit status to the file
# status; return 0.  For a command on the left of a pipe, whose status
# the pipe loses:  save_status yes | head -n 1 >actual && test_status 0
save_status() {
	"$@"
	echo $? >status
}

# test_status CODE: the status that save_status wrote is CODE.
test_status() {
	ts_got=
	read -r ts_got <status && [ "$ts_got" = "$1" ] && return 0
	echo "test_status: status ${ts_got:-(none)}, not $1"
	return 1
}

# test_is_prefix FILE WHOLE: FILE is WHOLE or an exact prefix of it.
test_is_prefix() {
	n=$(test_file_size "$1") &&
	head -c "$n" "$2" | cmp -s - "$1" && return 0
	echo "test_is_prefix: $1 ($n bytes) is not a prefix of $2"
	return 1
}

# test_is_strict_prefix FILE WHOLE: FILE is an exact prefix of WHOLE and
# shorter than it.
test_is_strict_prefix() {
	test_is_prefix "$1" "$2" &&
	test "$(test_file_size "$1")" -lt "$(test_file_size "$2")" && return 0
	echo "test_is_strict_prefix: $1 is not shorter than $2"
	return 1
}

# test_file_size FILE: print the size of FILE in bytes.
test_file_size() {
	tf_size=$(wc -c <"$1") && echo $((tf_size))
}

# sigpipe_code: the exit status the shell gives a process that SIGPIPE
# killed (dash's kill -l knows no signal names, so ask a real death).
# SIGPIPE_STATUS holds it.
sigpipe_code() {
	env --default-signal=PIPE sh -c 'kill -PIPE $$'
	echo $?
}
SIGPIPE_STATUS=$(sigpipe_code)

# test_cmp_v EXPECT ACTUAL: test_cmp, but a difference is shown as cat -v
# shows it, so that the report stays text; then the bytes are compared.
# The cat is the system's, never the cat under test.
test_cmp_v() {
	$GNU_CAT -v "$1" >"$1.v" &&
	$GNU_CAT -v "$2" >"$2.v" &&
	test_cmp "$1.v" "$2.v" &&
	test_cmp "$1" "$2"
}

# test_must_be_empty FILE: FILE exists and is empty.
test_must_be_empty() {
	[ -f "$1" ] && ! [ -s "$1" ] && return 0
	echo "test_must_be_empty: $1 is not empty:"
	head -5 "$1"
	return 1
}

# strerror ERR: the message glibc prints for the errno name ERR.
strerror() {
	case $1 in
	EINVAL)	echo "Invalid argument" ;;
	ENOSYS)	echo "Function not implemented" ;;
	EPERM)	echo "Operation not permitted" ;;
	ENOMEM)	echo "Cannot allocate memory" ;;
	ENOSPC)	echo "No space left on device" ;;
	EIO)	echo "Input/output error" ;;
	EPIPE)	echo "Broken pipe" ;;
	EBADF)	echo "Bad file descriptor" ;;
	EFAULT)	echo "Bad address" ;;
	EFBIG)	echo "File too large" ;;
	EDQUOT)	echo "Disk quota exceeded" ;;
	EAGAIN)	echo "Resource temporarily unavailable" ;;
	EINTR)	echo "Interrupted system call" ;;
	EACCES)	echo "Permission denied" ;;
	EMFILE)	echo "Too many open files" ;;
	ENFILE)	echo "Too many open files in system" ;;
	EROFS)	echo "Read-only file system" ;;
	EISDIR)	echo "Is a directory" ;;
	*)	echo "strerror: unknown $1" >&2; return 1 ;;
	esac
}
