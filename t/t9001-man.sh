#!/bin/sh
# man/yes.1 and man/tee.1: mandoc finds nothing wrong, and every option
# that --help prints is documented.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-man.sh"

test_expect_success MANDOC 'yes.1: mandoc -Tlint is clean' '
	man_lint yes.1
'

test_expect_success MANDOC 'tee.1: mandoc -Tlint is clean' '
	man_lint tee.1
'

test_expect_success SPATE 'yes.1 documents every long option of yes --help' '
	yes --help >help &&
	help_long_options help >opts &&
	test -s opts &&
	man_documents yes.1 $($SYS_CAT opts)
'

test_expect_success SPATE 'tee.1 documents every long option of tee --help' '
	tee --help >help &&
	help_long_options help >opts &&
	grep -qx -- --output-error opts &&
	man_documents tee.1 $($SYS_CAT opts)
'

test_expect_success SPATE 'tee.1 documents every short option of tee --help' '
	tee --help >help &&
	help_short_options help >opts &&
	printf "%s\n" -a -i -p >expect &&
	test_cmp expect opts &&
	man_documents tee.1 $($SYS_CAT opts)
'

test_expect_success SPATE 'tee.1 documents every MODE of tee --help' '
	tee --help >help &&
	sed -n "/^MODE determines/,/^The default/s/^  \([a-z-]*\)  .*/\1/p" \
		help >modes &&
	test -s modes &&
	missing=0 &&
	for m in $($SYS_CAT modes); do
		grep -Eq "^\.It Cm $m\$" "$MAN_DIR/tee.1" || {
			echo "tee.1: MODE $m is not documented"
			missing=1
		}
	done &&
	test "$missing" = 0
'

test_expect_success 'the pages name no path of the build machine' '
	! grep -nE "/(work|home)/" "$MAN_DIR/yes.1" "$MAN_DIR/tee.1"
'

test_done
