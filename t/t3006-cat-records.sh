#!/bin/sh
# cat into an output that keeps each write(2) apart: a SOCK_SEQPACKET or
# SOCK_DGRAM socket, where every write is one record and a reader with a
# smaller buffer loses the rest of it, or a packet-mode pipe.  GNU 9.1's
# formatting cat writes records of exactly 128 KiB (its output buffer for
# a socket or a pipe) and, at the end of each input, what is left; plain
# cat writes what each 128 KiB read of a file returned.  cat must write
# the same records.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-fd.sh"
. "$TEST_DIR/lib-fault.sh"
test_require_prereq GNU

test_expect_success 'setup: three inputs, text and binary' '
	seq 1 400000 >"$TRASH/f1" &&
	head -c 600000 /dev/urandom >"$TRASH/f2" &&
	seq 5 60000 >"$TRASH/f3"
'

# cat_records_as_gnu KIND OPTION...: cat OPTION... of the three inputs
# into KIND (see with_record_stdout) writes records of the sizes GNU's
# has, its bytes, and exits 0.
cat_records_as_gnu() {
	kind=$1
	shift
	(cd "$TRASH" && $GNU_CAT "$@" f1 f2 f3) >expect.bytes &&
	(cd "$TRASH" && with_record_stdout "$kind" 0 $GNU_CAT "$@" \
		f1 f2 f3) >expect &&
	(cd "$TRASH" && with_record_stdout "$kind" 0 cat "$@" f1 f2 f3) >actual &&
	mv "$TRASH/records" records && mv "$TRASH/status" status &&
	test_cmp expect actual &&
	cmp expect.bytes records &&
	echo 0 >expect.status &&
	test_cmp expect.status status
}

for kind in seqpacket dgram packet; do
	test_both_paths PYTHON3 "$kind stdout: cat -n writes GNU's records" '
		cat_records_as_gnu '$kind' -n
	'
	test_both_paths PYTHON3 "$kind stdout: cat -A, -vs, -bE write GNU's records" '
		cat_records_as_gnu '$kind' -A &&
		cat_records_as_gnu '$kind' -vs &&
		cat_records_as_gnu '$kind' -bE
	'
done

# Plain cat reads a file 128 KiB at a time, as GNU does, and writes what
# it read: into a packet-mode pipe, never by splice(2), which makes no
# packets.
for kind in seqpacket dgram packet; do
	test_both_paths PYTHON3 "$kind stdout: plain cat writes GNU's records" '
		cat_records_as_gnu '$kind'
	'
done

# Under a seccomp filter cat asks no socket its type (GNU's commands ask
# none): its formatting cat writes GNU's records to any socket, so that
# a reader of records loses nothing.
test_expect_success PYTHON3,SECCOMP,SPATE \
	'seqpacket stdout under a filter: cat -A writes GNU records' '
	(cd "$TRASH" && with_record_stdout seqpacket 0 $GNU_CAT -A \
		f1 f2 f3) >expect &&
	(cd "$TRASH" && with_record_stdout seqpacket 0 "$SANDBOX" \
		vmsplice:EPERM,splice:EPERM -- cat -A f1 f2 f3) >actual &&
	test_cmp expect actual
'

test_done
