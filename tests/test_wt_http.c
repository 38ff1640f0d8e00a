/*
 * test_wt_http.c -- the reply side of `oomlens watch --metrics`
 * (watch/wt_http.c wt_http_reply): an engine's reply is untrusted bytes
 * and not NUL-terminated. Each reply is built in a buffer of exactly its
 * size (so ASan sees a read past it) around a real vLLM scrape (lines of
 * tests/data/real/tools/prom-exposition-vllm-v1-router-backend-running-
 * waiting-cache.txt): a Content-Length that ends the headers' bytes (the
 * fuzz finding of round 7: its value was read with strtoll past the
 * reply), one shorter than the body (the rest is not the reply), one
 * longer (cut short: refused, with the figures), one that is no number.
 */
#include "testutil.h"
#include "watch/wt_http.h"

#include <stdlib.h>
#include <string.h>

static const char scrape[] =
	"# HELP vllm:num_requests_running Number of requests in model execution batches.\n"
	"# TYPE vllm:num_requests_running gauge\n"
	"vllm:num_requests_running{model_name=\"Qwen/Qwen2.5-Coder-32B-Instruct\"} 0.0\n";

/* wt_http_reply on a heap copy of exactly strlen(r) bytes (no NUL). */
static int reply(const char *r, struct strbuf *out, char *why, size_t whyn)
{
	size_t n = strlen(r);
	char *copy = malloc(n);
	int kept;

	assert_non_null(copy);
	memcpy(copy, r, n);
	kept = wt_http_reply(copy, n, out, why, whyn);
	free(copy);
	return kept;
}

static void length_at_the_end(void **state)
{
	struct strbuf out = STRBUF_INIT;
	char why[200] = "";

	(void)state;
	/* the fuzzer's reply: the header block ends in the value's blanks */
	assert_int_equal(reply("HTTP/1.1 200\r\nContent-Length:  \r\r\n\n", &out, why, sizeof(why)), 0);
	strbuf_release(&out);
}

static void length_trims_and_refuses(void **state)
{
	struct strbuf out = STRBUF_INIT;
	char r[1024], why[200] = "";
	int kept;

	(void)state;
	snprintf(r, sizeof(r), "HTTP/1.0 200 OK\r\nContent-Length: %zu\r\n\r\n%sgarbage 1\n",
		 strlen(scrape), scrape);
	kept = reply(r, &out, why, sizeof(why));
	assert_int_equal(kept, 1);   /* the one running sample, not what follows */
	assert_non_null(strstr(out.buf, "vllm:num_requests_running"));
	assert_null(strstr(out.buf, "garbage"));
	strbuf_release(&out);

	strbuf_init(&out);
	snprintf(r, sizeof(r), "HTTP/1.0 200 OK\r\nContent-Length: %zu\r\n\r\n%s",
		 strlen(scrape) + 100, scrape);
	assert_int_equal(reply(r, &out, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "cut short"));
	strbuf_release(&out);

	strbuf_init(&out);
	snprintf(r, sizeof(r), "HTTP/1.0 200 OK\r\nContent-Length: lots\r\n\r\n%s", scrape);
	assert_int_equal(reply(r, &out, why, sizeof(why)), 1);   /* no figure: the whole body */
	strbuf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(length_at_the_end),
		cmocka_unit_test(length_trims_and_refuses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
