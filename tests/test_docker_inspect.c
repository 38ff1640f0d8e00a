/*
 * test_docker_inspect.c -- Docker's own account of a container's end as
 * `docker inspect` prints it (issue 27: Docker's OOMKilled), read by the
 * Kubernetes reader (parsers/k8s/k8s.c): a State block whose "OOMKilled"
 * is true is a kill at its "FinishedAt"; false with exit code 137 is a
 * SIGKILL and no OOM (tests/data/real/any_stack/docker-inspect-state-
 * exit-137-oomkilled-false-redis.log, docker/cli 2665). The block's
 * booleans ("Running": false, "Paused": false) must not end it: they did,
 * and an OOMKilled true after them was lost.
 */
#include "testutil.h"
#include "lib/timeutil.h"
#include "analyzer/rules/rules.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int64_t nevents(struct timeline *tl, const char *kind)
{
	return t_int(tl, "SELECT count(*) FROM event WHERE kind = '%s'", kind);
}

/* The field names and order of moby's api/types container.State, as
 * `docker inspect` prints them. */
static void oomkilled_true_is_a_kill(void **state)
{
	static const char killed[] =
		"[\n"
		"    {\n"
		"        \"Name\": \"/vllm\",\n"
		"        \"State\": {\n"
		"            \"Status\": \"exited\",\n"
		"            \"Running\": false,\n"
		"            \"Paused\": false,\n"
		"            \"Restarting\": false,\n"
		"            \"OOMKilled\": true,\n"
		"            \"Dead\": false,\n"
		"            \"Pid\": 0,\n"
		"            \"ExitCode\": 137,\n"
		"            \"Error\": \"\",\n"
		"            \"StartedAt\": \"2024-03-01T10:00:00.000000000Z\",\n"
		"            \"FinishedAt\": \"2024-03-01T10:05:00.000000000Z\"\n"
		"        },\n"
		"    }\n"
		"]\n";
	struct timeline *tl = t_open();

	(void)state;
	assert_true(t_parse_mem(tl, "k8s", "inspect", killed, 0) > 0);
	assert_int_equal(nevents(tl, "k8s_oom_kill"), 1);
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.exit_code') FROM event "
			       "WHERE kind = 'k8s_oom_kill'"), 137);
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind = 'k8s_oom_kill'"),
			 utc_ns(2024, 3, 1, 10, 5, 0, 0));
	/* Docker's account names no pod: the finding does not say
	 * Kubernetes ran it */
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_true(strncmp(t_text(tl, "SELECT title FROM finding WHERE rule = 'killers'"),
			    "Container ", 10) == 0);
	assert_null(strstr(t_text(tl, "SELECT title FROM finding WHERE rule = 'killers'"),
			   "Kubernetes"));
	t_close(tl);
}

static void oomkilled_false_137_is_no_oom(void **state)
{
	struct timeline *tl = t_open();
	size_t n;
	char *text = t_slurp("tests/data/real/any_stack/"
			     "docker-inspect-state-exit-137-oomkilled-false-redis.log", &n);

	(void)state;
	assert_true(t_parse_mem(tl, "k8s", "redis", text, n) > 0);
	free(text);
	assert_int_equal(nevents(tl, "k8s_oom_kill"), 0);
	assert_int_equal(nevents(tl, "process_crash"), 1);
	t_close(tl);
}

/* `docker events`' "container oom" line (readers17; docker/for-linux
 * #670, a kubelet's container: its labels name the pod): one kill at the
 * event's time, the pod, namespace and container from the labels. A
 * "die" event or an id too short is none. */
static void docker_events_container_oom(void **state)
{
	static const char other[] =
		"2019-05-04T18:05:46.000000000-05:00 container die 29d72966e0be (exitCode=137, name=x)\n"
		"2019-05-04T18:05:46.000000000-05:00 container oom 29d7 (name=x)\n"
		"grep 'container oom ' events.txt\n";
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file(tl, "tests/data/real/any_stack/"
				      "docker-events-container-oom-k8s-annotations.log"), 0);
	assert_int_equal(nevents(tl, "k8s_oom_kill"), 1);
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind = 'k8s_oom_kill'"),
			 utc_ns(2019, 5, 4, 23, 5, 45, 11072877));
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.namespace') FROM event"),
			    "jhub-prod");
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.container') FROM event"),
			    "notebook");
	t_close(tl);
	tl = t_open();
	assert_int_equal(t_parse_mem(tl, "k8s", "other", other, 0), 0);
	assert_int_equal(nevents(tl, "k8s_oom_kill"), 0);
	t_close(tl);
}

/* readers18: the reader records what told each kill (data.source) and
 * the killers rule titles by it, not by the name's shape. podman's
 * inspect (containers/podman pkg/api/handlers InspectContainerData,
 * the same State keys as moby's) names a container with no leading '/':
 * the '/' test read it as a Kubernetes pod. */
