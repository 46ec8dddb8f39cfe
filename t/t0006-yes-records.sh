#!/bin/sh
# yes into an output that keeps each write(2) apart: a SOCK_SEQPACKET or
# SOCK_DGRAM socket, where every write is one record and a reader with a
# smaller buffer loses the rest of it, or a packet-mode pipe.  GNU 9.1
# writes one buffer of 8 KiB of whole lines over and over (one line, if
# it is longer than 4 KiB): those are the records its readers were
# written for, and yes must write the same ones, whatever its path.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-data.sh"
. "$TEST_DIR/lib-fd.sh"
. "$TEST_DIR/lib-fault.sh"
test_require_prereq GNU

# yes_records_as_gnu KIND LINE...: the first 40 records `yes LINE...`
# writes into KIND (see with_record_stdout) have the sizes GNU's have,
# and carry GNU's stream.
yes_records_as_gnu() {
	kind=$1
	shift
	with_record_stdout "$kind" 40 $GNU_YES "$@" >expect &&
	with_record_stdout "$kind" 40 yes "$@" >actual &&
	test_cmp expect actual &&
	yes_prefix records "$@"
}

for kind in seqpacket dgram packet; do
	test_both_paths PYTHON3 "$kind stdout: GNU's records for y, hello, several words" '
		yes_records_as_gnu '$kind' &&
		yes_records_as_gnu '$kind' hello &&
		yes_records_as_gnu '$kind' a bc def "" ghij
	'
done

# Around GNU's bounds: a line that fills half the buffer (4096 bytes),
# one byte more (one line a record), one that does not divide 8192, one
# longer than the buffer.
test_both_paths PYTHON3 'seqpacket stdout: GNU records for lines near 4 and 8 KiB' '
	yes_records_as_gnu seqpacket "$(data_word 4095)" &&
	yes_records_as_gnu seqpacket "$(data_word 4096)" &&
	yes_records_as_gnu seqpacket "$(data_word 2730)" &&
	yes_records_as_gnu seqpacket "$(data_word 8191)" &&
	yes_records_as_gnu seqpacket "$(data_word 20000)"
'

# A reader that takes 8 KiB a record, as GNU's readers may: nothing lost.
test_both_paths PYTHON3 'seqpacket stdout read 8 KiB a record: the stream, whole' '
	test_python3 -c "
import socket, subprocess
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
p = subprocess.Popen([\"yes\", \"hello\"], stdout=b)
b.close()
with open(\"actual\", \"wb\") as f:
    for i in range(400):
        f.write(a.recv(8192))
p.kill()
p.wait()
" &&
	yes_ref hello | head -c $((400 * 8190)) >expect &&
	cmp expect actual
'

# Under a seccomp filter yes asks no socket its type (GNU's commands ask
# none): to any socket it writes GNU's records, so that where the
# zero-copy calls are refused a reader of records loses nothing.
test_expect_success PYTHON3,SECCOMP,SPATE \
	'seqpacket stdout under a filter, zero-copy refused: GNU records' '
	with_record_stdout seqpacket 40 $GNU_YES hello >expect &&
	with_record_stdout seqpacket 40 "$SANDBOX" \
		vmsplice:EPERM,splice:EPERM -- yes hello >actual &&
	test_cmp expect actual
'

test_done
