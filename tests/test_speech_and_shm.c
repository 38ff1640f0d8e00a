/*
 * test_speech_and_shm.c -- set 13's misses spent on w-spend13a (round
 * 12), on the real pastes moved to tests/data/real/any_stack:
 *   - faster-whisper's model built by WhisperModel.__init__ (a PM_CTOR
 *     row: the module's innermost frame is its constructor) and its
 *     transcription frames (serving), parsers/serving/phase_rows_speech.inc;
 *   - a chained traceback whose first exception is a memory failure and
 *     whose second is an unrelated error raised while handling it keeps
 *     the failure (parsers/serving/server_join.c);
 *   - PyTorch's DataLoader out of shared memory: a host memory failure
 *     (memfail_words.c), misconfig/shm_limit (analyzer/rules/shm_limit.c);
 *     a worker killed by another signal stays no OOM.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"

#include <string.h>

#define ANY "tests/data/real/any_stack/"

/* Buzz's frozen build: CTranslate2's CUDA failure in WhisperModel's
 * constructor, then an AttributeError while handling it. */
static void buzz_load_chained(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, ANY "d-ctranslate2-buzz-faster-whisper-medium-gtx1060-load-oom") >= 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'mem_failure'"), 1);
	assert_string_equal(t_first_phase(tl), "load_weights");
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class || '/' || phase FROM verdict"),
			    "misconfig/load_weights");
	t_close(tl);
}

/* whisper-ctranslate2's transcription: generate_with_fallback, serving. */
static void fasterwhisper_generate(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, ANY "a-fasterwhisper-ctranslate2-cuda-oom-generate") >= 0);
	assert_string_equal(t_first_phase(tl), "serving");
	t_close(tl);
}

/* The constructor row holds only where the module's innermost frame is
 * its constructor: a failure under WhisperModel.transcribe (no row of
 * its own) is not a load, and a source line naming the module is no
 * frame. */
static void ctor_row_innermost_only(void **state)
{
	static const char log[] =
		"Traceback (most recent call last):\n"
		"  File \"app.py\", line 3, in <module>\n"
		"    model = faster_whisper.WhisperModel(\"medium\")\n"
		"  File \"/usr/lib/python3/site-packages/faster_whisper/transcribe.py\", line 130, in __init__\n"
		"    self.model = ctranslate2.models.Whisper(\n"
		"  File \"/usr/lib/python3/site-packages/faster_whisper/transcribe.py\", line 290, in transcribe\n"
		"    features = self.feature_extractor(audio)\n"
		"RuntimeError: CUDA failed with error out of memory\n";
	static const char ctor[] =
		"Traceback (most recent call last):\n"
		"  File \"app.py\", line 3, in <module>\n"
		"  File \"faster_whisper\\transcribe.py\", line 101, in __init__\n"
		"RuntimeError: CUDA failed with error out of memory\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "server_log", "a.log", log, sizeof(log) - 1) >= 0);
	assert_string_not_equal(t_first_phase(tl), "load_weights");
	t_close(tl);
	tl = t_open();
	assert_true(t_parse_mem(tl, "server_log", "b.log", ctor, sizeof(ctor) - 1) >= 0);
	assert_string_equal(t_first_phase(tl), "load_weights");
	t_close(tl);
}

/* stable-ts's audio reader under transcribe_stable: the host's, serving. */
static void stablets_transcribe(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, ANY "a-stablets-whisper-turbo-windows-host-ram-alloc") >= 0);
	assert_string_equal(t_first_phase(tl), "serving");
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.family') FROM event"
			    " WHERE kind = 'mem_failure' ORDER BY id LIMIT 1"), "host");
	t_close(tl);
}

/* YOLOv3's worker bus error at epoch 55: misconfig/shm_limit in the step. */
static void yolov3_shm(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, ANY "a-yolov3-epoch55-dataloader-shm-bus-error") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class || '/' || cause || '/' || phase FROM verdict"),
			    "misconfig/shm_limit/training_step");
	assert_string_equal(t_text(tl, "SELECT scope FROM oom WHERE id = 1"), "host");
	t_close(tl);
}

/* The worker's own line is the same failure; a worker killed by SIGKILL
 * says nothing of memory: no OOM. */
static void shm_words_and_sigkill(void **state)
{
	static const char worker[] = "ERROR: Unexpected bus error encountered in worker."
		" This might be caused by insufficient shared memory (shm).\n";
	static const char killed[] = "RuntimeError: DataLoader worker (pid 19597) is killed by"
		" signal: Killed.\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "server_log", "w.log", worker, sizeof(worker) - 1) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "shm_limit");
	t_close(tl);
	tl = t_open();
	assert_true(t_parse_mem(tl, "server_log", "k.log", killed, sizeof(killed) - 1) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM oom"), 0);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(buzz_load_chained),
		cmocka_unit_test(fasterwhisper_generate),
		cmocka_unit_test(ctor_row_innermost_only),
		cmocka_unit_test(stablets_transcribe),
		cmocka_unit_test(yolov3_shm),
		cmocka_unit_test(shm_words_and_sigkill),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
