#!/bin/sh
# man/cat.1: mandoc finds nothing wrong, every option that cat --help
# prints is documented, and the page has the house sections.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-man.sh"

test_expect_success MANDOC 'cat.1: mandoc -Tlint is clean' '
	man_lint cat.1
'

test_expect_success SPATE 'cat.1 documents every long option of cat --help' '
	cat --help >help &&
	help_long_options help >opts &&
	printf "%s\n" --help --number --number-nonblank --progress \
		--show-all --show-ends --show-nonprinting --show-tabs \
		--squeeze-blank --version >expect &&
	test_cmp expect opts &&
	man_documents cat.1 $($SYS_CAT opts)
'

test_expect_success SPATE 'cat.1 documents every short option of cat --help' '
	cat --help >help &&
	help_short_options help >opts &&
	printf "%s\n" -A -E -T -b -e -n -s -t -u -v | sort >expect &&
	test_cmp expect opts &&
	man_documents cat.1 $($SYS_CAT opts)
'

test_expect_success 'the SYNOPSIS names every short option' '
	sed -n "/^\.Sh SYNOPSIS/,/^\.Sh/p" "$MAN_DIR/cat.1" >synopsis &&
	grep -q "^\.Op Fl AbeEnstTuv\$" synopsis
'

test_expect_success 'cat.1 has the sections of the house style' '
	grep "^\.Sh " "$MAN_DIR/cat.1" >sections &&
	printf ".Sh %s\n" NAME SYNOPSIS DESCRIPTION EXTENSIONS ENVIRONMENT \
		"EXIT STATUS" EXAMPLES "SEE ALSO" STANDARDS >expect &&
	test_cmp expect sections
'

test_expect_success 'the page names no path of the build machine' '
	! grep -nE "/(work|home)/" "$MAN_DIR/cat.1"
'

test_done
