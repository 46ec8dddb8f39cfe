#!/bin/sh
# tee: integrity matrix.  Every kind of input (pipe, regular file,
# /dev/null, fifo, unix socket) to every kind of output (stdout pipe,
# regular file, -a file with prior content, /dev/null, fifo, unix socket,
# several at once), at sizes around page and pipe boundaries, in a burst and in a slow
# trickle; with the default path, with SPATE_ZEROCOPY=0, and with each
# zero-copy syscall made to fail by strace.  Each output must be exactly the
# input: not one byte lost, added or reordered.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-fd.sh"
. "$TEST_DIR/lib-fault.sh"
. "$TEST_DIR/lib-proc.sh"

SIZES="0 1 4095 4096 65537"
# Below ZC_AFTER (32 KiB, lib/engine.h) a stream has moved by read(2)
# and write(2) alone on the default path too: the read/write path
# (SPATE_ZEROCOPY=0) and the fault injections run only at the size
# where the paths differ.
ZC_SIZE=65537
BIG=67108864
LATE=4194304
PRIOR="prior content
"

# The command in front of tee: empty, or with_faults SPEC (tee_set_faults);
# then sockout.py (lib-fd.sh's SOCKET_STDOUT_PY) for a socket stdout, or
# nothing.
WRAP=
OUTWRAP=

# tee_trickle: copy stdin to stdout in small pieces of varied sizes, with
# a short sleep after each.  Needs PYTHON3.
tee_trickle() {
	test_python3 -c '
import os, time
data = os.read(0, 1 << 20)
while True:
    more = os.read(0, 1 << 20)
    if not more:
        break
    data += more
sizes = [1, 7, 512, 4093, 100, 4096, 2]
i = k = 0
try:
    while i < len(data):
        n = sizes[k % len(sizes)]
        os.write(1, data[i:i + n])
        i += n
        k += 1
        time.sleep(0.002)
except OSError:
    pass
'
}

# tee_feed HOW SIZE: write the input of SIZE bytes, as a burst or a
# trickle.
tee_feed() {
	if [ "$1" = trickle ]; then
		tee_trickle <"$TRASH/in.$2"
	else
		$SYS_CAT "$TRASH/in.$2"
	fi
}

# tee_run_src SRC HOW SIZE ARG...: run $WRAP tee ARG... with stdin of kind
# SRC carrying input SIZE; leave the status in status (save_status) and
# stderr in err.  A socket stdin (with_socket_stdin) needs PYTHON3.
tee_run_src() {
	src=$1 how=$2 size=$3
	shift 3
	case $src in
	pipe)
		tee_feed $how $size | save_status $WRAP $OUTWRAP tee "$@" 2>err ;;
	file)
		save_status $WRAP $OUTWRAP tee "$@" <"$TRASH/in.$size" 2>err ;;
	null)
		save_status $WRAP $OUTWRAP tee "$@" </dev/null 2>err ;;
	fifo)
		mkfifo fi &&
		{ tee_feed $how $size >fi & } &&
		save_status $WRAP $OUTWRAP tee "$@" <fi 2>err ;;
	socket)
		if [ -z "$WRAP" ]; then
			tee_feed $how $size |
			save_status with_socket_stdin $OUTWRAP tee "$@" 2>err
		else
			tee_feed $how $size |
			save_status $WRAP "$(python3_path)" -I -S \
				-c "$SOCKET_STDIN_PY" $OUTWRAP tee "$@" 2>err
		fi ;;
	esac
}

