/*
 * test_shell_kill.c -- a shell's "Killed" job report read as a process
 * ended by SIGKILL, the sender not shown (issue 27, round 14, killed15;
 * parsers/host/shell_kill.c). Before, a log ending in a progress bar and
 * the shell's "Killed" was "not a format oomlens reads". Real pastes:
 * gensyn-ai/rl-swarm #59 (macOS "Killed: 9" glued to tqdm's last frame)
 * and #50 (Linux "Killed"), vectorch-ai/ScaleLLM #38 (an entrypoint
 * script's job under compose's prefix), danijar/dreamerv3 #203 (glibc's
 * zh_CN "已杀死" alone). A line where "killed" is prose stays unread:
 * the real healthy script log whose cleanup helper prints "Killed
 * process N" (tests/data/real/healthy), and the words below.
 */
#include "testutil.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define INC "tests/data/incoming/any_stack/"

static int64_t kills(struct timeline *tl)
{
	return t_int(tl, "SELECT count(*) FROM event WHERE kind = 'process_crash' AND"
		     " json_extract(data, '$.signal') = 'SIGKILL' AND"
		     " json_extract(data, '$.source') = 'shell'");
}

/* No OOM event of any kind: a SIGKILL names no memory failure. */
static int64_t ooms(struct timeline *tl)
{
	return t_int(tl, "SELECT count(*) FROM event WHERE kind <> 'process_crash'");
}

static void macos_killed9_after_tqdm(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file(tl, INC "a-rlswarm-mac-mini-16g-killed9-at-75pct/01-error.txt"), 0);
	assert_int_equal(kills(tl), 1);
	assert_int_equal(ooms(tl), 0);
	assert_int_equal(t_int(tl, "SELECT pid FROM event"), 33551);
	assert_string_equal(t_text(tl, "SELECT comm FROM event"), "python");
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.form') FROM event"),
			    "bash_script");
	assert_non_null(strstr(t_text(tl, "SELECT summary FROM event"), "not in the excerpt"));
	t_close(tl);
}

static void linux_killed_after_tqdm(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file(tl, INC "a-rlswarm-vps-16gb-host-killed-step1/01-logs.txt"), 0);
	assert_int_equal(kills(tl), 1);
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind = 'process_crash'"), 175323);
	t_close(tl);
}

static void compose_prefixed_entrypoint_job(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file_as(tl, "shell_kill",
			 INC "a-docker-scalellm-cpu-yi-6b-compose-exit-137-killed/02-compose-output.txt"), 1);
	assert_int_equal(t_int(tl, "SELECT pid FROM event"), 7);
	assert_string_equal(t_text(tl, "SELECT comm FROM event"), "scalellm");   /* past VAR=value */
	t_close(tl);
}

static void zh_locale_alone(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file_as(tl, "shell_kill",
			 INC "b-dreamerv3-training-killed-zh-locale-no-memory-wording/01-training.log"), 1);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.form') FROM event"), "alone");
	t_close(tl);
}

static void job_and_zsh_forms(void **state)
{
	static const char text[] =
		"epoch 3 step 1200 loss 0.41\n"
		"[1]+  Killed                  python train.py --bs 64\n"
		"zsh: killed     python train.py\n"
		"Killed: 9\n"
		"\x1b[0mKilled\x1b[0m\n";
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_mem(tl, "shell_kill", "x", text, 0), 4);
	assert_int_equal(kills(tl), 4);
	t_close(tl);
}

/* A launcher's report of its worker's SIGKILL (readers17): DeepSpeed's
 * sigkill_handler line, the worker's command wrapped over lines, its
 * return code -9 at the end (CASIA-LMC-Lab/AnomalyGPT #43, a 7B load on a
 * small host; deepspeed/launcher/launch.py@v0.12.3), and torchrun's
 * ChildFailedError field (torch/distributed/elastic/multiprocessing/
 * errors/__init__.py@v2.1.0). Other codes and signals are no SIGKILL. */
