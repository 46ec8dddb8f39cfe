#!/bin/sh
# tee: integrity matrix.  Every kind of input (pipe, regular file,
# /dev/null, fifo, unix socket) to every kind of output (stdout pipe,
# regular file, -a file with prior content, /dev/null, fifo, unix socket,
# several at once), at sizes around page and pipe boundaries, in a burst and in a slow
# trickle; with the default path, with SLUICE_ZEROCOPY=0, and with each
# zero-copy syscall made to fail by strace.  Each output must be exactly the
# input: not one byte lost, added or reordered.
. "$(dirname "$0")/test-lib.sh"

# The python3 interpreter itself, not a launcher in front of it.
PYTHON=$(python3 -c "import sys; print(sys.executable)") || exit 1

SIZES="0 1 4095 4096 65537"
BIG=67108864
LATE=4194304
PRIOR="prior content
"

SQ="'"

# The command in front of tee: empty, env SLUICE_ZEROCOPY=0, or strace;
# then sockout for a socket stdout, or nothing.
WRAP=
OUTWRAP=

# Python ignores SIGPIPE and exec would pass that on: restore the default.

# sockin CMD...: run CMD with stdin a unix stream socket that carries this
# stdin, copied by a child process.
sockin() {
	"$PYTHON" -I -S -c '
import os, signal, socket, sys
a, b = socket.socketpair()
if os.fork() == 0:
    b.close()
    try:
        while True:
            d = os.read(0, 65536)
            if not d:
                break
            a.sendall(d)
        a.shutdown(socket.SHUT_WR)
    except OSError:
        pass
    os._exit(0)
a.close()
os.dup2(b.fileno(), 0)
b.close()
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])
' "$@"
}

# sockout.py CMD...: run CMD with stdout a unix stream socket, and copy
# what comes out of it to this stdout; exit as CMD did.  A script, not a
# function, as it goes in front of tee after strace and env; run as
# $SOCKOUT CMD...
write_sockout() {
	cat >"$1" <<-\EOF
	import os, signal, socket, sys
	a, b = socket.socketpair()
	pid = os.fork()
	if pid == 0:
	    a.close()
	    os.dup2(b.fileno(), 1)
	    b.close()
	    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
	    os.execvp(sys.argv[1], sys.argv[1:])
	b.close()
	while True:
	    d = a.recv(65536)
	    if not d:
	        break
	    os.write(1, d)
	st = os.waitpid(pid, 0)[1]
	if os.WIFSIGNALED(st):
	    signal.signal(os.WTERMSIG(st), signal.SIG_DFL)
	    os.kill(os.getpid(), os.WTERMSIG(st))
	sys.exit(os.WEXITSTATUS(st))
	EOF
}
SOCKOUT="$PYTHON -I -S $TRASH/sockout.py"

# trickle: copy stdin to stdout in small pieces of varied sizes, with a
# short sleep after each.
trickle() {
	"$PYTHON" -I -S -c '
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

# feed HOW SIZE: write the input of SIZE bytes, as a burst or a trickle.
feed() {
	if [ "$1" = trickle ]; then
		trickle <"$TRASH/in.$2"
	else
		cat "$TRASH/in.$2"
	fi
}

# run_src SRC HOW SIZE ARG...: run $WRAP tee ARG... with stdin of kind SRC
# carrying input SIZE; leave the status in status and stderr in err.
run_src() {
	src=$1 how=$2 size=$3
	shift 3
	case $src in
	pipe)
		feed $how $size | { $WRAP $OUTWRAP tee "$@" 2>err; echo $? >status; } ;;
	file)
		{ $WRAP $OUTWRAP tee "$@" <"$TRASH/in.$size" 2>err; echo $? >status; } ;;
	null)
		{ $WRAP $OUTWRAP tee "$@" </dev/null 2>err; echo $? >status; } ;;
	fifo)
		mkfifo fi &&
		{ feed $how $size >fi & } &&
		{ $WRAP $OUTWRAP tee "$@" <fi 2>err; echo $? >status; } ;;
	socket)
		feed $how $size |
			{ sockin $WRAP $OUTWRAP tee "$@" 2>err; echo $? >status; } ;;
	esac
}