static void source_not_name_says_docker(void **state)
{
	static const char podman[] =
		"[\n"
		"    {\n"
		"        \"Name\": \"vllm\",\n"
		"        \"State\": {\n"
		"            \"Status\": \"exited\",\n"
		"            \"Running\": false,\n"
		"            \"OOMKilled\": true,\n"
		"            \"ExitCode\": 137,\n"
		"            \"FinishedAt\": \"2024-03-01T10:05:00.000000000Z\"\n"
		"        }\n"
		"    }\n"
		"]\n";
	static const char pods[] =
		"NAME                          READY   STATUS      RESTARTS      AGE\n"
		"vllm-deploy-6d5f7c9b8-x2k4l   0/1     OOMKilled   3 (45s ago)   5m12s\n";
	struct timeline *tl = t_open();

	(void)state;
	assert_true(t_parse_mem(tl, "k8s", "inspect", podman, 0) > 0);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.source') FROM event"
				   " WHERE kind = 'k8s_oom_kill'"), "docker_inspect");
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_true(strncmp(t_text(tl, "SELECT title FROM finding WHERE rule = 'killers'"),
			    "Container vllm ", 15) == 0);
	t_close(tl);
	tl = t_open();
	assert_true(t_parse_file(tl, "tests/data/real/any_stack/"
				 "docker-events-container-oom-k8s-annotations.log") == 0);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.source') FROM event"),
			    "docker_events");
	t_close(tl);
	tl = t_open();
	assert_true(t_parse_mem(tl, "k8s", "pods", pods, 0) > 0);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.source') FROM event"),
			    "kubectl_get");
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_true(strncmp(t_text(tl, "SELECT title FROM finding WHERE rule = 'killers'"),
			    "Kubernetes: ", 12) == 0);
	t_close(tl);
}

/* readers18: `docker inspect --format T NAMES` (docker/cli cli/command/
 * inspect/inspector.go@28064c20: the template executed per container
 * named, in order, then a newline). The templates runbooks give, each
 * output line matched against its text: OOMKilled true a kill (the name
 * from {{.Name}} or the command's names in order), false with 137 a
 * SIGKILL. A runbook's prose after the command, a template with an
 * action, a line that is not the template's: nothing. */
static void format_outputs(void **state)
{
	static const char two[] =
		"$ docker inspect --format='exit={{.State.ExitCode}} oom={{.State.OOMKilled}}'"
		" vllm-a vllm-b\n"
		"exit=0 oom=false\n"
		"exit=137 oom=true\n"
		"$ free -m\n";
	static const char named[] =
		"docker inspect --format '{{.Name}} {{.State.OOMKilled}} {{.State.ExitCode}}'"
		" $(docker ps -aq)\n"
		"/tgi true 137\n"
		"/redis false 137\n";
	static const char bare[] =
		"# docker inspect aegis-v2 --format='{{.State.OOMKilled}}'\n"
		"true\n";
	static const char prose[] =
		"OOM-killed (`docker inspect <container> --format '{{.State.OOMKilled}}'`\n"
		"will say `true`) even though every service is configured correctly\n"
		"docker inspect -f '{{if .State.OOMKilled}}oom{{end}}' x\n"
		"oom\n"
		"docker inspect -f '{{.State.OOMKilled}}' x\n"
		"maybe\n"
		"true\n";
	struct timeline *tl = t_open();

	(void)state;
	assert_true(t_parse_mem(tl, "k8s", "two", two, 0) > 0);
	assert_int_equal(nevents(tl, "k8s_oom_kill"), 1);
	assert_int_equal(nevents(tl, "process_crash"), 0);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.pod') FROM event"), "vllm-b");
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.exit_code') FROM event"), 137);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_true(strncmp(t_text(tl, "SELECT title FROM finding WHERE rule = 'killers'"),
			    "Container vllm-b ", 17) == 0);
	t_close(tl);
	tl = t_open();
	assert_true(t_parse_mem(tl, "k8s", "named", named, 0) > 0);
	assert_int_equal(nevents(tl, "k8s_oom_kill"), 1);
	assert_int_equal(nevents(tl, "process_crash"), 1);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.pod') FROM event"
				   " WHERE kind = 'k8s_oom_kill'"), "/tgi");
	t_close(tl);
	tl = t_open();
	assert_true(t_parse_mem(tl, "k8s", "bare", bare, 0) > 0);
	assert_int_equal(nevents(tl, "k8s_oom_kill"), 1);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.pod') FROM event"), "aegis-v2");
	t_close(tl);
	tl = t_open();
	assert_true(t_parse_mem(tl, "k8s", "prose", prose, 0) >= 0);
	assert_int_equal(nevents(tl, "k8s_oom_kill"), 0);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(oomkilled_true_is_a_kill),
		cmocka_unit_test(oomkilled_false_137_is_no_oom),
		cmocka_unit_test(docker_events_container_oom),
		cmocka_unit_test(source_not_name_says_docker),
		cmocka_unit_test(format_outputs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