# tee_run_set SET SRC HOW SIZE: run tee with the outputs SET names; the
# files that catch them are those tee_set_outputs lists.  A socket output
# (sock, allsock) needs PYTHON3.
tee_run_set() {
	set=$1
	shift
	rm -f out f f1 f2 fo fi fo.out status err
	OUTWRAP=
	case $set in
	pipe)	tee_run_src "$@" | $SYS_CAT >out ;;
	file)	tee_run_src "$@" >out ;;
	fileop)	tee_run_src "$@" f >/dev/null ;;
	append)
		printf "$PRIOR" >f && printf "$PRIOR" >out &&
		tee_run_src "$@" -a f >>out ;;
	null)	tee_run_src "$@" /dev/null | $SYS_CAT >out ;;
	devnull) tee_run_src "$@" >/dev/null ;;
	fifo)
		mkfifo fo && fifo_reader fo fo.out &&
		tee_run_src "$@" >fo ;;
	fifoop)
		mkfifo fo && fifo_reader fo fo.out &&
		tee_run_src "$@" fo | $SYS_CAT >out ;;
	all)
		mkfifo fo && fifo_reader fo fo.out &&
		tee_run_src "$@" f1 /dev/null fo f2 | $SYS_CAT >out ;;
	allapp)
		printf "$PRIOR" >f1 && printf "$PRIOR" >f2 &&
		printf "$PRIOR" >out &&
		mkfifo fo && fifo_reader fo fo.out &&
		tee_run_src "$@" -a f1 fo f2 >>out ;;
	sock)
		OUTWRAP="$(python3_path) -I -S $TRASH/sockout.py" &&
		tee_run_src "$@" >out ;;
	allsock)
		OUTWRAP="$(python3_path) -I -S $TRASH/sockout.py" &&
		mkfifo fo && fifo_reader fo fo.out &&
		tee_run_src "$@" f1 fo /dev/null >out ;;
	esac
	if [ -p fo ]; then fifo_reader_end; fi
	wait
}

# tee_set_outputs SET: FILE:EXPECT:NAME for each output of SET, where EXPECT is
# in (the input), app (prior content and the input) or none (/dev/null,
# nothing to check), and NAME is how tee names the output in a message.
tee_set_outputs() {
	case $1 in
	pipe|file) echo "out:in:stdout" ;;
	null)	echo "out:in:stdout -:none:/dev/null" ;;
	devnull) echo "-:none:stdout" ;;
	fileop)	echo "f:in:f -:none:stdout" ;;
	append)	echo "f:app:f out:app:stdout" ;;
	fifo)	echo "fo.out:in:stdout" ;;
	fifoop)	echo "fo.out:in:fo out:in:stdout" ;;
	all)	echo "f1:in:f1 -:none:/dev/null f2:in:f2 fo.out:in:fo out:in:stdout" ;;
	allapp)	echo "f1:app:f1 f2:app:f2 fo.out:in:fo out:app:stdout" ;;
	sock)	echo "out:in:stdout" ;;
	allsock) echo "f1:in:f1 fo.out:in:fo -:none:/dev/null out:in:stdout" ;;
	esac
}