# run_set SET SRC HOW SIZE: run tee with the outputs SET names; the files
# that catch them are those set_outputs lists.
run_set() {
	set=$1
	shift
	rm -f out f f1 f2 fo fi fo.out status err
	OUTWRAP=
	case $set in
	pipe)	run_src "$@" | cat >out ;;
	file)	run_src "$@" >out ;;
	fileop)	run_src "$@" f >/dev/null ;;
	append)
		printf "$PRIOR" >f && printf "$PRIOR" >out &&
		run_src "$@" -a f >>out ;;
	null)	run_src "$@" /dev/null | cat >out ;;
	devnull) run_src "$@" >/dev/null ;;
	fifo)
		mkfifo fo && { timeout 120 cat fo >fo.out & } &&
		run_src "$@" >fo ;;
	fifoop)
		mkfifo fo && { timeout 120 cat fo >fo.out & } &&
		run_src "$@" fo | cat >out ;;
	all)
		mkfifo fo && { timeout 120 cat fo >fo.out & } &&
		run_src "$@" f1 /dev/null fo f2 | cat >out ;;
	allapp)
		printf "$PRIOR" >f1 && printf "$PRIOR" >f2 &&
		printf "$PRIOR" >out &&
		mkfifo fo && { timeout 120 cat fo >fo.out & } &&
		run_src "$@" -a f1 fo f2 >>out ;;
	sock)
		OUTWRAP=$SOCKOUT &&
		run_src "$@" >out ;;
	allsock)
		OUTWRAP=$SOCKOUT &&
		mkfifo fo && { timeout 120 cat fo >fo.out & } &&
		run_src "$@" f1 fo /dev/null >out ;;
	esac
	# If tee never opened the fifo, let its reader see end of file.
	if [ -p fo ]; then : <>fo; fi
	wait
}

