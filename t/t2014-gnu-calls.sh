#!/bin/sh
# yes, tee and cat live wherever GNU 9.11's live (issue 51).  For each
# command line of t/gnu-calls/corpus.sh (yes | head, yes > file, cat
# between pipes, files, /dev/null and sockets, cat -n -A -v -s, tee with
# one, three or no files, -a, -p, from a file, a pipe or a socket, to a
# pipe, a file, /dev/null or a socket), the system calls GNU 9.11 makes
# there, recorded with strace -f (loader and libc start-up included) and
# shipped as NAME.calls (scripts/record-gnu-calls), make a filter that
# allows exactly those and kills the process at any other; spate's
# command runs under it and must give what GNU 9.1 gives without a
# filter: every output byte for byte, and the status.  The same under a
# filter that kills clone, clone3, fork and vfork only (systemd's
# SystemCallFilter=~@process), and under one that kills the four
# zero-copy calls, where spate may die only where GNU 9.11 does (its
# list has one of them); and under a harmless filter (acct refused,
# as any container refuses some call), where strace -f sees no clone,
# clone3, fork or vfork.  spate's own options (--progress) have no GNU
# command line to take a list from: those cases run under the two
# deny-lists alone.  The lists are x86_64's: elsewhere the allow-lists
# are skipped.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-fd.sh"
. "$TEST_DIR/lib-calls.sh"
test_require_prereq GNU

LISTS=$SRC_DIR/t/gnu-calls
IN=$TRASH/in
SOCKIN=$SOCKET_STDIN_PY
SOCKOUT=$TRASH/sockout.py

test_lazy_prereq LISTS_ARCH '
	test "$(uname -m)" = x86_64
'

test_expect_success 'setup: the input, text and binary bytes' '
	{ seq 1 100000 && head -c 1000000 /dev/urandom &&
	  seq 1 50000; } >"$IN" &&
	printf "%s\n" "$SOCKET_STDOUT_PY" >"$SOCKOUT"
'

# gc_run DIR W B X SNIPPET: run SNIPPET in the new directory DIR with
# its W, B and X.
gc_run() {
	mkdir "$1" &&
	(cd "$1" && W=$2 B=$3 X=$4 && eval "$5") 2>"$1.err"
}

# gc_check NAME EXTRA SNIPPET FILTER [LIKE]: GNU 9.1's run of the case,
# then spate's under FILTER (allow: NAME's list; process: ~@process; zc:
# the zero-copy calls killed, which GNU 9.11 dies of where its list, or
# LIKE's, has one; traced: a harmless filter, under strace); the same
# files, bytes and status.
gc_check() {
	rm -rf gnu spate gnu.err spate.err &&
	gc_run gnu "" /usr/bin "" "$3" &&
	case $4 in
	allow)	gc_w="$CALLFILTER -a $(calls_listed "$LISTS/$1.calls") --" ;;
	process) gc_w="$CALLFILTER -k $(call_numbers clone clone3 fork vfork) --" ;;
	zc)	gc_w="$CALLFILTER -k $(call_numbers vmsplice splice tee \
			copy_file_range) --" ;;
	traced)	gc_w="env SPATE_SECCOMP= strace -f -qq -o $TRASH/procs \
			-e trace=clone,clone3,fork,vfork \
			$CALLFILTER -e $(call_numbers acct) --" ;;
	esac &&
	gc_run spate "$gc_w" "$BIN_DIR" "$2" "$3" &&
	if ! diff -r gnu spate >diff; then
		if [ $4 = zc ] &&
		    grep -qx "vmsplice\|splice\|tee\|copy_file_range" \
			"$LISTS/${5:-$1}.calls"; then
			return 0	# GNU 9.11 is killed there too
		fi
		head -n 20 diff spate.err
		return 1
	fi &&
	if [ $4 = traced ] &&
	    grep -E "^[0-9]+ +(clone|clone3|fork|vfork)\(" "$TRASH/procs"
	then
		return 1	# a process or a thread made
	fi
}

# gnu_case NAME EXTRA SNIPPET [LIKE]: the corpus's cases, under each
# filter.  The sanitizer build's runtime makes calls of its own (a thread
# for its leak check at exit): no allow-list or ~@process case there (a
# skip would fail a run with SPATE_NO_SKIP).
gnu_case() {
	gk_pre=CALLFILTER,SPATE
	case $3 in
	*'$PY'*)	gk_pre=$gk_pre,PYTHON3 ;;
	esac
	if [ -z "$2" ] && test_have_prereq PLAIN_BUILD; then
		test_expect_success $gk_pre,LISTS_ARCH \
			"$1: GNU 9.11's calls only" "
			PY=\$(python3_path 2>/dev/null || :) &&
			gc_check $1 '$2' '$3' allow
		"
	fi
	if test_have_prereq PLAIN_BUILD; then
		test_expect_success $gk_pre \
			"$1: no process made (~@process)" "
			PY=\$(python3_path 2>/dev/null || :) &&
			gc_check $1 '$2' '$3' process
		"
	fi
	test_expect_success $gk_pre \
		"$1: zero-copy calls killed, dies only where GNU 9.11 does" "
		PY=\$(python3_path 2>/dev/null || :) &&
		gc_check $1 '$2' '$3' zc ${4:-}
	"
	test_expect_success $gk_pre,STRACE \
		"$1: a harmless filter, no clone, fork or vfork (strace)" "
		PY=\$(python3_path 2>/dev/null || :) &&
		gc_check $1 '$2' '$3' traced
	"
}
. "$LISTS/corpus.sh"

test_done
