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
 * whether it is printable in this locale.  Invalid bytes count singly.
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

/* Append the $'...' escape of byte C, as bash writes it, to *P. */
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
	size_t i, k, len = strlen(name);
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
			add_escape(&p, name[i]);
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

const char *
cmd_lquote(void)
{
	return strcmp(nl_langinfo(CODESET), "UTF-8") == 0 ? "\u2018" : "'";
}

const char *
cmd_rquote(void)
{
	return strcmp(nl_langinfo(CODESET), "UTF-8") == 0 ? "\u2019" : "'";
}

/*
 * Return ARG quoted for a message as GNU's quote() does: between the
 * locale's quotes, with C escapes for control characters, backslashes
 * and (between ASCII quotes) the quote itself, and octal escapes for
 * bytes that are no printable character here.  The result lives until
 * the next call.
 */
const char *
cmd_quote(const char *arg)
{
	static const char letters[] = "\a\b\f\n\r\t\v";
	static const char names[] = "abfnrtv";
	static char *out;
	const char *lq = cmd_lquote(), *rq = cmd_rquote();
	size_t i, k, len = strlen(arg);
	int ascii = strcmp(lq, "'") == 0;
	char *p, tmp[8];

	free(out);
	/* Worst case: every byte an octal escape. */
	if ((out = malloc(len * 4 + strlen(lq) + strlen(rq) + 1)) == NULL)
		return arg;
	p = out;
	add(&p, lq);
	for (i = 0; i < len; i += k) {
		unsigned char c = arg[i];
		const char *l = c ? strchr(letters, c) : NULL;

		if (printable(arg + i, len - i, &k)) {
			if (c == '\\' || (c == '\'' && ascii))
				*p++ = '\\';
			memcpy(p, arg + i, k);
			p += k;
			continue;
		}
		if (l != NULL)
			snprintf(tmp, sizeof tmp, "\\%c", names[l - letters]);
		else
			snprintf(tmp, sizeof tmp, "\\%03o", c);
		add(&p, tmp);
	}
	add(&p, rq);
	*p = '\0';
	return out;
}