# tee_check_exact SET SIZE: status 0, no message, every output exact.
tee_check_exact() {
	test_status 0 &&
	test_must_be_empty err || return 1
	for o in $(tee_set_outputs $1); do
		file=${o%%:*} kind=${o#*:}
		kind=${kind%%:*}
		[ "$kind" = none ] && continue
		test_cmp "$TRASH/$kind.$2" "$file" || {
			echo "output $file differs"
			return 1
		}
	done
}

# tee_check_late SET SIZE TEXT: after an error injected once data moved,
# exactly one error is reported, strerror's TEXT (one that glibc and
# musl word alike), the status is 1, the output named (or all of them
# after a read error) holds a prefix of its data and every other output
# is exact.
tee_check_late() {
	test_status 1 || return 1
	$SYS_CAT err &&
	test "$(wc -l <err)" = 1 || return 1
	who=$(sed -n "s|^tee: \(.*\): $3\$|\1|p" err)
	case $who in
	"")	echo "unexpected message"; return 1 ;;
	"${SQ}standard output${SQ}") who=stdout ;;
	esac
	found=
	for o in $(tee_set_outputs $1); do
		file=${o%%:*} kind=${o#*:}
		name=${kind#*:} kind=${kind%%:*}
		if [ "$who" = "read error" ] || [ "$who" = "$name" ]; then
			found=1
			[ "$kind" = none ] ||
			test_is_prefix "$file" "$TRASH/$kind.$2" || return 1
		elif [ "$kind" != none ]; then
			test_cmp "$TRASH/$kind.$2" "$file" || {
				echo "output $file differs"
				return 1
			}
		fi
	done
	[ -n "$found" ] || { echo "the message names no output: $who"; return 1; }
}

# tee_matrix SRC HOW SET SIZE...: run and check SET from SRC at each SIZE.
tee_matrix() {
	msrc=$1 mhow=$2 mset=$3
	shift 3
	for size in "$@"; do
		tee_run_set $mset $msrc $mhow $size &&
		tee_check_exact $mset $size || {
			echo "failed: $msrc $mhow -> $mset, $size bytes, WRAP=$WRAP"
			return 1
		}
	done
}

test_expect_success 'setup: inputs' '
	printf "%s\n" "$SOCKET_STDOUT_PY" >"$TRASH/sockout.py" &&
	for n in $SIZES $LATE $BIG; do
		head -c $n /dev/urandom >"$TRASH/in.$n" &&
		{ printf "$PRIOR" && $SYS_CAT "$TRASH/in.$n"; } >"$TRASH/app.$n" ||
		exit 1
	done
'

# tee_prereq SRC SET HOW: the prerequisites of a run of SET from SRC fed
# as HOW: PYTHON3 for a socket input or output, or a trickle.
tee_prereq() {
	case "$1 $2 $3" in
	socket\ *|*\ sock\ *|*\ allsock\ *|*\ trickle) echo PYTHON3 ;;
	esac
}

# Every source, every output set, every small size, burst; default path
# and read/write path.
for src in pipe file fifo socket; do
	for set in pipe file fileop append null devnull fifo fifoop \
		all allapp sock allsock; do
		test_path zc "$(tee_prereq $src $set burst)" \
			"$src -> $set, burst" "
			tee_matrix $src burst $set $SIZES
		"
		test_path rw "$(tee_prereq $src $set burst)" \
			"$src -> $set, burst, $ZC_SIZE bytes" "
			tee_matrix $src burst $set $ZC_SIZE
		"
	done
done
test_both_paths "/dev/null -> every output set" "
	for set in pipe file fileop append null devnull fifo fifoop \
		all allapp; do
		tee_matrix null burst \$set 0 || exit 1
	done
"

# 64 MiB, a few combinations.
for case in "pipe all" "file all" "file pipe" "pipe fileop" \
	"socket pipe" "fifo allapp" "file append" "file sock"; do
	set -- $case
	test_both_paths "$(tee_prereq $1 $2 burst)" "64 MiB: $1 -> $2" "
		tee_matrix $1 burst $2 $BIG
	"
done

# A slow trickle: every piece must come through in order.
for src in pipe fifo socket; do
	for set in pipe fileop all allapp; do
		test_both_paths PYTHON3 "$src -> $set, trickle" "
			tee_matrix $src trickle $set 4096 65537
		"
	done
done

# strace -e inject: the zero-copy calls fail, on every call or only the
# first; the fallback must give exact output.  Each call is refused with
# each error the transfer layer takes for a refusal, once on every call
# and once at the first (t2002 crosses every error with every call).
# A FIFO input is a pipe to tee (the same S_ISFIFO descriptor, the same
# calls): the faults are injected from a pipe, a file and a socket.
# tee_set_faults SPEC: the runs that follow go under with_faults SPEC.
tee_set_faults() {
	WRAP="with_faults $1"
}

