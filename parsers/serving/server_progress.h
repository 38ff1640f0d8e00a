/*
 * server_progress.h -- a training loop's progress in a plain log, read
 * line by line by server_log.c (issue 27 item 3: a first-step OOM is a
 * configuration that does not fit, a late one is not). What is read:
 *  - tqdm bars, "12/500 [00:19<50:33, 19.03s/it]" with or without the
 *    "NN%|###|" before (Lightning's and transformers' bars are tqdm's),
 *    several glued on one line by carriage returns, or glued to the
 *    "Traceback" that ended them: the last bar of a line wins;
 *  - loggers that print "[1330/3696]" (DETR's MetricLogger, mmcv,
 *    "Epoch: [1][371/4899]");
 *  - text-generation-webui's "Running… 128 / 7296 …";
 *  - DeepSpeed's "[Rank 0] step=2000, skipped=0, lr=[...]" (its engine's
 *    progress report, deepspeed/runtime/engine.py _report_progress: the
 *    global steps, no total);
 *  - the HF Trainer's log dicts, "{'loss': 1.87, 'grad_norm': 4.0,
 *    'learning_rate': 0.0035, 'epoch': 0.12}" (transformers'
 *    ProgressCallback.on_log writes str(logs) every logging_steps; a
 *    dict with 'learning_rate' is a training step's, not an
 *    evaluation's): the epoch reached and how many were logged;
 *  - a logger's "max mem: 29528" (MB, the peak so far): the memory trend.
 *  - trainers' step reports, N of M (round 15): OpenNMT-py's "Step
 *    100/100000; acc: ...", Coqui TTS's "--> STEP: 24/406 --
 *    GLOBAL_STEP: 25", fairseq's "epoch 001:    100 / 1000 loss=..."
 *    (a training loop's own: loop "training").
 * A bar that loads or prepares is no loop's work (round 15): its
 * description opens with a load's words ("Loading checkpoint shards",
 * "Fetching 4 files", "Downloading", datasets' "Map" and "Generating
 * train split", a tokenisation's) or its rate counts bytes or records
 * ("MB/s", "examples/s"); server_progress.c load_bar cites each.
 * Bars say the steps when there are any; else DeepSpeed's global step.
 * A bar that reached its total (a finished loop: checkpoint shards
 * loaded, a CUDA-graph capture) is not the loop that failed; a log an
 * engine's lines name (vLLM, SGLang...) is a server's: server_log.c
 * drops what was read there.
 * At the end one event "train_progress" (lib/vocab.h) with the last
 * bar: steps_done, steps_total (or null), first_step (the first bar's
 * step), bars (how many bars were read), step_source ("bar",
 * "deepspeed") and, when given, max_mem_first and max_mem_last (MB),
 * epoch and logged_steps (the Trainer's dicts).
 */
#ifndef OOMLENS_SERVER_PROGRESS_H
#define OOMLENS_SERVER_PROGRESS_H

#include <stddef.h>
#include <stdint.h>
#include "parsers/common/sink.h"
#include "lib/engine_vocab.h"

struct srv_progress {
	int64_t step, total;         /* the last bar: steps done, of total (-1 unknown) */
	int64_t first_step;          /* the first bar's steps done; -1 none yet */
	uint64_t bars, line;         /* bars read; the last bar's line */
	int trainer;                 /* the last bar is a trainer's own: only a
				      * training loop draws its form
				      * (text-generation-webui's training tab,
				      * modules/training.py do_train "Running...
				      * **N** / **M** ...") */
	struct ol_time t;            /* the last bar's line's time (may be unset) */
	double mem_first, mem_last;  /* "max mem: N" (MB); mem_n of them */
	uint64_t mem_n;
	int64_t ds_step, ds_first;   /* DeepSpeed's last and first global step; -1 */
	uint64_t ds_n;               /* its step lines read */
	double epoch;                /* the Trainer's last logged epoch; -1 */
	uint64_t logged;             /* the Trainer's training log dicts read */
	int last_eval;               /* round 18: the last loop bar drawn (finished
				      * or not) was an evaluation's (eval_bar) */
};

void srv_progress_init(struct srv_progress *p);

/* Line m[0..n) (number lineno, its time t) read for progress. 1 when it
 * held a bar or a memory figure, 0 when not. An evaluation loop's bar
 * (its words before it say so, round 17) and a finished loop's bar
 * (round 18) give 1 but are not counted as the training loop's
 * progress. Never fails. */
int srv_progress_line(struct srv_progress *p, const char *m, size_t n,
		      const struct ol_time *t, uint64_t lineno);

/* Line m[0..n) (number lineno, its time t), one the engine-line scan
 * marked (engine_line's train_log), read for DeepSpeed's step line and
 * the Trainer's log dict. 1 when it held one, 0 when not. Never fails. */
int srv_progress_logged(struct srv_progress *p, const char *m, size_t n,
			const struct ol_time *t, uint64_t lineno);

/* The event train_progress when a bar, a step line or a log dict was
 * read and keep is 1. 1 when
 * written, 0 none, -1 when the sink failed. */
int srv_progress_finish(struct srv_progress *p, struct sink *s, int keep);

/* Round 16 (w-phase17): the phase a loop's bar on line m[0..n) names by
 * the words of its description (tqdm's desc, the program's own text
 * before "NN%|": "Evaluating", "Validation", "Test", a CJK
 * "处理测试数据"): OOM_PHASE_EVAL for an evaluation's words,
 * OOM_PHASE_TRAINING_STEP for a training's, else OOM_PHASE_UNKNOWN
 * (no words, or both). Read for a bar srv_progress_line() took as a
 * loop's that runs after a model's load finished: that loop is the
 * stage the program is in, not the load (server_log.c). */
enum oom_phase srv_progress_bar_phase(const char *m, size_t n);

#endif
