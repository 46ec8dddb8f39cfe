/*
 * yes-lite: the smallest yes, on the spate engine.
 *
 *	cc -o yes-lite yes-lite.c $(pkg-config --cflags --libs spate)
 *	./yes-lite 'hello' | head -n 3
 */
#include <err.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <spate.h>

int
main(int argc, char *argv[])
{
	const char *word = argc > 1 ? argv[1] : "y";
	size_t len = strlen(word);
	char *line;

	if ((line = malloc(len + 1)) == NULL)
		err(1, NULL);
	memcpy(line, word, len);
	line[len] = '\n';
	/* Returns only on failure: the reader left, or a write error. */
	spate_repeat(STDOUT_FILENO, line, len + 1);
	err(1, "standard output");
}
