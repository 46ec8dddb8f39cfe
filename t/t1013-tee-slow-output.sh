#!/bin/sh
# tee --slow-output=close and drop judge an output slow by what it does,
# not by the others' speed: only an output whose reader may stall it (a
# pipe, a socket), more than the lag behind the fastest, with a write
# that has waited 2 seconds.  Regular files and a pipe that is read keep
# every byte however busy the machine is: each case here keeps every CPU
# busy with loops of its own at nice 19, as scripts/check-load does, and
# runs tee many times, with the default lag and with none at all (0, the
# lag at which the old rule cut any output a byte behind).  A FIFO whose
# reader never reads is still closed, or misses chunks, and the others
# run on; under an address-space limit below the lag, the memory held is
# the lag.  Nothing here is timed: a case waits for what must happen, a
# timeout only making a hang fail sooner.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-proc.sh"

# How many times each healthy case runs tee with each lag: 6 runs x 2
# lags x 2 output counts x 2 modes, 48 in all, keep the script to a few
# seconds of CPU; SPATE_SLOW_RUNS=25 makes the issue's 50 a case.
RUNS=${SPATE_SLOW_RUNS:-6}

test_expect_success 'setup: input' '
	head -c 16777216 /dev/urandom >"$TRASH/in"
'

# busy_loops: one busy loop at nice 19 for each CPU this process may run
# on, until the case ends.  Start them before stalled_reader, whose
# write end they would otherwise hold.
busy_loops() {
	bl_pids=
	for bl_c in $(seq "$(nproc)"); do
		nice -n 19 sh -c 'while :; do :; done' &
		bl_pids="$bl_pids $!"
	done
	test_when_finished "kill \$bl_pids"
}

# healthy MODE NFILES: RUNS runs of tee --slow-output=MODE, with the
# default lag and with --lag=0, into NFILES regular files and a pipe
# read by cat: each exits 0, says nothing, and every output is whole.
healthy() {
	h_files=$(seq -f f%g "$2")
	for h_lag in "" --lag=0; do
		h_i=0
		while [ $h_i -lt $RUNS ]; do
			rm -f $h_files out &&
			save_status tee --slow-output="$1" $h_lag $h_files \
				<"$TRASH/in" 2>err | $SYS_CAT >out &&
			test_status 0 &&
			test_must_be_empty err &&
			for f in $h_files out; do
				test_cmp "$TRASH/in" $f || return 1
			done || {
				echo "healthy: run $h_i, $1 $h_lag, $2 files"
				return 1
			}
			h_i=$((h_i + 1))
		done
	done
}

for mode in close drop; do
	case $mode in close) done=closed ;; drop) done=dropped ;; esac
	for n in 2 4; do
		test_expect_success SPATE "under load: $mode, $n files and a pipe: nothing $done" '
			busy_loops &&
			healthy '$mode' '$n'
		'
	done
done

test_expect_success SPATE 'under load: close: a FIFO never read is closed, the rest whole' '
	busy_loops &&
	stalled_reader fifo got &&
	save_status timeout 60 tee --slow-output=close f1 fifo f2 \
		<"$TRASH/in" 2>err 9>&- | $SYS_CAT >out &&
	stalled_reader_go &&
	test_status 1 &&
	echo "tee: fifo: output too slow, closed" >expect &&
	test_cmp expect err &&
	for f in f1 f2 out; do
		test_cmp "$TRASH/in" $f || return 1
	done &&
	test_is_strict_prefix got "$TRASH/in"
'

# Under 64 KiB of lag and 180 KiB of input the FIFO, which takes 64 KiB
# (its buffer), is no more than the lag behind when the input ends, the
# pipe on standard output holding as much while its reader sleeps; it
# is more than the lag behind once that reader has taken the rest.
# Judged then, it is closed: tee does not wait for it for ever.
test_expect_success SPATE 'close: an output slow once the input has ended is closed' '
	head -c 184320 "$TRASH/in" >in &&
	stalled_reader fifo got &&
	save_status timeout 60 tee --slow-output=close --lag=64K fifo <in \
		2>err 9>&- | { sleep 1 && $SYS_CAT; } >out 9>&- &&
	stalled_reader_go &&
	test_status 1 &&
	echo "tee: fifo: output too slow, closed" >expect &&
	test_cmp expect err &&
	test_cmp in out &&
	test_is_strict_prefix got in
'

# A FIFO never read while tee runs: it misses chunks, and once the
# input has ended, having no chunk left to miss, it is closed.
test_expect_success SPATE 'under load: drop: a FIFO never read misses chunks, closed at the end' '
	busy_loops &&
	stalled_reader fifo got &&
	save_status timeout 60 tee --slow-output=drop f1 fifo f2 \
		<"$TRASH/in" 2>err 9>&- | $SYS_CAT >out &&
	stalled_reader_go &&
	test_status 1 &&
	sed -n 1p err >first &&
	echo "tee: fifo: output too slow, closed" >expect &&
	test_cmp expect first &&
	sed 1d err >rest &&
	grep "^tee: fifo: output too slow, [0-9]* bytes dropped$" rest &&
	test $(wc -l <rest) = 1 &&
	for f in f1 f2 out; do
		test_cmp "$TRASH/in" $f || return 1
	done
'

# A lag of 1 GiB that 32 MiB of address space cannot hold, a FIFO never
# read among the outputs: the memory held is the lag, and the FIFO is
# closed (before, tee waited on it for ever).  Not where tee's memory is
# not its own (the sanitizer build, valgrind, an emulator).
[ "${SPATE_SAN:-}" = 1 ] || [ "${SPATE_VALGRIND:-}" = 1 ] ||
test_expect_success SPATE,NATIVE 'ulimit -v below the lag: the memory held is the lag' '
	for i in 1 2 3 4; do
		$SYS_CAT "$TRASH/in" || return 1
	done >in64 &&
	stalled_reader fifo got &&
	test_expect_code 1 with_ulimit -v 32768 \
		timeout 60 tee --lag=1G --slow-output=close fifo f \
		<in64 >out 2>err 9>&- &&
	stalled_reader_go &&
	echo "tee: fifo: output too slow, closed" >expect &&
	test_cmp expect err &&
	test_cmp in64 f &&
	test_cmp in64 out &&
	test_is_strict_prefix got in64
'

test_done
