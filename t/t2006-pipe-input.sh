#!/bin/sh
# The input pipe is its writer's: cat and tee never resize it, as GNU's
# never do.  A producer that sized its pipe (say to 64 KiB, to know when
# a buffer it handed to the pipe with vmsplice(2) may be reused) must
# find it as it left it after a fast stream through the command.
. "$(dirname "$0")/test-lib.sh"

# sized_producer SIZE BYTES CMD...: make a pipe of SIZE bytes, run CMD
# with the pipe's read end as its stdin and this stdout, write BYTES zero
# bytes into it in writes of 256 KiB, then, once CMD has exited, print
# the pipe's size as F_GETPIPE_SZ gives it (the read end is kept open so
# that the pipe outlives CMD).  Fails if the pipe cannot be sized.
sized_producer() {
	test_python3 - "$@" <<-\EOF
	import fcntl, os, subprocess, sys
	F_SETPIPE_SZ, F_GETPIPE_SZ = 1031, 1032
	size, total, cmd = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
	r, w = os.pipe()
	if fcntl.fcntl(w, F_SETPIPE_SZ, size) != size:
	    sys.exit("cannot size the pipe to %d" % size)
	p = subprocess.Popen(cmd, stdin=r)
	block = bytes(256 << 10)
	left = total
	while left > 0:
	    left -= os.write(w, block[:min(left, len(block))])
	os.close(w)
	if p.wait() != 0:
	    sys.exit("%s exited %d" % (cmd, p.returncode))
	print(fcntl.fcntl(r, F_GETPIPE_SZ), file=sys.stderr)
	EOF
}

# 200 MB: far more than the 4 MiB within a second that grows a pipe.
BYTES=200000000

# Each command twice: into a file, and into a reader through a pipe;
# tee with a file besides (several outputs: its chunk pipe takes the
# input), then with its standard output only (straight through).
for size in 65536 262144; do
	for cmd in cat "tee out" tee; do
		test_expect_success PYTHON3 "$cmd >file leaves an input pipe of $size as it is" "
			sized_producer $size $BYTES $cmd >got 2>size &&
			echo $size >expect &&
			test_cmp expect size &&
			test \$(test_file_size got) = $BYTES &&
			{ test ! -e out || test \$(test_file_size out) = $BYTES; }
		"

		test_expect_success PYTHON3 "$cmd | reader leaves an input pipe of $size as it is" "
			sized_producer $size $BYTES $cmd 2>size | wc -c >count &&
			echo $size >expect &&
			test_cmp expect size &&
			echo $BYTES >expect.count &&
			test_cmp expect.count count &&
			{ test ! -e out || test \$(test_file_size out) = $BYTES; }
		"
	done
done

test_done
