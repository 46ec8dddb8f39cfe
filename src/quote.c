/* Quoting of names in messages, as GNU's quotef() and quote() do. */
#define _GNU_SOURCE
#include <langinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#include "cmd.h"

/* Can ASCII character C, at index I of a LEN-byte name, stand unquoted? */
static int
plain(unsigned char c, size_t i, size_t len)
{
	if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z'))
		return 1;
	if (c == '~' || c == '#')
		return i > 0;
	if (c == '{' || c == '}')
		return len > 1;
	return strchr("%+,-./@]_", c) != NULL;
}

/*
 * Length of the character at S (N bytes left), stored in *LEN; return
 * whether it is printable in this locale.  Invalid bytes count singly;
 * every byte of a character that is not printable gets an escape.
 */
static int
printable(const char *s, size_t n, size_t *len)
{
	mbstate_t st;
	wchar_t wc;
	size_t k;

	if ((unsigned char)*s < 0x80) {
		*len = 1;
		return *s >= 0x20 && *s < 0x7f;
	}
	memset(&st, 0, sizeof st);
	k = mbrtowc(&wc, s, n, &st);
	if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
		*len = 1;
		return 0;
	}
	*len = k;
	return iswprint(wc);
}

/* Append S to the string being built at *P. */
static void
add(char **p, const char *s)
{
	size_t k = strlen(s);

	memcpy(*p, s, k);
	*p += k;
}

/*
 * Append the escape of byte C to *P: \a \b \f \n \r \t \v by letter,
 * any other as \ooo, as both bash's $'...' and GNU's quote() write it.
 */
static void
add_escape(char **p, unsigned char c)
{
	static const char letters[] = "\a\b\f\n\r\t\v";
	static const char names[] = "abfnrtv";
	const char *l = c ? strchr(letters, c) : NULL;
	char tmp[8];

	if (l != NULL)
		snprintf(tmp, sizeof tmp, "\\%c", names[l - letters]);
	else
		snprintf(tmp, sizeof tmp, "\\%03o", c);
	add(p, tmp);
}

const char *
cmd_quotef(const char *name)
{
	static char *out;
	size_t i, j, k, len = strlen(name);
	int quote = len == 0, squote = 0, ctl = 0, dqbad = 0, esc = 0;
	char *p;

	for (i = 0; i < len; i += k) {
		unsigned char c = name[i];

		if (!printable(name + i, len - i, &k))
			quote = ctl = 1;
		else if (c < 0x80)
			quote |= !plain(c, i, len);
		squote |= c == '\'';
		dqbad |= strchr("\"$`\\!", c) != NULL;
	}
	if (!quote)
		return name;
	free(out);
	/* Worst case: every byte a control character, '$'\ooo''. */
	if ((out = malloc(len * 9 + 3)) == NULL)
		return name;
	p = out;
	if (squote && !ctl && !dqbad) {
		add(&p, "\"");
		add(&p, name);
		add(&p, "\"");
		*p = '\0';
		return out;
	}
	/* Runs of printable characters in '...', the others in $'...'. */
	add(&p, "'");
	for (i = 0; i < len; i += k) {
		if (!printable(name + i, len - i, &k)) {
			add(&p, esc ? "" : "'$'");
			for (j = 0; j < k; j++)
				add_escape(&p, name[i + j]);
			esc = 1;
			continue;
		}
		add(&p, esc ? "''" : "");
		esc = 0;
		if (name[i] == '\'')
			add(&p, "'\\''");
		else {
			memcpy(p, name + i, k);
			p += k;
		}
	}
	add(&p, "'");
	*p = '\0';
	return out;
}

/*
 * The quote GNU's quote() puts on the LEFT (or the right) of an
 * argument: the translation of "`" (or "'") in the catalog, as gnulib's
 * quotearg takes it, for the translators choose their language's marks
 * („…“ in German, « … » in French); without one, ‘…’ where the locale's
 * encoding is UTF-8, '…' elsewhere.  GNU 9.1 has one more fallback, for
 * GB18030, whose left quote is mistyped as the bytes A1 07 65 (a BEL);
 * 9.11 dropped it for '…', and so does spate.
 */
static const char *
locale_quote(int left)
{
	const char *msgid = left ? "`" : "'", *t = _(msgid);

	if (t != msgid)
		return t;
	if (strcmp(nl_langinfo(CODESET), "UTF-8") == 0)
		return left ? "\u2018" : "\u2019";
	return "'";
}

const char *
cmd_quote_n(int slot, const char *arg)
{
	static char *out[2];
	const char *lq = locale_quote(1), *rq = locale_quote(0);
	size_t i, j, k, len = strlen(arg), rqlen = strlen(rq);
	char *p;

	free(out[slot]);
	/* Worst case: every byte an octal escape. */
	if ((out[slot] = malloc(len * 4 + strlen(lq) + rqlen + 1)) == NULL)
		return arg;
	p = out[slot];
	add(&p, lq);
	for (i = 0; i < len; i += k) {
		if (!printable(arg + i, len - i, &k)) {
			for (j = 0; j < k; j++)
				add_escape(&p, arg[i + j]);
			continue;
		}
		/* A backslash, and the closing quote, must not pass as is. */
		if (arg[i] == '\\' ||
		    (rqlen > 0 && strncmp(arg + i, rq, rqlen) == 0))
			*p++ = '\\';
		memcpy(p, arg + i, k);
		p += k;
	}
	add(&p, rq);
	*p = '\0';
	return out[slot];
}

const char *
cmd_quote(const char *arg)
{
	return cmd_quote_n(0, arg);
}