# set_outputs SET: FILE:EXPECT:NAME for each output of SET, where EXPECT is
# in (the input), app (prior content and the input) or none (/dev/null,
# nothing to check), and NAME is how tee names the output in a message.
set_outputs() {
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

# check_exact SET SIZE: status 0, no message, every output exact.
check_exact() {
	echo 0 >expect.status &&
	test_cmp expect.status status &&
	test_must_be_empty err || return 1
	for o in $(set_outputs $1); do
		file=${o%%:*} kind=${o#*:}
		kind=${kind%%:*}
		[ "$kind" = none ] && continue
		test_cmp "$TRASH/$kind.$2" "$file" || {
			echo "output $file differs"
			return 1
		}
	done
}

# is_prefix FILE WHOLE: FILE is WHOLE or a prefix of it.
is_prefix() {
	n=$(test_file_size "$1") &&
	head -c "$n" "$2" | cmp -s - "$1" && return 0
	echo "$1 ($n bytes) is not a prefix of $2"
	return 1
}

# check_late SET SIZE: after a failure injected once data moved, either
# every output is exact (the failure came while a fallback was still
# allowed), or exactly one error is reported, the status is 1, the output
# named (or all of them after a read error) holds a prefix of its data and
# every other output is exact.
check_late() {
	if [ "$(cat status)" = 0 ] && ! [ -s err ]; then
		check_exact "$@"
		return
	fi
	echo 1 >expect.status &&
	test_cmp expect.status status || return 1
	cat err &&
	test "$(wc -l <err)" = 1 || return 1
	who=$(sed -n "s/^tee: \(.*\): \(Invalid argument\|Function not implemented\)\$/\1/p" err)
	case $who in
	"")	echo "unexpected message"; return 1 ;;
	"${SQ}standard output${SQ}") who=stdout ;;
	esac
	found=
	for o in $(set_outputs $1); do
		file=${o%%:*} kind=${o#*:}
		name=${kind#*:} kind=${kind%%:*}
		if [ "$who" = "read error" ] || [ "$who" = "$name" ]; then
			found=1
			[ "$kind" = none ] ||
			is_prefix "$file" "$TRASH/$kind.$2" || return 1
		elif [ "$kind" != none ]; then
			test_cmp "$TRASH/$kind.$2" "$file" || {
				echo "output $file differs"
				return 1
			}
		fi
	done
	[ -n "$found" ] || { echo "the message names no output: $who"; return 1; }
}

# matrix SRC HOW SET SIZE...: run and check SET from SRC at each SIZE.
matrix() {
	msrc=$1 mhow=$2 mset=$3
	shift 3
	for size in "$@"; do
		run_set $mset $msrc $mhow $size &&
		check_exact $mset $size || {
			echo "failed: $msrc $mhow -> $mset, $size bytes, WRAP=$WRAP"
			return 1
		}
	done
}

test_expect_success 'setup: inputs' '
	write_sockout "$TRASH/sockout.py" &&
	for n in $SIZES $LATE $BIG; do
		head -c $n /dev/urandom >"$TRASH/in.$n" &&
		{ printf "$PRIOR" && cat "$TRASH/in.$n"; } >"$TRASH/app.$n" ||
		exit 1
	done
'

# Every source, every output set, every small size, burst; default path
# and read/write path.
for mode in default rw; do
	for src in pipe file fifo socket; do
		for set in pipe file fileop append null devnull fifo fifoop \
			all allapp sock allsock; do
			test_expect_success "$src -> $set, burst, $mode path" "
				if [ $mode = rw ]; then
					SLUICE_ZEROCOPY=0 && export SLUICE_ZEROCOPY
				fi &&
				matrix $src burst $set $SIZES
			"
		done
	done
	test_expect_success "/dev/null -> every output set, $mode path" "
		if [ $mode = rw ]; then
			SLUICE_ZEROCOPY=0 && export SLUICE_ZEROCOPY
		fi &&
		for set in pipe file fileop append null devnull fifo fifoop \
			all allapp; do
			matrix null burst \$set 0 || exit 1
		done
	"
done

# 64 MiB, a few combinations.
for mode in default rw; do
	for case in "pipe all" "file all" "file pipe" "pipe fileop" \
		"socket pipe" "fifo allapp" "file append" "file sock"; do
		set -- $case
		test_expect_success "64 MiB: $1 -> $2, $mode path" "
			if [ $mode = rw ]; then
				SLUICE_ZEROCOPY=0 && export SLUICE_ZEROCOPY
			fi &&
			matrix $1 burst $2 $BIG
		"
	done
done

# A slow trickle: every piece must come through in order.
for mode in default rw; do
	for src in pipe fifo socket; do
		for set in pipe fileop all allapp; do
			test_expect_success "$src -> $set, trickle, $mode path" "
				if [ $mode = rw ]; then
					SLUICE_ZEROCOPY=0 && export SLUICE_ZEROCOPY
				fi &&
				matrix $src trickle $set 4096 65537
			"
		done
	done
done

# strace -e inject: the zero-copy calls fail, on every call or only the
# first; the fallback must give exact output.
inject() {
	WRAP="strace -f -qq -o /dev/null -e trace=splice,tee -e inject=$1"
}

for src in pipe file fifo socket; do
	for set in pipe file fileop append fifoop all allapp allsock; do
		test_expect_success STRACE "$src -> $set: zero-copy refused, fallback" "
			for call in splice tee; do
				for err in EINVAL ENOSYS; do
					for when in '' :when=1; do
						inject \$call:error=\$err\$when &&
						matrix $src burst $set 1 4096 65537 ||
						exit 1
					done
				done
			done
		"
	done
done

test_expect_success STRACE 'zero-copy refused, 4 MiB, several outputs' '
	for call in splice tee; do
		for when in "" :when=1; do
			inject $call:error=EINVAL$when &&
			matrix pipe burst all $LATE &&
			matrix file burst allapp $LATE || exit 1
		done
	done
'

test_expect_success STRACE 'EINTR and EAGAIN from zero-copy calls are retried' '
	for call in splice tee; do
		for err in EINTR EAGAIN; do
			for when in 1 3; do
				inject $call:error=$err:when=$when &&
				matrix pipe burst all $LATE &&
				matrix file burst allsock 65537 $LATE &&
				matrix pipe burst pipe $LATE || exit 1
			done
		done
	done
'

test_expect_success STRACE 'trickle with zero-copy refused at the first call' '
	for call in splice tee; do
		inject $call:error=EINVAL:when=1 &&
		matrix pipe trickle all 65537 &&
		matrix fifo trickle allapp 4096 || exit 1
	done
'

# A failure injected at a later call, once data moved: no more fallback, a
# real error (sluice only: GNU makes no such calls).
for src in pipe file fifo socket; do
	for set in pipe fileop fifo fifoop all allapp allsock; do
		test_expect_success STRACE,SLUICE "$src -> $set: zero-copy fails later" "
			for call in splice tee; do
				for err in EINVAL ENOSYS; do
					inject \$call:error=\$err:when=3 &&
					run_set $set $src burst $LATE &&
					check_late $set $LATE || {
						echo \"failed: \$call \$err\"
						exit 1
					}
				done
			done
		"
	done
done

# Each round splices the chunk in (1), out of the copy pipe into
# /dev/null (2) and into f (3): the sixth call is f's second.
test_expect_success STRACE,ZEROCOPY 'a later splice failure is reported' '
	inject splice:error=EINVAL:when=6 &&
	run_set fileop pipe burst $LATE &&
	check_late fileop $LATE &&
	echo 1 >expect &&
	test_cmp expect status
'

# tee(2) into sluice's private pipe moves nothing when it fails, so even
# late it is no output's error: the rest goes by read/write, exact.
test_expect_success STRACE,SLUICE 'a later tee failure into the private pipe falls back' '
	inject tee:error=ENOSYS:when=3 &&
	run_set all pipe burst $LATE &&
	test_must_be_empty err &&
	echo 0 >expect &&
	test_cmp expect status &&
	check_exact all $LATE
'

# tee(2) straight into the one output pipe: a late failure is its error.
test_expect_success STRACE,ZEROCOPY 'a later tee failure into an output is reported' '
	inject tee:error=ENOSYS:when=3 &&
	run_set null pipe burst $LATE &&
	check_late null $LATE &&
	grep "^tee: .standard output.: Function not implemented\$" err &&
	echo 1 >expect &&
	test_cmp expect status
'

test_done
