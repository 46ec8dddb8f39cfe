#!/bin/sh
# The user's pipe memory is shared: past fs.pipe-user-pages-soft (16384
# pages, 64 MiB, by default) every new pipe of that user gets 2 pages
# instead of 16.  Idle and slow yes, tee and cat must not take it: the
# user's next pipe keeps its default size while dozens of them run.  A
# fast stream still gets its big pipe.  Root is exempt from the quota, so
# the commands run as the unprivileged user nobody.
. "$(dirname "$0")/test-lib.sh"

test_lazy_prereq NOBODY '
	test_have_prereq ROOT && command -v setpriv >/dev/null &&
	id nobody >/dev/null 2>&1 && as_nobody python3 -c pass
'

# as_nobody CMD...: run CMD as nobody, from /, with the commands under
# test first in PATH, then the system's (a python3 of root's own is not
# nobody's to run).
as_nobody() {
	(cd / && setpriv --reuid=nobody --regid="$(id -g nobody)" \
		--clear-groups \
		env PATH="$BIN_DIR:/usr/local/bin:/usr/bin:/bin" "$@")
}

# next_pipe_size: the size of a new pipe of nobody's, in bytes.
next_pipe_size() {
	as_nobody python3 -c '
import fcntl, os
r, w = os.pipe()
print(fcntl.fcntl(w, 1032))	# F_GETPIPE_SZ
'
}

# crowd N PIPELINE: start N copies of PIPELINE as nobody, in the
# background, and wait until they are all running.
crowd() {
	cn=$1
	shift
	i=0
	while [ $i -lt $cn ]; do
		as_nobody sh -c "$*" &
		i=$((i + 1))
	done
	sleep 2
}

# stop_crowd: end every process of nobody's this script started.
stop_crowd() {
	pkill -u nobody -f 'sleep 30' 2>/dev/null
	pkill -u nobody -f 'trickle' 2>/dev/null
	wait
}

test_expect_success NOBODY 'the default pipe size, for reference' '
	echo 65536 >expect &&
	next_pipe_size >actual &&
	test_cmp expect actual
'

test_expect_success NOBODY '40 idle tees: the next pipe keeps its size' '
	crowd 40 "sleep 30 | tee /dev/null | sleep 30" &&
	next_pipe_size >actual &&
	stop_crowd &&
	echo 65536 >expect &&
	test_cmp expect actual
'

test_expect_success NOBODY '40 idle tees with files and cats: the next pipe keeps its size' '
	crowd 40 "sleep 30 | tee /dev/null /dev/null | cat | sleep 30" &&
	next_pipe_size >actual &&
	stop_crowd &&
	echo 65536 >expect &&
	test_cmp expect actual
'

test_expect_success NOBODY '40 trickling tees: the next pipe keeps its size' '
	crowd 40 "exec 3>&1; while :; do echo trickle; sleep 0.1; done |
		tee /dev/null /dev/null | cat >/dev/null" &&
	next_pipe_size >actual &&
	stop_crowd &&
	echo 65536 >expect &&
	test_cmp expect actual
'

test_expect_success NOBODY '40 yes | head -n 1 beside 40 idle tees: the next pipe keeps its size' '
	crowd 40 "sleep 30 | tee /dev/null | sleep 30" &&
	i=0 &&
	while [ $i -lt 40 ]; do
		as_nobody sh -c "yes | head -n 1" >/dev/null || exit 1
		i=$((i + 1))
	done &&
	next_pipe_size >actual &&
	stop_crowd &&
	echo 65536 >expect &&
	test_cmp expect actual
'

# pipe_after CMD: as nobody, 200 MB from /dev/zero through CMD into a
# reader that prints how much it read and, then, the size of its pipe.
pipe_after() {
	as_nobody sh -c "head -c 200000000 /dev/zero | $1 | python3 -c \"
import fcntl, sys
n = 0
while True:
    b = sys.stdin.buffer.read1(1 << 20)
    if not b:
        break
    n += len(b)
print(n, fcntl.fcntl(0, 1032))
\""
}

test_expect_success NOBODY,SLUICE,ZEROCOPY 'a fast stream through tee still gets a 1 MiB pipe' '
	pipe_after "tee /dev/null" >actual &&
	echo "200000000 1048576" >expect &&
	test_cmp expect actual
'

test_expect_success NOBODY,SLUICE,ZEROCOPY 'a fast stream through cat still gets a 1 MiB pipe' '
	pipe_after cat >actual &&
	echo "200000000 1048576" >expect &&
	test_cmp expect actual
'

test_done
