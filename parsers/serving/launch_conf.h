/*
 * launch_conf.h -- the configuration an SRE pastes beside a failure: an
 * engine's launch command (`vllm serve ...`, `python -m
 * sglang.launch_server ...`, `text-generation-launcher ...`, `docker run
 * <image> ...`, `llama-server -ngl ...`, `lmdeploy serve api_server ...`,
 * `trtllm-serve`, `torchrun`/`accelerate launch` with a trainer's
 * arguments), a docker-compose or Kubernetes YAML's args/command/env
 * lists, an Ollama Modelfile's PARAMETER lines, a training configuration
 * (TrainingArguments, DeepSpeed JSON, YAML recipes). Each knob it states
 * becomes launch.<knob> meta (the knob roles of lib/engine_knobs.h, plus
 * the trainer's), and launch.source says what stated them and where, so
 * that the rules can name a knob with its value and say where the value
 * came from. It records no event: a launch paste is never an OOM.
 *
 * A line log (it may share a file with an engine's own log): in a file
 * that is a log, only a launch command's lines (the line naming the entry
 * point and its continuations) are read; in a pasted configuration, every
 * line.
 */
#ifndef OOMLENS_LAUNCH_CONF_H
#define OOMLENS_LAUNCH_CONF_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

/* 60 when the head holds a launch command naming an engine's entry point
 * or a configuration with the engines' or trainers' keys, else 0. */
int launch_conf_sniff(const unsigned char *head, size_t n);
/* launch.* meta from every launch command and configuration line of in.
 * Returns the number of records, or -1 when the sink failed. */
int launch_conf_parse(struct input *in, struct sink *s);

/* One knob as a launch line states it, for the parser and its tests. */
struct launch_knob {
	const char *key;     /* launch.<key>: "max_num_seqs", "gpu_memory_utilization", ... */
	double value;
};

/* The engine named by an entry point on line[0..n) ("vllm", "sglang",
 * "tgi", "llama.cpp", "lmdeploy", "tensorrt-llm", "ollama", "trainer"),
 * or NULL when it names none. */
const char *launch_entry_point(const char *line, size_t n);
/* The phase the entry point in line[0..n) runs its whole life in
 * (launch_table.h's phase: "eval" for an inference-only CLI); NULL when
 * it names none or no entry point. */
const char *launch_entry_phase(const char *line, size_t n);

#endif
