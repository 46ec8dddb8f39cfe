#!/bin/sh
# Memory under an address-space limit (ulimit -v): cat and tee work
# wherever GNU 9.1's do, and where memory runs out they say GNU's
# "memory exhausted", status 1, not an I/O error.  The limits are not
# fixed (they differ with each build and C library): each case finds by
# bisection the least GNU's command needs here, and runs ours at that
# and a margin of 64 KiB (the binaries' own sizes differ by some KiB).
# Then the allocations themselves made to fail (t/inject/): tee copies
# on without a buffer of its own, as GNU's, whose is on its stack.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-proc.sh"
. "$TEST_DIR/lib-fault.sh"
. "$TEST_DIR/lib-fd.sh"

test_expect_success 'setup: 100,000 numbered lines; 8 MiB' '
	seq 1 100000 >"$TRASH/f" &&
	head -c 8388608 /dev/urandom >"$TRASH/big"
'

# mem_min CMD...: print the least ulimit -v (KiB, to 8 KiB) under which
# CMD, stdin $MEM_IN (f unless set) and stdout out, exits 0, between 1
# and 64 MiB.
mem_min() {
	mm_lo=1024 mm_hi=65536
	while [ $((mm_hi - mm_lo)) -gt 8 ]; do
		mm_mid=$(((mm_lo + mm_hi) / 2))
		if with_ulimit -v $mm_mid "$@" <"${MEM_IN:-$TRASH/f}" >out \
		    2>/dev/null; then
			mm_hi=$mm_mid
		else
			mm_lo=$mm_mid
		fi
	done
	echo $mm_hi
}

# mem_as_gnu CMD ARG...: CMD (cat or tee: ours, by name) works under
# the least limit GNU's (GNU_CAT, GNU_TEE) needs with the same ARGs, and
# a margin, and writes what GNU's writes.  Needs GNU.
mem_as_gnu() {
	gnu=$1
	shift
	case $gnu in
	cat)	gnu_ref=$GNU_CAT ;;
	tee)	gnu_ref=$GNU_TEE ;;
	esac &&
	lim=$(mem_min "$gnu_ref" "$@") &&
	echo "$gnu_ref $* needs $lim KiB" &&
	$gnu_ref "$@" <"${MEM_IN:-$TRASH/f}" >expect &&
	with_ulimit -v $((lim + 64)) $gnu "$@" <"${MEM_IN:-$TRASH/f}" \
		>actual &&
	cmp expect actual
}

# UTF8: the C.UTF-8 locale is there.  Its files, which glibc maps at
# start-up, take what a tight limit leaves to the command.
test_lazy_prereq UTF8 '
	locale -a | grep -qix "c\.utf-\?8"
'

