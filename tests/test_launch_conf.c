/*
 * test_launch_conf.c -- launch commands and configurations as users paste
 * them beside a failure (parsers/serving/launch_conf.c): vLLM's `vllm
 * serve` with -tp and the python -m entry point, TGI's docker run (a
 * shell variable where a number should be), its flags pasted alone, its
 * Kubernetes env name/value pairs and a KEY = "value" list, vLLM's LLM()
 * keyword arguments in a script, Ollama's Modelfile, a compose file's
 * JSON command list, Ollama's image in a compose service, an engine
 * log holding its own command line, and LLaMA-Factory's names for
 * vLLM's settings (vllm_maxlen, vllm_gpu_util, vllm_enforce_eager).
 * Every input is a paste of tests/data/real/any_stack/<folder>/ or one
 * written in the exact shape a cited source shows. A paste never gives
 * an OOM event, and a log's own advice ("lowering `max_num_seqs`") is
 * never read as a launched value.
 */
#include "testutil.h"
#include "analyzer/ingest/formats.h"
#include "parsers/serving/launch_conf.h"
#include "lib/input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ANY "tests/data/real/any_stack/"
#define INCOMING "tests/data/incoming/any_stack/"
#define LF_YAML \
	"d-llamafactory-vllm-qwen1.5-72b-vllm-maxlen-2048/01-qwen-1.5-72B-Chat.yaml.txt"
#define OLLAMA_COMPOSE \
	"b-ollama-0.6.6-docker-gemma3-27b-qat-host-ram-and-swap-grow-compose/01-docker-compose.yml"

static const char *meta(struct timeline *tl, const char *key)
{
	return t_text(tl, "SELECT value FROM meta WHERE key = '%s' ORDER BY rowid", key);
}

static int64_t nevents(struct timeline *tl)
{
	return t_int(tl, "SELECT count(*) FROM event");
}

/* The format detection picks for a file of the source tree. */
static const char *detected(const char *relpath)
{
	struct input in;
	const struct format *f;
	const char *kind;

	assert_int_equal(input_open(&in, t_src(relpath), NULL), 0);
	f = detect_format(&in);
	kind = f ? f->kind : "nothing";
	input_close(&in);
	return kind;
}

/* vllm-project/vllm#15105: `vllm serve` with vLLM's short -tp. */
static void vllm_serve_command(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_string_equal(detected(ANY "vllm-0.8-v1-warmup-sampler-launch-tp2/02-launch.sh"),
			    "launch_config");
	assert_true(t_parse_file(tl, ANY "vllm-0.8-v1-warmup-sampler-launch-tp2/02-launch.sh") >= 0);
	assert_string_equal(meta(tl, "launch.engine"), "vllm");
	assert_string_equal(meta(tl, "launch.source"), "vllm launch command, line 1");
	assert_string_equal(meta(tl, "launch.tensor_parallel_size"), "2");
	assert_string_equal(meta(tl, "launch.max_model_len"), "15000");
	assert_string_equal(meta(tl, "launch.gpu_memory_utilization"), "0.78");
	assert_string_equal(meta(tl, "launch.max_num_seqs"), "(null)");   /* not launched */
	assert_int_equal(nevents(tl), 0);
	t_close(tl);
}

/* huggingface/text-generation-inference#755: docker run with the image's
 * name as the entry point, $num_shard where a number should be. */
static void tgi_docker_run_with_shell_variables(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, ANY "tgi-1.0-llama70b-gptq-docker-run-prefill-4096/01-docker-run.sh")
		    >= 0);
	assert_string_equal(meta(tl, "launch.engine"), "tgi");
	assert_string_equal(meta(tl, "launch.tensor_parallel_size"), "(null)");
	assert_int_equal(nevents(tl), 0);
	t_close(tl);
}

/* text-generation-inference#1374: the launcher's flags pasted alone;
 * TGI's --max-total-tokens is one request's tokens. */
static void tgi_flags_alone(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, ANY "tgi-1.3-codellama-34b-eetq-flags-request-oom/01-launch-args.txt")
		    >= 0);
	assert_string_equal(meta(tl, "launch.engine"), "tgi");
	assert_string_equal(meta(tl, "launch.max_num_seqs"), "1");
	assert_string_equal(meta(tl, "launch.max_model_len"), "6900");
	assert_string_equal(meta(tl, "launch.max_num_batched_tokens"), "7000");
	assert_string_equal(meta(tl, "launch.kv_cache_tokens"), "(null)");
	t_close(tl);
}

/* text-generation-inference#563 and #653: the launcher's flags from the
 * environment, as a Deployment's name/value pairs and as KEY = "value". */
