#!/bin/sh
# The user's pipe memory is shared: past fs.pipe-user-pages-soft (16384
# pages, 64 MiB, by default) every new pipe of that user gets 2 pages
# instead of 16.  Idle and slow yes, tee and cat must not take it: the
# user's next pipe keeps its default size while dozens of them run.
# Stalled fast pipelines must not take it sooner than GNU 9.11's, whose
# yes and cat grow a pipe to 512 KiB and whose tee grows none.  A fast
# stream out of yes or cat still gets its big pipe.  Root
# is exempt from the quota: the commands run as an unprivileged uid of
# this script's own (lib-quota.sh).
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-quota.sh"

Q=QUOTA_SETUID,QUOTA_COPY,QUOTA_PYTHON3

test_expect_success $Q 'the uid runs the commands under test' '
	as_quota sh -c "for c in yes tee cat; do command -v \$c; done" >actual &&
	printf "%s\n" "$QUOTA_BIN/yes" "$QUOTA_BIN/tee" "$QUOTA_BIN/cat" >expect &&
	test_cmp expect actual &&
	for c in yes tee cat; do
		cmp "$BIN_DIR/$c" "$QUOTA_BIN/$c" || return 1
	done
'

test_expect_success $Q 'the default pipe size, for reference' '
	echo 65536 >expect &&
	quota_next_pipe >actual &&
	test_cmp expect actual
'

test_expect_success $Q '40 idle tees: the next pipe keeps its size' '
	quota_crowd 40 "sleep infinity | tee /dev/null | sleep infinity" &&
	quota_wait 40 tee input &&
	quota_next_pipe >actual &&
	quota_stop &&
	echo 65536 >expect &&
	test_cmp expect actual
'

test_expect_success $Q '40 idle tees with files and cats: the next pipe keeps its size' '
	quota_crowd 40 "sleep infinity | tee /dev/null /dev/null | cat | sleep infinity" &&
	quota_wait 40 tee input &&
	quota_wait 40 cat "*pipe*" &&
	quota_next_pipe >actual &&
	quota_stop &&
	echo 65536 >expect &&
	test_cmp expect actual
'

test_expect_success $Q '40 trickling tees: the next pipe keeps its size' '
	quota_crowd 40 "while :; do echo trickle; sleep 0.1; done |
		tee /dev/null /dev/null | cat >/dev/null" &&
	quota_wait 40 tee &&
	quota_wait 40 cat &&
	quota_next_pipe >actual &&
	quota_stop &&
	echo 65536 >expect &&
	test_cmp expect actual
'

test_expect_success $Q '40 yes | head -n 1 beside 40 idle tees: the next pipe keeps its size' '
	quota_crowd 40 "sleep infinity | tee /dev/null | sleep infinity" &&
	quota_wait 40 tee input &&
	i=0 &&
	while [ $i -lt 40 ]; do
		as_quota sh -c "yes | head -n 1" >/dev/null || return 1
		i=$((i + 1))
	done &&
	quota_next_pipe >actual &&
	quota_stop &&
	echo 65536 >expect &&
	test_cmp expect actual
'

# A stalled fast pipeline: 20 MB went through, then its reader stops
# reading and holds the pipe open.  GNU 9.11 yes grows its pipe to
# 512 KiB (128 pages): 127 such pipelines leave the next pipe its size,
# and so must spate's.
test_expect_success $Q '100 stalled yes | reader: the next pipe keeps its size' '
	quota_crowd 100 "yes | (head -c 20000000 >/dev/null; exec sleep infinity)" &&
	quota_wait 100 sleep &&
	quota_wait 100 yes "*pipe*" &&
	quota_next_pipe >actual &&
	quota_stop &&
	echo 65536 >expect &&
	test_cmp expect actual
'

# tee, like GNU's, grows no output pipe, and gives its chunk and copy
# pipes back once the output stays full: then it waits to write (in
# poll(2) for room, with two outputs, where GNU waits in write(2)).
# With yes's pipe, 144 pages a stalled pipeline, as GNU 9.11's: 110 leave
# the next pipe its size (GNU 9.11: 116).  They start ten at a time, each
# ten once the ten before have stalled, as a user's pipelines come and
# stall one after another.  Had the budget run out on the way, the last
# ones' pipes could not have grown as the first ones' did: every tee's
# pipes must be the same sizes.
test_expect_success $Q '110 stalled yes | tee /dev/null | reader: the next pipe keeps its size' '
	quota_stop >/dev/null &&
	for n in 10 20 30 40 50 60 70 80 90 100 110; do
		quota_more 10 "yes | tee /dev/null |
			(head -c 20000000 >/dev/null; exec sleep infinity)" &&
		quota_wait $n sleep &&
		quota_wait $n tee output &&
		quota_wait $n yes "*pipe*" || exit 1
	done &&
	quota_next_pipe >actual &&
	quota_pipe_sizes tee >sizes &&
	quota_stop &&
	echo 65536 >expect &&
	test_cmp expect actual &&
	test $(wc -l <sizes) = 110 &&
	uniq sizes >sizes.uniq &&
	test $(wc -l <sizes.uniq) = 1
'

# quota_fast_pipe CMD: as the uid, 200 MB from /dev/zero through CMD into
# a reader that prints how much it read and, then, the size of its pipe.
quota_fast_pipe() {
	as_quota sh -c "head -c 200000000 /dev/zero | $1 | python3 -c \"
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

# Its output pipe is its reader's: tee leaves it the size it was made,
# as GNU's tee does, however fast the stream.
test_expect_success $Q,GNU,ZEROCOPY 'a fast stream through tee: its output pipe keeps its size, as GNU' '
	quota_fast_pipe "tee /dev/null" >actual &&
	quota_fast_pipe "$GNU_TEE /dev/null" >expect &&
	test_cmp expect actual
'

test_expect_success $Q,SPATE,ZEROCOPY 'a fast stream through cat still gets a 512 KiB pipe' '
	quota_fast_pipe cat >actual &&
	echo "200000000 524288" >expect &&
	test_cmp expect actual
'

quota_stop >/dev/null
# The quota spent (pipes of the uid's own grown to 1 MiB until the next
# growth is refused): tee, asking to grow its chunk pipe, is refused, and
# asks again only for another size, not at every chunk, and loses
# nothing.
test_expect_success $Q,STRACE,SPATE,ZEROCOPY 'the quota spent: a refused growth is not asked for again' '
	head -c 41943040 /dev/zero >in &&
	chmod 0644 in && chmod 0777 . &&
	as_quota python3 -c "
import fcntl, os, subprocess, sys
held = []
while len(held) < 4096:
    r, w = os.pipe()
    held.append((r, w))
    try:
        fcntl.fcntl(w, 1031, 1 << 20)
    except OSError:
        break
sys.exit(subprocess.call([\"strace\", \"-f\", \"-qq\", \"-o\", \"$PWD/trace\",
    \"-e\", \"trace=fcntl\", \"tee\", \"$PWD/f1\"], stdin=open(\"$PWD/in\"),
    stdout=subprocess.DEVNULL))
" &&
	cmp in f1 &&
	grep "F_SETPIPE_SZ.*= -1 EPERM" trace >refused &&
	echo "$(wc -l <refused) growths refused" &&
	test "$(wc -l <refused)" -le 16
'

test_done
