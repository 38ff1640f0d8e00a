/*
 * fuzz_watch_metrics.c -- libFuzzer harness for watch/wt_http.c, the
 * untrusted side of `oomlens watch --metrics`: the input is taken as an
 * HTTP reply (status line, headers, a plain or chunked body of exposition
 * text) and filtered, and its first line, up to 600 bytes, as a --metrics
 * URL. Asserts: a failure always says why, a kept sample count is never
 * more than the lines kept, every kept line ends with a newline.
 */
#include "watch/wt_http.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf out = STRBUF_INIT;
	struct wt_url u;
	char why[300] = "", url[601];
	size_t ul = 0, lines = 0, i;
	int kept;

	why[0] = 0;
	kept = wt_http_reply((const char *)data, size, &out, why, sizeof(why));
	if (kept < 0) {
		assert(why[0]);
	} else {
		for (i = 0; i < out.len; i++)
			lines += out.buf[i] == '\n';
		assert((size_t)kept <= lines);
		assert(!out.len || out.buf[out.len - 1] == '\n');
	}
	strbuf_release(&out);
	while (ul < size && ul < sizeof(url) - 1 && data[ul] != '\n' && data[ul])
		ul++;
	memcpy(url, data, ul);
	url[ul] = 0;
	why[0] = 0;
	if (wt_url_parse(url, &u, why, sizeof(why)) < 0) {
		assert(why[0]);
	} else {
		assert(u.host[0] && u.port[0] && u.path[0] == '/');
		assert(!strpbrk(u.path, " \r\n") && !strpbrk(u.hostport, " \r\n"));
	}
	return 0;
}
