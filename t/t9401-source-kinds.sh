#!/bin/sh
# The engine asks a descriptor's row of lib/fd.c's table (struct traits),
# never its kind (lib/engine.h, enum kind): a new kind is then a row and
# its classification, both in lib/fd.c.  So no other file of the library
# or the commands names a kind, or reads the kind of an end, to compare
# it or to switch on it.  The kinds are read from the enum itself, so a
# kind added later is covered too.
. "$(dirname "$0")/test-lib.sh"

# kinds: the names of enum kind, one a line.
kinds() {
	sed -n '/^enum kind {/,/^};/p' "$SRC_DIR/lib/engine.h" |
	sed -n 's/^[[:space:]]*\(K_[A-Z_]*\).*/\1/p'
}

# sources: the product's C files, lib/fd.c left out; engine.h without
# its enum kind, which it defines.
sources() {
	for f in "$SRC_DIR"/lib/*.c "$SRC_DIR"/lib/*.h "$SRC_DIR"/src/*.c \
	    "$SRC_DIR"/src/*.h; do
		case $f in
		*/lib/fd.c) ;;
		*/lib/engine.h)
			sed "/^enum kind {/,/^};/d; s|^|${f#"$SRC_DIR"/}: |" "$f" ;;
		*) sed "s|^|${f#"$SRC_DIR"/}: |" "$f" ;;
		esac
	done
}

test_expect_success 'the kinds are found in lib/engine.h' '
	kinds >names &&
	grep -q "^K_PIPE$" names &&
	grep -q "^K_FILE$" names &&
	test "$(wc -l <names)" -ge 4
'

test_expect_success 'no kind is named outside lib/fd.c' '
	kinds >names &&
	sources >all &&
	{ grep -w -F -f names all >found || test $? = 1; } &&
	test_must_be_empty found
'

test_expect_success 'no end'\''s kind is read outside lib/fd.c' '
	sources >all &&
	{ grep -E "(\.|->)kind([^A-Za-z0-9_]|$)" all >found ||
		test $? = 1; } &&
	test_must_be_empty found
'

test_done