# The sanitizer build reserves terabytes of shadow memory at start-up and
# cannot run under an address-space limit at all: no case for it.  Nor
# can qemu-user (NATIVE): the limit would count the emulator's memory.
if [ "${SPATE_SAN:-}" != 1 ]; then
	for loc in C C.UTF-8; do
		p=NATIVE,GNU
		[ $loc = C ] || p=NATIVE,UTF8,GNU
		test_both_paths $p "LC_ALL=$loc: cat FILE into a file works where GNU 9.1 does" '
			LC_ALL='$loc' && mem_as_gnu cat "$TRASH/f"
		'
		test_both_paths $p "LC_ALL=$loc: cat from standard input works where GNU 9.1 does" '
			LC_ALL='$loc' && mem_as_gnu cat
		'
		test_both_paths $p "LC_ALL=$loc: cat -n FILE works where GNU 9.1 does" '
			LC_ALL='$loc' && mem_as_gnu cat -n "$TRASH/f"
		'
		test_both_paths $p "LC_ALL=$loc: cat -A FILE works where GNU 9.1 does" '
			LC_ALL='$loc' && mem_as_gnu cat -A "$TRASH/f"
		'
		test_both_paths $p "LC_ALL=$loc: tee FILE works where GNU 9.1 does" '
			LC_ALL='$loc' && mem_as_gnu tee o1 &&
			cmp "$TRASH/f" o1
		'
		# 8 MiB: past where tee's chunk pipe grows (4 MiB), into
		# files that take write(2), which need the chunk in memory.
		test_both_paths $p "LC_ALL=$loc: tee -a F1 F2, 8 MiB, works where GNU 9.1 does" '
			LC_ALL='$loc' && MEM_IN=$TRASH/big &&
			lim=$(mem_min sh -c ": >o1 && : >o2 && exec \"\$0\" -a o1 o2" \
				"$GNU_TEE") &&
			echo "$GNU_TEE -a o1 o2 needs $lim KiB" &&
			: >o1 && : >o2 &&
			with_ulimit -v $((lim + 64)) tee -a o1 o2 <"$TRASH/big" \
				>actual &&
			cmp "$TRASH/big" actual &&
			cmp "$TRASH/big" o1 && cmp "$TRASH/big" o2
		'
	done

	# mem_exhausted CMD...: just under the least limit CMD needs, it says
	# "CMD: memory exhausted" and exits 1.
	mem_exhausted() {
		lim=$(mem_min "$@") &&
		save_status with_ulimit -v $((lim - 8)) "$@" <"$TRASH/f" >out 2>err &&
		echo "$1: memory exhausted" >expect &&
		test_cmp expect err &&
		test_status 1
	}

	test_both_paths NATIVE 'cat -n short of memory: memory exhausted' '
		mem_exhausted cat -n "$TRASH/f"
	'
	test_both_paths NATIVE 'tee short of memory: memory exhausted' '
		mem_exhausted tee o1
	'
fi

# Every allocation of a page or more fails: tee copies on through GNU's
# 8 KiB of its own, as GNU's tee copies through its stack, into a pipe
# and two files, from a pipe.  (0.3.0 said "read error: Cannot allocate
# memory" and wrote nothing.)
test_both_paths SPATE,INJECT 'tee F1 F2, no heap of a page: copies on' '
	$SYS_CAT "$TRASH/big" | save_status with_inject \
		"realloc:size=4096+:error=ENOMEM calloc:size=4096+:error=ENOMEM" \
		tee o1 o2 >actual 2>err &&
	test_status 0 &&
	test_injected "^realloc\(" &&
	test_must_be_empty err &&
	cmp "$TRASH/big" actual &&
	cmp "$TRASH/big" o1 && cmp "$TRASH/big" o2
'

# The same from a socket that keeps records apart: records of 6000
# bytes, each whole in GNU's 8 KiB, and in every output whole.
test_expect_success SPATE,INJECT,PYTHON3 'tee F1 F2 from 6000-byte records, no heap of a page: every record' '
	head -c $((6000 * 12 + 1234)) "$TRASH/big" >in &&
	: >injected &&
	with_record_stdin seqpacket 6000 env LD_PRELOAD="$INJECT_SO" \
		ASAN_OPTIONS="$INJECT_ASAN_OPTIONS" \
		SPATE_INJECT="realloc:size=4096+:error=ENOMEM calloc:size=4096+:error=ENOMEM" \
		SPATE_INJECTED="$PWD/injected" timeout 60 tee o1 o2 <in >actual &&
	test_injected "^realloc\(" &&
	cmp in actual && cmp in o1 && cmp in o2
'

# A socket output with the smallest send buffer keeps the chunks under
# a page, so that the heap gives tee a buffer smaller than a page; when
# the socket is gone and the chunks may grow, that buffer moves to the
# 8 KiB of tee's own (an assertion failed there once).  The reader takes
# 100,000 bytes and leaves; tee -p goes on into the file.  It leaves by
# shutdown(2), closing only after tee ended: a close with bytes unread
# would make tee's next write fail with ECONNRESET, not EPIPE, an error
# that -p tells.
test_expect_success SPATE,INJECT,PYTHON3 'tee -p F >small socket that leaves, no heap of a page: F whole' '
	: >injected &&
	test_python3 -c "
