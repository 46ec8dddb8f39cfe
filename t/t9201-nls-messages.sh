#!/bin/sh
# Messages in other languages, worded by libc and by GNU's catalogs: bad
# options (getopt's), files that cannot be read or written (strerror's),
# names quoted for the shell as the locale's encoding allows.  In each
# locale, each command and `spate CMD` must say, to the byte and with
# the same status, what GNU 9.1 in /usr/bin says there when called by
# the same name.  t9202 has the texts that are spate's alone.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib-nls.sh"
test_require_prereq GNU

# File names quoted as the shell would take them, some by the locale:
# é is printable only where the encoding is UTF-8.
NLS_NAMES=$(printf "a b\nit's\n\303\251\nx\302\205y\nq\tz\na:b")

# messages_cases: the cases for each locale and way of calling the command.
messages_cases() {
	test_expect_success "$NLS_PREREQ" "$NLS_TITLE: invalid, unknown, ambiguous options" '
		: >in &&
		nls_same cat -q && nls_same cat --bogus &&
		nls_same cat --n && nls_same cat --show &&
		nls_same cat --help=x &&
		nls_same tee -x && nls_same tee --bogus &&
		nls_same tee --append=x &&
		nls_same yes -q && nls_same yes --bogus &&
		nls_same yes --help=x
	'

	test_expect_success "$NLS_PREREQ" "$NLS_TITLE: missing files and directories" '
		echo data >in && mkdir dir &&
		nls_same cat nosuch dir &&
		nls_same tee nodir/f dir &&
		nls_same tee --output-error=exit nodir/f
	'

	test_expect_success "$NLS_PREREQ" "$NLS_TITLE: names quoted for the shell" '
		echo data >in &&
		echo "$NLS_NAMES" >names &&
		while read -r n; do
			nls_same cat "$n" || exit 1
		done <names &&
		nls_same tee "dir/$(sed -n 3p names)"
	'

	test_expect_success "DEVFULL${NLS_PREREQ:+,}$NLS_PREREQ" "$NLS_TITLE: /dev/full" '
		seq 1000 >in &&
		NLS_OUT=/dev/full && export NLS_OUT &&
		nls_same cat && nls_same cat -n in &&
		nls_same tee && nls_same tee --output-error=warn &&
		nls_same tee --output-error=exit &&
		nls_same yes && nls_same yes x &&
		nls_same yes --help && nls_same tee --help &&
		nls_same cat --help && nls_same cat --version &&
		NLS_OUT= && nls_same tee /dev/full
	'

	test_expect_success "$NLS_PREREQ" "$NLS_TITLE: closed standard input" '
		for c in tee cat; do
			{ nls_gnu $c <&- >expect 2>expect.err
				echo $? >expect.rc; } &&
			{ nls_own $c <&- >actual 2>actual.err
				echo $? >actual.rc; } &&
			test_cmp_v expect.err actual.err &&
			test_cmp expect.rc actual.rc || exit 1
		done
	'
}

# messages_locale_cases: the cases for each locale.
messages_locale_cases() {
	test_expect_success "$NLS_PREREQ" "$NLS_TITLE: a command called by its path is named so" '
		for c in yes tee cat; do
			{ env LC_ALL="$NLS_L" /usr/bin/$c --bogus </dev/null 2>&1
				echo $?; } | sed "s|/usr/bin/$c|$c|g" >expect &&
			{ env LC_ALL="$NLS_L" "$BIN_DIR/$c" --bogus </dev/null 2>&1
				echo $?; } | sed "s|$BIN_DIR/$c|$c|g" >actual &&
			test_cmp_v expect actual || exit 1
		done
	'
}

# The messages no case can reach in a locale (memory exhausted while a
# catalog cannot be loaded either): each literal a message of cat, tee
# or yes is made from goes through the catalog, _("...").  spate's own
# messages, in no GNU catalog, are multicall.c's alone.
test_expect_success 'every message of cat, tee and yes is looked up in the catalog' '
	grep -nE "\<(errx?|warnx?)\(([^\"_]|_[^(])*\"[^\"%]*[A-Za-z]" \
		"$SRC_DIR/src/cat.c" "$SRC_DIR/src/tee.c" \
		"$SRC_DIR/src/yes.c" >untranslated || :
	test_must_be_empty untranslated
'

nls_each messages_cases
nls_each_locale messages_locale_cases

test_done