static void tgi_environment(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_string_equal(detected(ANY "tgi-0.9-k8s-env-token-limits-warmup-panic/01-deployment-env.yaml"),
			    "launch_config");
	assert_true(t_parse_file(tl, ANY "tgi-0.9-k8s-env-token-limits-warmup-panic/01-deployment-env.yaml")
		    >= 0);
	assert_string_equal(meta(tl, "launch.max_num_batched_tokens"), "4100");
	assert_string_equal(meta(tl, "launch.kv_cache_tokens"), "4400");
	assert_string_equal(meta(tl, "launch.engine"), "tgi");
	assert_string_equal(meta(tl, "launch.source"), "pasted configuration, line 4");
	t_close(tl);
	tl = t_open();
	assert_true(t_parse_file(tl, ANY "tgi-0.9-env-token-limits-llama2-7b-a10g-prefill-oom/01-token-limits.env")
		    >= 0);
	assert_string_equal(meta(tl, "launch.max_model_len"), "4096");
	assert_string_equal(meta(tl, "launch.max_num_batched_tokens"), "4096");
	t_close(tl);
}

/* rhymes-ai/Aria#24: LLM()'s keyword arguments in the reporter's script. */
static void vllm_llm_kwargs(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, ANY "vllm-0.6-aria-llm-kwargs-tp4-l4-worker-oom/01-script.py") >= 0);
	assert_string_equal(meta(tl, "launch.gpu_memory_utilization"), "0.6");
	assert_string_equal(meta(tl, "launch.tensor_parallel_size"), "4");
	assert_string_equal(meta(tl, "launch.enforce_eager"), "1");
	assert_int_equal(nevents(tl), 0);
	t_close(tl);
}

/* LLaMA-Factory's YAML for its vLLM backend (hiyouga/LlamaFactory#5173,
 * the user's qwen-1.5-72B-Chat.yaml): vllm_maxlen, vllm_gpu_util and
 * vllm_enforce_eager are vLLM's max_model_len, gpu_memory_utilization and
 * enforce_eager (model_args.py@v0.8.3 -> chat/vllm_engine.py); the
 * commented-out "#gpu_memory_utilization: 0.95" is not a setting. */
static void llamafactory_vllm_keys(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_string_equal(detected(INCOMING LF_YAML), "launch_config");
	assert_true(t_parse_file(tl, INCOMING LF_YAML) >= 0);
	assert_string_equal(meta(tl, "launch.max_model_len"), "2048");
	assert_string_equal(meta(tl, "launch.gpu_memory_utilization"), "0.9");
	assert_string_equal(meta(tl, "launch.enforce_eager"), "1");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM meta WHERE key ="
			       " 'launch.gpu_memory_utilization'"), 1);
	assert_int_equal(nevents(tl), 0);
	t_close(tl);
}

/* The same settings on llamafactory-cli's command line: its
 * HfArgumentParser takes each ModelArguments field as --<field> value
 * (model_args.py@v0.8.3; a bool as true/false, transformers'
 * string_to_bool): "false" sets enforce_eager 0, not 1. */
static void llamafactory_vllm_flags(void **state)
{
	static const char cmd[] =
		"llamafactory-cli api --model_name_or_path Qwen/Qwen1.5-7B-Chat --template qwen \\\n"
		"  --infer_backend vllm --vllm_maxlen 8192 --vllm_gpu_util 0.85 \\\n"
		"  --vllm_enforce_eager false\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "launch_config", "api.sh", cmd, 0) > 0);
	assert_string_equal(meta(tl, "launch.max_model_len"), "8192");
	assert_string_equal(meta(tl, "launch.gpu_memory_utilization"), "0.85");
	assert_string_equal(meta(tl, "launch.enforce_eager"), "0");
	assert_int_equal(nevents(tl), 0);
	t_close(tl);
}

/* Ollama's Modelfile (docs/modelfile.md: PARAMETER num_ctx, num_gpu) and
 * a compose file's JSON command list with "--flag=value" and an env
 * entry, as docker-compose's reference writes them. */
static void modelfile_and_compose(void **state)
{
	static const char modelfile[] = "FROM llama3.1:70b\nPARAMETER num_ctx 32768\nPARAMETER num_gpu 40\n";
	static const char compose[] =
		"services:\n"
		"  vllm:\n"
		"    image: vllm/vllm-openai:v0.8.4\n"
		"    command: [\"--model\", \"Qwen/Qwen2.5-32B\", \"--max-num-seqs\", \"1024\","
		" \"--gpu-memory-utilization=0.99\"]\n"
		"    environment:\n"
		"      - PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(launch_conf_sniff((const unsigned char *)modelfile, strlen(modelfile)) > 0);
	assert_true(t_parse_mem(tl, "launch_config", "Modelfile", modelfile, 0) > 0);
	assert_string_equal(meta(tl, "launch.engine"), "ollama");
	assert_string_equal(meta(tl, "launch.max_model_len"), "32768");
	assert_string_equal(meta(tl, "launch.gpu_layers"), "40");
	t_close(tl);
	tl = t_open();
	assert_true(t_parse_mem(tl, "launch_config", "compose.yml", compose, 0) > 0);
	assert_string_equal(meta(tl, "launch.engine"), "vllm");
	assert_string_equal(meta(tl, "launch.max_num_seqs"), "1024");
	assert_string_equal(meta(tl, "launch.gpu_memory_utilization"), "0.99");
	assert_string_equal(meta(tl, "env.PYTORCH_CUDA_ALLOC_CONF"), "expandable_segments:True");
	t_close(tl);
}

