#!/bin/sh
# tee: FILEs that cannot be opened (a directory, a missing directory, no
# permission): one message each, the other outputs complete; and how the
# messages quote a name.  Expectations are GNU coreutils 9.1's.
. "$(dirname "$0")/test-lib.sh"

# Bytes that are not ASCII: a UTF-8 character, and a byte invalid in UTF-8.
EACUTE=$(printf '\303\251')
BYTE_FF=$(printf '\377')

test_expect_success 'setup: inputs' '
	head -c 100000 /dev/urandom >"$TRASH/in"
'

test_expect_success 'a FILE that is a directory: message, others complete' '
	mkdir d &&
	test_expect_code 1 tee f1 d f2 <"$TRASH/in" >out 2>err &&
	echo "tee: d: Is a directory" >expect &&
	test_cmp expect err &&
	test_cmp "$TRASH/in" out &&
	test_cmp "$TRASH/in" f1 &&
	test_cmp "$TRASH/in" f2
'

test_expect_success 'a FILE under a missing directory: message, exit 1' '
	test_expect_code 1 tee f1 nodir/f f2 <"$TRASH/in" >out 2>err &&
	echo "tee: nodir/f: No such file or directory" >expect &&
	test_cmp expect err &&
	test_cmp "$TRASH/in" out &&
	test_cmp "$TRASH/in" f1 &&
	test_cmp "$TRASH/in" f2
'

test_expect_success 'an empty FILE name' '
	test_expect_code 1 tee "" f <"$TRASH/in" >out 2>err &&
	echo "tee: ${SQ}${SQ}: No such file or directory" >expect &&
	test_cmp expect err &&
	test_cmp "$TRASH/in" out &&
	test_cmp "$TRASH/in" f
'

test_expect_success 'several bad FILEs: one message each, in order' '
	mkdir d &&
	test_expect_code 1 tee nodir/a d f nodir/b <"$TRASH/in" >out 2>err &&
	printf "%s\n" "tee: nodir/a: No such file or directory" \
		"tee: d: Is a directory" \
		"tee: nodir/b: No such file or directory" >expect &&
	test_cmp expect err &&
	test_cmp "$TRASH/in" out &&
	test_cmp "$TRASH/in" f
'

test_expect_success 'a FILE in a directory without write permission' '
	mkdir ro &&
	chmod 555 ro &&
	echo hi | save_status tee ro/f g >out 2>err &&
	chmod 755 ro &&
	echo hi >expect &&
	test_cmp expect out &&
	test_cmp expect g &&
	if test_have_prereq ROOT
	then
		# Permission bits do not stop root.
		test_status 0 &&
		test_must_be_empty err &&
		test_cmp expect ro/f
	else
		test_status 1 &&
		echo "tee: ro/f: Permission denied" >expect.err &&
		test_cmp expect.err err &&
		! test -e ro/f
	fi
'

test_expect_success 'a read-only FILE' '
	echo old >f &&
	chmod 444 f &&
	echo hi | save_status tee f g >out 2>err &&
	echo hi >expect &&
	test_cmp expect out &&
	test_cmp expect g &&
	if test_have_prereq ROOT
	then
		test_status 0 &&
		test_must_be_empty err &&
		test_cmp expect f
	else
		test_status 1 &&
		echo "tee: f: Permission denied" >expect.err &&
		test_cmp expect.err err &&
		echo old >expect.f &&
		test_cmp expect.f f
	fi
'

# Names that need shell quoting in messages, as GNU's quotef() writes them.
# tee_qtest TITLE NAME EXPECTED-QUOTED-NAME
tee_qtest() {
	qname=$2
	qexpect=$3
	test_expect_success "quoting in messages: $1" '
		test_expect_code 1 tee f "nodir/$qname" g <"$TRASH/in" \
			>out 2>err &&
		printf "tee: %s: No such file or directory\n" "$qexpect" \
			>expect &&
		test_cmp_v expect err &&
		test_cmp "$TRASH/in" out &&
		test_cmp "$TRASH/in" f &&
		test_cmp "$TRASH/in" g
	'
}

tee_qtest 'a space' 'a b' "'nodir/a b'"
tee_qtest 'a single quote' "a'b" "\"nodir/a'b\""
tee_qtest 'a double quote' 'a"b' "'nodir/a\"b'"
tee_qtest 'a dollar' 'a$b' "'nodir/a\$b'"
tee_qtest 'a single quote and a dollar' "x'\$y" "'nodir/x'\\''\$y'"
tee_qtest 'a newline' "$(printf 'n\nl')" "'nodir/n'\$'\\n''l'"
tee_qtest 'a tab' "$(printf 't\tb')" "'nodir/t'\$'\\t''b'"
tee_qtest 'a control character at the end' "$(printf 'q\001')" \
	"'nodir/q'\$'\\001'"
tee_qtest 'non-ASCII bytes in the C locale' "$EACUTE" \
	"'nodir/'\$'\\303\\251'"
tee_qtest 'a tilde inside the name needs none' 'a~b' 'nodir/a~b'

test_expect_success 'quoting in a UTF-8 locale: a valid character stands' '
	LC_ALL=C.UTF-8 &&
	export LC_ALL &&
	test_expect_code 1 tee "nodir/$EACUTE" <"$TRASH/in" >out 2>err &&
	echo "tee: nodir/$EACUTE: No such file or directory" >expect &&
	test_cmp_v expect err &&
	test_cmp "$TRASH/in" out
'

test_expect_success 'quoting in a UTF-8 locale: an invalid byte is escaped' '
	LC_ALL=C.UTF-8 &&
	export LC_ALL &&
	test_expect_code 1 tee "nodir/$BYTE_FF" <"$TRASH/in" >out 2>err &&
	printf "tee: %s: No such file or directory\n" \
		"${SQ}nodir/${SQ}\$${SQ}\\377${SQ}" >expect &&
	test_cmp_v expect err
'

test_expect_success 'a name with a newline is created as given' '
	name=$(printf "n\nl") &&
	echo hi | tee "$name" >out &&
	echo hi >expect &&
	test_cmp expect "$name"
'

test_done