static void launcher_sigkill_lines(void **state)
{
	static const char text[] =
		"  exitcode  : -9 (pid: 4242)\n"
		"  traceback : Signal 9 (SIGKILL) received by PID 4242\n"
		"  traceback : Signal 6 (SIGABRT) received by PID 4243\n"
		"[ERROR] [launch.py:321:sigkill_handler] ['python', 'x.py'] exits with return code = 1\n"
		"[ERROR] [launch.py:321:sigkill_handler] ['python', 'x.py'] exits with return code = -15\n"
		"Signal 9 (SIGKILL) received by PID\n";
	struct timeline *tl = t_open();
	const char *q = "SELECT count(*) FROM event WHERE kind = 'process_crash' AND"
			" json_extract(data, '$.source') = 'launcher'";

	(void)state;
	assert_int_equal(t_parse_file(tl, "tests/data/real/any_stack/"
				      "b-deepspeed-anomalygpt-vicuna-load-sigkill-exit-minus-9.log"), 0);
	assert_int_equal(t_int(tl, q), 1);
	assert_int_equal(ooms(tl), 0);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.form') FROM event"),
			    "deepspeed_launcher");
	/* PandaGPT's "Initializing language decoder from" three lines above
	 * (phase_rows_frameworks.inc, startup18) */
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.phase') FROM event"),
			    "load_weights");
	t_close(tl);
	tl = t_open();
	assert_int_equal(t_parse_mem(tl, "shell_kill", "torchrun", text, 0), 1);
	assert_int_equal(t_int(tl, q), 1);
	assert_int_equal(t_int(tl, "SELECT pid FROM event"), 4242);
	t_close(tl);
}

/* A Go launcher's report of its child's SIGKILL (readers18): os/exec's
 * "signal: killed" (Go src/os/exec_posix.go@go1.21.0) closing Ollama's
 * "llama-server process has terminated: " (ollama #18396, a Jetson load
 * killed by the host: tests/data/incoming/any_stack), and "exit status
 * 137" when a shell stood between. The words in prose, another signal or
 * another status are none. */
static void go_launcher_signal_killed(void **state)
{
	static const char text[] =
		"time=2024-07-01T10:00:05.000Z level=ERROR source=sched.go:443 msg=\"error loading"
		" llama server\" error=\"llama runner process has terminated: exit status 137\"\n"
		"level=ERROR msg=\"runner exited\" error=\"llama runner process has terminated:"
		" exit status 2\"\n"
		"error: signal: killedx\n"
		"when it gets signal: killed processes leave no trace\n"
		"llama runner process has terminated: signal: aborted (core dumped)\n";
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file_as(tl, "shell_kill",
					 "tests/data/real/any_stack/b-ollama-jetson-load-mode-dio-killed.log"), 1);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.source') FROM event"),
			    "launcher");
	assert_int_equal(ooms(tl), 0);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.form') FROM event"), "go_exec");
	assert_string_equal(t_text(tl, "SELECT comm FROM event"), "llama-server");
	t_close(tl);
	tl = t_open();
	assert_int_equal(t_parse_mem(tl, "shell_kill", "go", text, 0), 1);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.form') FROM event"),
			    "go_exec_137");
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.exit_code_inferred') FROM event"), 0);
	t_close(tl);
}

/* PyTorch's DataLoader on a SIGKILLed worker (torch/csrc/DataLoader.cpp@
 * v1.7.1), its pid a number or a paste's placeholder (neuralmagic/sparseml
 * #152); a worker's other signals (Bus error, Aborted) are not kills. */
static void dataloader_worker_killed(void **state)
{
	static const char text[] =
		"RuntimeError: DataLoader worker (pid 9833) is killed by signal: Killed. \n";
	static const char held[] =
		"RuntimeError: DataLoader worker (pid <worker_pid>) is killed by signal: Killed.\n";
	static const char other[] =
		"RuntimeError: DataLoader worker (pid 6303) is killed by signal: Aborted. \n"
		"RuntimeError: DataLoader worker (pid 51) is killed by signal: Bus error. \n";
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_mem(tl, "shell_kill", "dl", text, 0), 1);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.form') FROM event"),
			    "dataloader_worker");
	assert_int_equal(t_int(tl, "SELECT pid FROM event"), 9833);
	assert_int_equal(ooms(tl), 0);
	t_close(tl);
	tl = t_open();
	assert_int_equal(t_parse_mem(tl, "shell_kill", "dl", held, 0), 1);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.form') FROM event"),
			    "dataloader_worker");
	t_close(tl);
	tl = t_open();
	assert_int_equal(t_parse_mem(tl, "shell_kill", "dl", other, 0), 0);
	t_close(tl);
}

