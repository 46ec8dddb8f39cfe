/* Quoting of names in messages, as GNU's quotef() and quote() do. */
#define _GNU_SOURCE
#include <langinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

/* Can C, at index I of a name LEN bytes long, stand unquoted? */
static int
plain(unsigned char c, size_t i, size_t len)
{
	if (c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z'))
		return 1;
	if (c == '~' || c == '#')
		return i > 0;
	if (c == '{' || c == '}')
		return len > 1;
	return strchr("%+,-./@]_", c) != NULL;
}

static int
control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* Append S to the string being built at *P. */
static void
add(char **p, const char *s)
{
	size_t k = strlen(s);

	memcpy(*p, s, k);
	*p += k;
}

/* Write the escape of control character C, as $'\n' writes it, to *P. */
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
	size_t i, len = strlen(name);
	int quote = len == 0, squote = 0, ctl = 0, dqbad = 0;
	char *p;

	for (i = 0; i < len; i++) {
		unsigned char c = name[i];

		quote |= !plain(c, i, len);
		squote |= c == '\'';
		ctl |= control(c);
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
	add(&p, "'");
	for (i = 0; i < len; i++) {
		unsigned char c = name[i];

		if (c == '\'')
			add(&p, "'\\''");
		else if (control(c)) {
			add(&p, "'$'");
			add_escape(&p, c);
			add(&p, "''");
		} else
			*p++ = c;
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