for src in pipe file socket; do
	for set in pipe file fileop append fifoop all allapp allsock; do
		q=$(tee_prereq $src $set burst)
		test_expect_success STRACE${q:+,$q} "$src -> $set: zero-copy refused, fallback" "
			for call in splice tee; do
				for how in error=EINVAL error=ENOSYS:when=1; do
					tee_set_faults \$call:\$how &&
					tee_matrix $src burst $set $ZC_SIZE ||
					exit 1
				done
			done
		"
	done
done

test_expect_success STRACE 'zero-copy refused, 4 MiB, several outputs' '
	for call in splice tee; do
		for when in "" :when=1; do
			tee_set_faults $call:error=EINVAL$when &&
			tee_matrix pipe burst all $LATE &&
			tee_matrix file burst allapp $LATE || exit 1
		done
	done
'

test_expect_success STRACE,PYTHON3 'EINTR and EAGAIN from zero-copy calls are retried' '
	for call in splice tee; do
		for err in EINTR EAGAIN; do
			for when in 1 3; do
				tee_set_faults $call:error=$err:when=$when &&
				tee_matrix pipe burst all $LATE &&
				tee_matrix file burst allsock 65537 $LATE &&
				tee_matrix pipe burst pipe $LATE || exit 1
			done
		done
	done
'

test_expect_success STRACE,PYTHON3 'trickle with zero-copy refused at the first call' '
	for call in splice tee; do
		tee_set_faults $call:error=EINVAL:when=1 &&
		tee_matrix pipe trickle all 65537 &&
		tee_matrix fifo trickle allapp 4096 || exit 1
	done
'

# A refusal at a later call, once data moved: a route as at the first,
# every output exact (spate only: GNU makes no such calls).
for src in pipe file socket; do
	for set in pipe fileop fifo fifoop all allapp allsock; do
		q=$(tee_prereq $src $set burst)
		test_expect_success STRACE,SPATE${q:+,$q} "$src -> $set: zero-copy refused later" "
			for call in splice tee; do
				for err in EINVAL ENOSYS; do
					tee_set_faults \$call:error=\$err:when=3 &&
					tee_run_set $set $src burst $LATE &&
					test_must_be_empty err &&
					test_status 0 &&
					tee_check_exact $set $LATE || {
						echo \"failed: \$call \$err\"
						exit 1
					}
				done
			done
		"
	done
done

# Each round splices the chunk in (1), out of the copy pipe into
# /dev/null (2) and into f (3): the sixth call is f's second.  A refusal
# that late is a route, as the first one is: f takes the rest by
# write(2), from the byte where the splice stopped.
test_expect_success STRACE,ZEROCOPY 'a later splice refusal into a file falls back' '
	tee_set_faults splice:error=EINVAL:when=6 &&
	tee_run_set fileop pipe burst $LATE &&
	test_must_be_empty err &&
	test_status 0 &&
	tee_check_exact fileop $LATE
'

# tee(2) into spate's private pipe moves nothing when it fails, so even
# late it is no output's error: the rest goes by read/write, exact.
test_expect_success STRACE,SPATE 'a later tee failure into the private pipe falls back' '
	tee_set_faults tee:error=ENOSYS:when=3 &&
	tee_run_set all pipe burst $LATE &&
	test_must_be_empty err &&
	test_status 0 &&
	tee_check_exact all $LATE
'

# tee(2) straight into the one output pipe: a late refusal sends it to
# write(2) from the byte it had; a late error is its error.
test_expect_success STRACE,ZEROCOPY 'a later tee refusal into an output falls back' '
	tee_set_faults tee:error=ENOSYS:when=3 &&
	tee_run_set null pipe burst $LATE &&
	test_must_be_empty err &&
	test_status 0 &&
	tee_check_exact null $LATE
'

test_expect_success STRACE,ZEROCOPY 'a later tee failure into an output is reported' '
	tee_set_faults tee:error=ENOSPC:when=3 &&
	tee_run_set null pipe burst $LATE &&
	tee_check_late null $LATE "No space left on device"
'

test_done