/* The stage the program's own lines last named above a kill is kept as
 * the event's phase (startup18): transformers' shard bar then a bare
 * lower-case "killed" retyped into the issue (tloen/alpaca-lora #546,
 * more host RAM fixed it), and llama.cpp's load_tensors lines then a
 * shell's "Killed"; a kill with no stage line above it has no phase. */
static void kill_keeps_the_stage_above_it(void **state)
{
	static const char gguf[] =
		"load_tensors: loading model tensors, this can take a while... (mmap = true)\n"
		"load_tensors: offloaded 41/43 layers to GPU\n"
		"Killed\n";
	static const char bare[] = "Killed\n";
	struct timeline *tl = t_open();
	const char *phase = "SELECT coalesce(json_extract(data, '$.phase'), '-') FROM event";

	(void)state;
	assert_int_equal(t_parse_file_as(tl, "shell_kill", "tests/data/real/any_stack/"
			 "b-transformers-alpaca-lora-8bit-host-killed-loading-shards-52pct/02-failure.txt"), 1);
	assert_int_equal(kills(tl), 1);
	assert_int_equal(ooms(tl), 0);
	assert_string_equal(t_text(tl, phase), "load_weights");
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.phase_line') FROM event"), 1);
	t_close(tl);
	tl = t_open();
	assert_int_equal(t_parse_mem(tl, "shell_kill", "gguf", gguf, 0), 1);
	assert_string_equal(t_text(tl, phase), "load_weights");
	t_close(tl);
	tl = t_open();
	assert_int_equal(t_parse_mem(tl, "shell_kill", "bare", bare, 0), 1);
	assert_string_equal(t_text(tl, phase), "-");
	t_close(tl);
}

/* Prose and cleanup helpers: no event. */
static void prose_is_not_a_kill(void **state)
{
	static const char text[] =
		"Killed process 2277299\n"
		"Killed process 12 on GPU 0\n"
		"killed the old server before the upgrade\n"
		"+ pkill -9 -f vllm; echo Killed\n"
		"[INFO] Killed 3 stale workers\n"
		"[1]+  Done                    python train.py\n"
		"zsh: terminated  python train.py\n"
		"+**Problem**: a run stops with a bare ``Killed`` and no traceback\n"
		"see line 12: 345 Killedness\n"
		"Killed by user\n";
	struct timeline *tl = t_open();
	size_t n;
	char *healthy = t_slurp("tests/data/real/healthy/"
				"c-leanagent-ppl-gpus-script-killed-process-lines-nvidia-smi.txt", &n);

	(void)state;
	assert_int_equal(t_parse_mem(tl, "shell_kill", "prose", text, 0), 0);
	assert_int_equal(t_parse_mem(tl, "shell_kill", "healthy", healthy, n), 0);
	free(healthy);
	assert_int_equal(kills(tl), 0);
	t_close(tl);
}

/* A line whose last carriage-return overwrite is blanks alone, at the
 * very end of the input (no newline after it): the terminal shows
 * nothing, so nothing is read, and nothing past the end (fuzz round 14's
 * heap-buffer-overflow in alone_forms, found on this shape). */
static void blank_last_line_reads_nothing(void **state)
{
	static const char text[] = "75% step 3\nKilled\r   ";
	char *exact = malloc(sizeof(text) - 1);
	struct timeline *tl = t_open();

	(void)state;
	assert_non_null(exact);
	memcpy(exact, text, sizeof(text) - 1);
	assert_int_equal(t_parse_mem(tl, "shell_kill", "blank", exact, sizeof(text) - 1), 0);
	assert_int_equal(kills(tl), 0);
	free(exact);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(macos_killed9_after_tqdm),
		cmocka_unit_test(linux_killed_after_tqdm),
		cmocka_unit_test(compose_prefixed_entrypoint_job),
		cmocka_unit_test(zh_locale_alone),
		cmocka_unit_test(job_and_zsh_forms),
		cmocka_unit_test(launcher_sigkill_lines),
		cmocka_unit_test(go_launcher_signal_killed),
		cmocka_unit_test(dataloader_worker_killed),
		cmocka_unit_test(kill_keeps_the_stage_above_it),
		cmocka_unit_test(prose_is_not_a_kill),
		cmocka_unit_test(blank_last_line_reads_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