/* A log: only its command line is read (text-generation-inference#1354's
 * paste opens with the docker run it came from); the engine's own advice
 * is not a launched value, and a log without a command line is not one
 * for this reader at all. */
static void command_inside_a_log(void **state)
{
	static const char log[] =
		"sudo docker run --gpus all --shm-size 1g -p 8080:80 -v $volume:/data"
		" ghcr.io/huggingface/text-generation-inference:1.3 --model-id $model"
		" --max-batch-prefill-tokens 2048\n"
		"2023-12-15T17:31:38.168114Z  INFO text_generation_launcher: Args { model_id:"
		" \"tiiuae/falcon-7b-instruct\", max_concurrent_requests: 128, max_total_tokens: 2048 }\n"
		"2023-12-15T17:31:38.168243Z  INFO download: text_generation_launcher: Starting download"
		" process.\n"
		"MAX_TOTAL_TOKENS = 9999\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "launch_config", "tgi.log", log, 0) > 0);
	assert_string_equal(meta(tl, "launch.max_num_batched_tokens"), "2048");
	assert_string_equal(meta(tl, "launch.max_num_seqs"), "(null)");   /* the log's Args */
	assert_string_equal(meta(tl, "launch.max_model_len"), "(null)");  /* not a command line */
	t_close(tl);
	assert_int_equal(launch_conf_sniff((const unsigned char *)"x", 1), 0);
	{	/* PyTorch's own advice names the allocator's variable: not a setting */
		size_t n;
		char *text = t_slurp(ANY "sglang-compose-olmocr-a100-default-fraction-oom/01-oom.txt", &n);
		assert_int_equal(launch_conf_sniff((const unsigned char *)text, n), 0);
		free(text);
	}
	/* a compose file's entrypoint with the engine's defaults: the engine */
	tl = t_open();
	assert_true(t_parse_file(tl, ANY "sglang-compose-olmocr-a100-default-fraction-oom/02-docker-compose.yaml")
		    >= 0);
	assert_string_equal(meta(tl, "launch.engine"), "sglang");
	assert_string_equal(meta(tl, "launch.gpu_memory_utilization"), "(null)");
	t_close(tl);
	assert_string_equal(detected(ANY "vllm-0.8-v1-warmup-sampler-launch-tp2/01-error.log"),
			    "server_log");
	{
		size_t n;
		char *text = t_slurp(ANY "vllm-0.8-v1-warmup-sampler-launch-tp2/01-error.log", &n);
		assert_int_equal(launch_conf_sniff((const unsigned char *)text, n), 0);
		free(text);
	}
}

/* ollama/ollama#10434 (held-out set 8, spent): a compose service of
 * Ollama's image, its environment OLLAMA_* settings that are no memory
 * knobs: the engine is Ollama (the image's ENTRYPOINT is /bin/ollama
 * serve), nothing else is launched, and no event comes of it. A Go
 * runtime dump naming github.com/ollama/ollama/ is no launch. */
static void ollama_compose_image(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_string_equal(detected(INCOMING OLLAMA_COMPOSE), "launch_config");
	assert_true(t_parse_file(tl, INCOMING OLLAMA_COMPOSE) >= 0);
	assert_string_equal(meta(tl, "launch.engine"), "ollama");
	assert_string_equal(meta(tl, "launch.max_model_len"), "(null)");
	assert_int_equal(nevents(tl), 0);
	t_close(tl);
	assert_string_not_equal(detected(INCOMING "ollama-runner-sigabrt-llama-decode-goroutine.log"),
				"launch_config");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(vllm_serve_command),
		cmocka_unit_test(tgi_docker_run_with_shell_variables),
		cmocka_unit_test(tgi_flags_alone),
		cmocka_unit_test(tgi_environment),
		cmocka_unit_test(vllm_llm_kwargs),
		cmocka_unit_test(llamafactory_vllm_keys),
		cmocka_unit_test(llamafactory_vllm_flags),
		cmocka_unit_test(modelfile_and_compose),
		cmocka_unit_test(command_inside_a_log),
		cmocka_unit_test(ollama_compose_image),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
