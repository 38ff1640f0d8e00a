/*
 * test_repl_stage.c -- an interactive Python session pasted as a
 * program's output (set 15 spent, round 14, branch w-spend15c): the
 * statement typed at CPython's ">>> " prompt runs until the next prompt,
 * so a session whose statement calls what the phase table names is read
 * as a program log (server_sniff.c repl_session) and that call is its
 * stage (server_memfail.c srv_mem_repl_statement). The lines are those
 * of resemble-ai/chatterbox #342 (tests/data/real/any_stack); a session
 * calling nothing the table names stays unread by the server-log reader.
 */
#include "testutil.h"
#include "parsers/serving/server_log.h"
#include "parsers/serving/server_memfail.h"

#include <string.h>

static const char session[] =
	"$ python\n"
	"Python 3.11.13 (main, Jun  4 2025, 08:57:29) [GCC 11.4.0] on linux\n"
	"Type \"help\", \"copyright\", \"credits\" or \"license\" for more information.\n"
	">>> from chatterbox.mtl_tts import ChatterboxMultilingualTTS\n"
	">>> ChatterboxMultilingualTTS.from_pretrained(device='cpu')\n"
	"Killed\n";

static void repl_load_call_is_a_server_log(void **state)
{
	(void)state;
	assert_true(server_log_sniff((const unsigned char *)session, sizeof(session) - 1) >= 60);
}

static void repl_plain_session_is_not(void **state)
{
	static const char plain[] =
		"$ python\n"
		">>> import os\n"
		">>> os.getcwd()\n"
		"'/home/user'\n"
		"Killed\n";
	(void)state;
	assert_int_equal(server_log_sniff((const unsigned char *)plain, sizeof(plain) - 1), 0);
}

static void repl_statement_shape(void **state)
{
	static const char *const yes[] = { ">>> model.train()", ">>> x = 1" };
	static const char *const no[] = { ">>>", ">>>  indented", "... continued(",
		"  >>> quoted()", "text >>> more" };
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		assert_true(srv_mem_repl_statement(yes[i], strlen(yes[i])));
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		assert_false(srv_mem_repl_statement(no[i], strlen(no[i])));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(repl_load_call_is_a_server_log),
		cmocka_unit_test(repl_plain_session_is_not),
		cmocka_unit_test(repl_statement_shape),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