import os, socket, subprocess, sys
a, b = socket.socketpair()
a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1)
env = dict(os.environ, LD_PRELOAD=sys.argv[1], SPATE_INJECTED=sys.argv[2],
    ASAN_OPTIONS=sys.argv[4],
    SPATE_INJECT=\"realloc:size=4096+:error=ENOMEM calloc:size=4096+:error=ENOMEM\")
p = subprocess.Popen([\"tee\", \"-p\", \"o1\"], stdin=open(sys.argv[3], \"rb\"),
    stdout=a, env=env)
a.close()
got = 0
while got < 100000:
    k = len(b.recv(65536))
    if k == 0:
        break
    got += k
b.shutdown(socket.SHUT_RD)
st = p.wait(60)
b.close()
sys.exit(st)
" "$INJECT_SO" "$PWD/injected" "$TRASH/big" "$INJECT_ASAN_OPTIONS" &&
	test_injected "^realloc\(" &&
	cmp "$TRASH/big" o1
'

# Not even the engine's state for the outputs (its 2nd or 3rd calloc:
# tee's own is the 1st): it copies on by GNU's loop (lib/plain.c), where
# 0.3.0 said "read error: Cannot allocate memory", status 1.
for k in 2 3; do
	test_expect_success SPATE,INJECT "tee F1 F2, the engine's calloc $k fails: copies on" '
		LC_ALL=C save_status with_inject "calloc:nth='$k':error=ENOMEM" \
			tee o1 o2 <"$TRASH/f" >out 2>err &&
		test_status 0 &&
		test_injected "^calloc\(.*nth='$k':" &&
		test_must_be_empty err &&
		cmp "$TRASH/f" out &&
		cmp "$TRASH/f" o1 && cmp "$TRASH/f" o2
	'
done
test_expect_success SPATE,INJECT,GNU "tee /dev/full F, the engine's calloc fails: as GNU's tee" '
	LC_ALL=C save_status with_inject "calloc:nth=2:error=ENOMEM" \
		tee /dev/full o1 <"$TRASH/f" >out 2>err &&
	test_injected "^calloc\(" &&
	test_status 1 &&
	LC_ALL=C test_expect_code 1 $GNU_TEE /dev/full o2 <"$TRASH/f" \
		>expect.out 2>expect.err &&
	sed "s|^$GNU_TEE:|tee:|" expect.err >expect &&
	test_cmp expect err &&
	cmp expect.out out && cmp o2 o1
'

# With a lag each chunk is mapped (lib/lagmem.c).  Where the first one
# cannot be, the lag is refused before a byte is read: the system's cat,
# run after tee on the same stdin, then has the whole input, from a pipe
# as from a socket that keeps records apart (tee once read a record
# first, and lost it).
for kind in pipe seqpacket; do
	test_expect_success SPATE,INJECT,PYTHON3 "tee --lag F1 F2 from a $kind, no chunk: refused, nothing read" '
		head -c $((6000 * 12 + 1234)) "$TRASH/big" >in &&
		cat >after.sh <<-EOF &&
		LC_ALL=C LD_PRELOAD="$INJECT_SO" SPATE_INJECTED="$PWD/injected" \\
			ASAN_OPTIONS="$INJECT_ASAN_OPTIONS:detect_leaks=0" \\
			SPATE_INJECT="mmap:size=$((128 << 10))+:error=ENOMEM" \\
			timeout 60 tee --lag=1M o1 o2 >out 2>err.raw
		echo \$? >status
		exec $SYS_CAT
		EOF
		: >injected &&
		if [ '$kind' = pipe ]; then
			$SYS_CAT in | sh after.sh >rest
		else
			with_record_stdin seqpacket 6000 sh after.sh <in >rest
		fi &&
		test_injected "^mmap\\($((128 << 10))\\)" &&
		echo 1 >expect && test_cmp expect status &&
		echo "tee: cannot start the lag: $(strerror ENOMEM)" >expect &&
		sed "s|^[^:]*tee: |tee: |" err.raw >err &&
		test_cmp expect err &&
		test_must_be_empty out &&
		test_must_be_empty o1 && test_must_be_empty o2 &&
		cmp in rest
	'
done

test_done
