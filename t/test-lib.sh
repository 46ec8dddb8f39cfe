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
# The commands under test are called by name (yes, tee): from the build
# tree, or with TEST_HOST=1 the reference GNU tools in /usr/bin, so that
# every expectation is itself checked against GNU.
# SLUICE_BIN=DIR tests the yes and tee in DIR instead (an installed copy,
# a static build, a package).  Output is TAP.
# A case may name prerequisites (test_expect_success STRACE 'title' '...');
# a missing one skips the case, and t/run counts skips apart.

set -u
LC_ALL=C
export LC_ALL
unset POSIXLY_CORRECT SLUICE_ZEROCOPY

TEST_DIR=$(cd "$(dirname "$0")" && pwd)
SRC_DIR=$(dirname "$TEST_DIR")
if [ "${TEST_HOST:-}" = 1 ]; then
	BIN_DIR=/usr/bin
elif [ -n "${SLUICE_BIN:-}" ]; then
	BIN_DIR=$(cd "$SLUICE_BIN" && pwd) || exit 1
else
	BIN_DIR=$SRC_DIR/${BUILD:-build}
fi
PATH=$BIN_DIR:$PATH
export PATH BIN_DIR TEST_DIR SRC_DIR

test_count=0
test_failed=0
TRASH=$(mktemp -d "${TMPDIR:-/tmp}/sluice-test.XXXXXX") || exit 1
trap 'cd / && rm -rf "$TRASH"' EXIT
cd "$TRASH" || exit 1

# In the sanitizer build (SLUICE_SAN=1), LeakSanitizer cannot run under
# ptrace: a shim strace turns leak checks off for the commands it traces.
if [ "${SLUICE_SAN:-}" = 1 ] && real_strace=$(command -v strace); then
	mkdir "$TRASH/bin" &&
	printf '#!/bin/sh\nASAN_OPTIONS=detect_leaks=0 exec %s "$@"\n' \
		"$real_strace" >"$TRASH/bin/strace" &&
	chmod +x "$TRASH/bin/strace" || exit 1
	PATH=$TRASH/bin:$PATH
fi

# test_have_prereq NAME: true if the prerequisite NAME is met.
test_have_prereq() {
	case $1 in
	STRACE)	command -v strace >/dev/null &&
		strace -f -qq -o /dev/null -e inject=getpid:error=EPERM \
			true 2>/dev/null ;;
	DEVFULL) [ -c /dev/full ] && [ -w /dev/full ] ;;
	SLUICE)	[ "${TEST_HOST:-}" != 1 ] ;;
	# Zero-copy calls are made (not so in a portable build): ask the
	# binary itself, once, by watching yes write into a pipe.
	ZEROCOPY) test_have_prereq SLUICE && test_have_prereq STRACE ||
		return 1
		if [ -z "${zerocopy_have:-}" ]; then
			strace -f -qq -e trace=vmsplice -o "$TRASH/zerocopy" \
				yes | head -c 1 >/dev/null
			zerocopy_have=no
			grep -q vmsplice "$TRASH/zerocopy" && zerocopy_have=yes
		fi
		[ "$zerocopy_have" = yes ] ;;
	ROOT)	[ "$(id -u)" = 0 ] ;;
	*)	echo "test-lib: unknown prerequisite $1" >&2; return 1 ;;
	esac
}

# test_expect_success [PREREQ,...] TITLE SCRIPT
test_expect_success() {
	prereq=
	if [ $# = 3 ]; then
		prereq=$1
		shift
	fi
	test_count=$((test_count + 1))
	for p in $(echo "$prereq" | tr , ' '); do
		if ! test_have_prereq "$p"; then
			echo "ok $test_count # skip $1 (missing $p)"
			return 0
		fi
	done
	rm -rf "$TRASH/case" && mkdir "$TRASH/case" && cd "$TRASH/case" ||
		exit 1
	if (eval "$2") >"$TRASH/log" 2>&1; then
		echo "ok $test_count - $1"
	else
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $1"
		sed 's/^/#   /' "$TRASH/log"
		printf '#   in:%s\n' "$(echo "$2" | sed 's/^/#     /')"
	fi
	cd "$TRASH" || exit 1
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

# test_expect_code CODE CMD...: CMD exits with status CODE.
test_expect_code() {
	want=$1
	shift
	"$@"
	got=$?
	[ "$got" = "$want" ] && return 0
	echo "test_expect_code: '$*' exited $got, not $want"
	return 1
}

# test_file_size FILE: print the size of FILE in bytes.
test_file_size() {
	wc -c <"$1" | tr -d ' '
}

# sigpipe_code: the exit status the shell gives a process that SIGPIPE
# killed (dash's kill -l knows no signal names, so ask a real death).
sigpipe_code() {
	env --default-signal=PIPE sh -c 'kill -PIPE $$'
	echo $?
}

# yes_ref LINE... : the expected stream of `yes LINE...`, from GNU yes.
yes_ref() {
	/usr/bin/yes "$@"
}

# yes_prefix FILE LINE...: FILE is an exact prefix of `yes LINE...`.
yes_prefix() {
	f=$1
	shift
	yes_ref "$@" | head -c "$(test_file_size "$f")" >prefix &&
	cmp prefix "$f"
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
