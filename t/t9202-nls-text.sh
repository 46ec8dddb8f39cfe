#!/bin/sh
# Texts in other languages that no libc words: --help, --output-error's
# complaint with the locale's quotes, input file is output file, and
# spate's own lines, which stay in English.  In each locale, each
# command and `spate CMD` must say, to the byte and with the same
# status, what GNU 9.1 in /usr/bin says there when called by the same
# name.  No glibc wording, so that the musl build runs it too.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-nls.sh"
test_require_prereq GNU

# nls_help_head FILE: the --help text in FILE up to its last paragraph,
# which is GNU's links to its manual, or spate's line about itself; and
# without spate's paragraph "Extensions:", its own options, which GNU's
# has not.
nls_help_head() {
	awk '$0 == "Extensions:" { ext = 1 } ext { ext = $0 != ""; next }
		{ line[++n] = $0 } $0 == "" { last = n }
		END { for (i = 1; i <= last; i++) print line[i] }' "$1"
}

# An argument with every locale's closing quote in it (’ “ » and « »
# with a no-break space, as French puts them), a backslash, an ASCII
# quote and a character that is not printable (U+0085).
NLS_QUOTES=$(printf "a'b\\\\c\342\200\230d\342\200\231e\342\200\236f\342\200\234g\302\253\302\240h\302\240\302\273i\"j\302\205k")

# text_cases: the cases for each locale and way of calling the command.
text_cases() {
	test_expect_success "$NLS_PREREQ" "$NLS_TITLE: input file is output file" '
		echo data >f &&
		{ nls_gnu cat f >>f 2>expect.err; echo $? >expect.rc; } &&
		echo data >f &&
		{ nls_own cat f >>f 2>actual.err; echo $? >actual.rc; } &&
		test_cmp_v expect.err actual.err &&
		test_cmp expect.rc actual.rc
	'

	test_expect_success "$NLS_PREREQ" "$NLS_TITLE: --output-error with a bad MODE" '
		: >in &&
		nls_same tee --output-error=x &&
		nls_same tee --output-error=e &&
		nls_same tee --output-error= &&
		nls_same tee -p --output-error=warn-nopipe,exit &&
		nls_same tee "--output-error=$NLS_QUOTES"
	'

	test_expect_success "$NLS_PREREQ" "$NLS_TITLE: --help up to its last paragraph" '
		for c in yes tee cat; do
			nls_gnu $c --help >gnu &&
			nls_own $c --help >own &&
			nls_help_head gnu >expect &&
			nls_help_head own >actual &&
			test_cmp_v expect actual &&
			test $(wc -l <expect) -gt 3 || exit 1
		done
	'

	test_expect_success "SPATE${NLS_PREREQ:+,}$NLS_PREREQ" "$NLS_TITLE: --help ends with spate's line, in English" '
		for c in yes tee cat; do
			nls_own $c --help >own &&
			tail -n 2 own >actual &&
			printf "\nspate %s: fast yes, tee and cat.  See %s(1) for details.\n" \
				"$NLS_VERSION" $c >expect &&
			test_cmp_v expect actual || exit 1
		done
	'

	test_expect_success "SPATE${NLS_PREREQ:+,}$NLS_PREREQ" "$NLS_TITLE: --version: GNU's first line, then spate's in English" '
		for c in yes tee cat; do
			nls_gnu $c --version | head -n 1 |
				sed "s/ (GNU coreutils) .*/ (spate) $NLS_VERSION/" \
				>expect &&
			$SYS_CAT >>expect <<-\EOF &&
			Copyright (C) 2026 The spate authors.
			License ISC: <https://opensource.org/licenses/ISC>.
			This is free software: you are free to change and redistribute it.
			There is NO WARRANTY, to the extent permitted by law.
			EOF
			nls_own $c --version >actual &&
			test_cmp_v expect actual || exit 1
		done
	'
}

# text_locale_cases: the cases for each locale.
text_locale_cases() {
	test_expect_success "MULTICALL${NLS_PREREQ:+,}$NLS_PREREQ" "$NLS_TITLE: spate's own messages in English, GNU's hint and quotes" '
		nls_gnu tee --bogus </dev/null 2>gnu;
		tail -n 1 gnu | sed "s/tee --help/spate --help/" >hint &&
		echo "spate: missing command" >expect &&
		$SYS_CAT hint >>expect &&
		test_expect_code 1 env LC_ALL="$NLS_L" spate 2>actual &&
		test_cmp_v expect actual &&
		nls_gnu tee --output-error=frob </dev/null 2>gnu;
		q=$(head -n 1 gnu | grep -o "[^ ]*frob[^ ]*") &&
		echo "spate: unknown command $q" >expect &&
		test_expect_code 1 env LC_ALL="$NLS_L" spate frob 2>actual &&
		test_cmp_v expect actual &&
		echo "spate: unrecognized option $(echo "$q" | sed s/frob/--frob/)" >expect &&
		$SYS_CAT hint >>expect &&
		test_expect_code 1 env LC_ALL="$NLS_L" spate --frob 2>actual &&
		test_cmp_v expect actual
	'

	# spate's own text, which t9101 checks in the C locale: the same here.
	test_expect_success "MULTICALL${NLS_PREREQ:+,}$NLS_PREREQ" "$NLS_TITLE: spate --help and --version as in the C locale" '
		for o in --help --version; do
			LC_ALL=C spate $o >expect &&
			env LC_ALL="$NLS_L" spate $o >actual &&
			test_cmp_v expect actual || exit 1
		done
	'
}

nls_each text_cases
nls_each_locale text_locale_cases

test_done
