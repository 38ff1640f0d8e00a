/*
 * server_progress.c -- a training loop's progress bars and step counters
 * in a plain log (server_progress.h says which). One memchr per line for
 * the '/' every bar has; the digits on both sides and what follows them
 * decide. The logged steps (DeepSpeed's, the Trainer's) are read only on
 * the lines the engine-line scan marked. Nothing is allocated.
 */
#include "parsers/serving/server_progress.h"
#include "parsers/common/seriesutil.h"
#include "lib/common.h"
#include "lib/strci.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DIGITS 12   /* a step count longer than this is no step count */

void srv_progress_init(struct srv_progress *p)
{
	memset(p, 0, sizeof(*p));
	p->step = p->total = p->first_step = -1;
	p->ds_step = p->ds_first = -1;
	p->epoch = -1;
	p->t.utc_ns = p->t.boot_ns = OL_NULL;
}

static int dig(char c)
{
	return isdigit((unsigned char)c);
}

/* The number of the digits m[a..b) (b - a <= MAX_DIGITS). */
static int64_t number(const char *m, size_t a, size_t b)
{
	int64_t v = 0;

	for (; a < b; a++)
		v = v * 10 + (m[a] - '0');
	return v;
}

/* A logger's "[epoch, itr/ ipe]" (I-JEPA's descendants print
 * '[%d, %5d/%5d]', the epoch then the step of the epoch's ipe, printf's
 * padding after the '/'; FalsoMoralista/FGDCC engine_FGDCC.py
 * log_stats, its output in slurm-2932.out@9e3bc91): with the ',' at m[k], where the epoch's digits start when
 * a '[' opens them, else k (no '[' there: not this form). */
static size_t epoch_before(const char *m, size_t k)
{
	size_t e = k;

	while (e > 0 && dig(m[e - 1]) && k - e <= MAX_DIGITS)
		e--;
	return e < k && e > 0 && m[e - 1] == '[' ? e : k;
}

/* The bar whose '/' is at m[i] (n the line's length): 1 with *done and
 * *total when the digits around it are followed as one of the forms
 * says, else 0. *trainer: 1 for the form only a training loop draws
 * (text-generation-webui's training tab), 0 for any loop's bar. */
static int bar_at(const char *m, size_t n, size_t i, int64_t *done, int64_t *total,
		  int *trainer)
{
	size_t a, b, c, d;
	int padded;
	int spaced = i >= 2 && i + 2 < n && m[i - 1] == ' ' && m[i + 1] == ' ';

	b = spaced ? i - 1 : i;      /* the digits before: [a, b) */
	for (a = b; a > 0 && dig(m[a - 1]) && b - a <= MAX_DIGITS; a--)
		;
	c = spaced ? i + 2 : i + 1;  /* the digits after: [c, d) */
	padded = !spaced && c < n && m[c] == ' ';
	while (padded && c < n && m[c] == ' ' && c - i <= MAX_DIGITS)
		c++;
	for (d = c; d < n && dig(m[d]) && d - c <= MAX_DIGITS; d++)
		;
	if (a == b || c == d || b - a > MAX_DIGITS || d - c > MAX_DIGITS)
		return 0;
	if (spaced) {                /* text-generation-webui: "128 / 7296 …" */
		if (!(d + 4 <= n && !memcmp(m + d, " \xe2\x80\xa6", 4)))
			return 0;
	} else if (!padded && d + 1 < n && m[d] == ' ' && m[d + 1] == '[') {
		;                        /* tqdm: "12/500 [00:19<...]" */
	} else if (d < n && m[d] == ']') {   /* a logger's "[ 940/3696]" */
		size_t o = a;
		while (o > 0 && m[o - 1] == ' ')
			o--;
		if (o > 0 && m[o - 1] == ',')    /* "[1,    50/ 3843]" */
			o = epoch_before(m, o - 1);
		if (o == 0 || m[o - 1] != '[')
			return 0;
	} else {
		return 0;
	}
	*done = number(m, a, b);
	*total = number(m, c, d);
	*trainer = spaced;
	return *total > 0 && *done <= *total;
}

/* fairseq's "epoch 001:    100 / 1000 loss=..." (step_report_at): the
 * digits before the '/' start at a (spaces from o), its total ends at d. */
static int fairseq_epoch(const char *m, size_t n, size_t o, size_t a, size_t d)
{
	size_t e;

	if (o == a || o < 8 || m[o - 1] != ':' || d + 1 >= n || m[d] != ' ')
		return 0;
	for (e = o - 1; e > 0 && dig(m[e - 1]); e--)
		;
	return e < o - 1 && e >= 6 && !memcmp(m + e - 6, "epoch ", 6);
}

/* Round 15 (w-wordings16): a trainer's step report, N of M steps, at
 * the '/' m[i] (n the line's length): 1 with *done and *total when it
 * is one of the forms below, else 0. Each is printed by a training loop
 * only (its evaluation prints another line), so the loop is training:
 *  - OpenNMT-py's "Step %2d/%5d; acc: ..." (onmt/utils/statistics.py
 *    Statistics.output: step_fmt "%2d" then "%s/%5d", so spaces may pad
 *    either number; indexed copies 2018-2024, "Step 100/100000; acc:");
 *    its validation logs "Validation perplexity" instead;
 *  - Coqui TTS's "--> STEP: {step}/{batch_steps} -- GLOBAL_STEP: N"
 *    (coqui-ai/TTS TTS/utils/console_logger.py@0e79fa8 print_train_step;
 *    its evaluation's step line, print_eval_step, has no total);
 *  - fairseq's simple progress log, "epoch 001:    100 / 1000 loss=9.2,
 *    ..., num_updates=100" (fairseq/logging/progress_bar.py
 *    SimpleProgressBar.log: "{}:  {:5d} / {:d} {}" with the prefix
 *    f"epoch {epoch:03d}" of the training loop, fairseq_cli/train.py
 *    train; its validation's prefix is "valid on '<subset>' subset",
 *    indexed copies 0.10-0.12);
 *  - the PaddlePaddle model zoo's fine-tuning and pre-training loops
 *    (ERNIE's run_sequence_labeling.py, run_classifier.py, BERT's and
 *    LARK's train.py, 2019-2020 indexed copies): "epoch: %d, progress:
 *    %d/%d, step: %d, loss: %f, ..., speed: %f steps/s" every skip_steps
 *    of the training loop; their evaluation prints "[dev evaluation]"
 *    lines instead (set 16 spent, w-spend16b). */
static int paddle_progress(const char *m, size_t n, size_t o, size_t d)
{
	return o >= 9 && !memcmp(m + o - 9, "progress:", 9) && d + 8 <= n &&
	       !memcmp(m + d, ", step: ", 8);
}

static int step_report_at(const char *m, size_t n, size_t i, int64_t *done, int64_t *total)
{
	size_t a, b, c, d, o;
	int onmt;

	for (b = i; b > 0 && m[b - 1] == ' '; b--)
		;
	for (a = b; a > 0 && dig(m[a - 1]) && b - a <= MAX_DIGITS; a--)
		;
	for (c = i + 1; c < n && m[c] == ' '; c++)
		;
	for (d = c; d < n && dig(m[d]) && d - c <= MAX_DIGITS; d++)
		;
	if (a == b || c == d || b - a > MAX_DIGITS || d - c > MAX_DIGITS)
		return 0;
	for (o = a; o > 0 && m[o - 1] == ' '; o--)
		;
	onmt = o >= 4 && !memcmp(m + o - 4, "Step", 4) && o < a && d < n && m[d] == ';' &&
	       (o == 4 || !isalnum((unsigned char)m[o - 5]));
	if (!onmt && !(o >= 5 && a - o == 1 && !memcmp(m + o - 5, "STEP:", 5) &&
		       d + 16 <= n && !memcmp(m + d, " -- GLOBAL_STEP:", 16)) &&
	    !fairseq_epoch(m, n, o, a, d) && !paddle_progress(m, n, o, d))
		return 0;
	*done = number(m, a, b);
	*total = number(m, c, d);
	return *total > 0 && *done <= *total;
}

/* I-JEPA's "[mem: %.2e]" on its step line, torch.cuda.
 * max_memory_allocated() / 1024.**2 (MB, the peak so far: the measure
 * "max mem" is; facebookresearch/ijepa src/train.py@52c1ae9 log_stats),
 * "4.64e+04"; -1 when absent or not a number closed by ']'. */
static double mem_sci(const char *m, size_t n)
{
	const char *p = mem_find(m, n, "[mem: "), *e;
	char buf[32];
	size_t k;
	double v;
	char *end;

	if (!p)
		return -1;
	p += 6;
	for (e = p; e < m + n && e - p < 24 && *e != ']'; e++)
		;
	k = (size_t)(e - p);
	if (e >= m + n || *e != ']' || k == 0 || !dig(*p))
		return -1;
	memcpy(buf, p, k);
	buf[k] = '\0';
	v = strtod(buf, &end);
	return *end == '\0' && v >= 0 ? v : -1;
}

/* "max mem: N" after a bar (MB, the peak so far), or I-JEPA's "[mem:
 * N]" (mem_sci); -1 when absent. */
static double max_mem(const char *m, size_t n)
{
	const char *p = mem_find(m, n, "max mem: ");
	double v = 0;
	int k = 0;

	if (!p)
		return mem_sci(m, n);
	for (p += 9; p < m + n && dig(*p) && k < MAX_DIGITS; p++, k++)
		v = v * 10 + (*p - '0');
	return k ? v : -1;
}

/* 1 when the bar whose '/' is at m[s] is a diffusion sampler's loop over
 * its denoising timesteps, not a training loop: tqdm's description (the
 * words before "N%|") ends in "Sampler:". ByteDance-Seed's SeedVR
 * samplers, and the ComfyUI node built on them
 * (numz/ComfyUI-SeedVR2_VideoUpscaler src/common/diffusion/samplers/
 * base.py@v2.5.8 get_progress_bar: tqdm(..., desc=self.__class__.__name__)
 * for EulerSampler), print "EulerSampler:   0%|   | 0/1 [...]": one bar
 * per inference, whatever runs it. Looked for only on a line with a bar,
 * within the bar's own text (no '/' or ']' between). */
static int sampler_bar(const char *m, size_t s)
{
	static const char word[] = "Sampler:";
	size_t w = sizeof(word) - 1, i;

	for (i = s; i >= w; i--) {
		if (m[i - 1] == '/' && i - 1 != s)
			return 0;
		if (m[i - 1] == ']' || s - i > 160)
			return 0;
		if (!memcmp(m + i - w, word, w))
			return 1;
	}
	return 0;
}

/* Descriptions of the bars that load or prepare, not work done: the
 * words a bar's description opens with (tqdm's l_bar "{desc}: N%|"),
 * each its program's own:
 *  - transformers' shard loop, logging.tqdm(..., desc="Loading checkpoint
 *    shards") (src/transformers/modeling_utils.py@v4.36.0
 *    _load_pretrained_model), vLLM's "Loading safetensors checkpoint
 *    shards" (vllm/model_executor/model_loader/weight_utils.py@v0.6.0
 *    safetensors_weights_iterator), any "Loading ...";
 *  - huggingface_hub's snapshot, thread_map(..., desc=f"Fetching
 *    {len(filtered_repo_files)} files") (src/huggingface_hub/
 *    _snapshot_download.py@v0.20.0), and its downloads' bars
 *    ("Downloading", file_download.py@v0.20.0 http_get);
 *  - datasets' preparation: Dataset.map's desc "Map" / "Map
 *    (num_proc=N)" and filter's "Filter" (src/datasets/arrow_dataset.py
 *    @2.14.0), "Generating train split" (builder.py@2.14.0), "Resolving
 *    data files" (data_files.py@2.14.0), "Extracting data files";
 *  - the transformers examples' tokenisation, desc="Running tokenizer on
 *    dataset" and "Grouping texts in chunks of N" (examples/pytorch/
 *    language-modeling/run_clm.py@v4.36.0);
 *  - a model's weights quantised as it loads, layer after layer:
 *    optimum's GPTQ, tqdm(..., desc=f"Quantizing {block_name} blocks ")
 *    (optimum/gptq/quantizer.py@v1.16.0 quantize_model), and research
 *    scripts' own "Quantizing: 3/32" over the layers (set 15's
 *    BitDistiller row lost its load to such a bar in round 16).
 * Matched where a word starts (not inside one). */
static const char *const load_desc[] = {
	"Loading ",
	"Fetching ",
	"Downloading",
	"Uploading",
	"Extracting",
	"Resolving data files",
	"Generating train split",
	"Generating validation split",
	"Generating test split",
	"Map: ",
	"Map (",
	"Filter: ",
	"Filter (",
	"Running tokenizer",
	"Grouping texts",
	"Quantizing",
	"Quantising",
	NULL
};

/* Units of a bar's rate that count bytes moved or records prepared, not
 * steps: tqdm's unit="B" with unit_scale ("12.3MB/s", huggingface_hub
 * http_get@v0.20.0), datasets' " examples" (arrow_dataset.py@2.14.0
 * map) and its older " ba" (batches, datasets@1.18.0 map). */
static const char *const load_rate[] = {
	"B/s]",
	" examples/s]",
	"ba/s]",
	NULL
};

/* 1 when the bar whose '/' is at m[s] (n the line's length) loads or
 * prepares (load_desc, load_rate) rather than counts a loop's steps.
 * Its description is looked for back to the bar's own start (a carriage
 * return, a ']' closing the bar before it, at most 200 bytes); its rate
 * up to the ']' closing it (at most 100 bytes). */
static int load_bar(const char *m, size_t n, size_t s)
{
	size_t a = s, e, i, k, w;

	while (a > 0 && s - a < 200 && m[a - 1] != '\r' && m[a - 1] != '\n' && m[a - 1] != ']')
		a--;
	for (i = a; i < s; i++) {
		if (i > a && (isalnum((unsigned char)m[i - 1]) || m[i - 1] == '_'))
			continue;
		for (k = 0; load_desc[k]; k++) {
			w = strlen(load_desc[k]);
			if (i + w <= s && !memcmp(m + i, load_desc[k], w))
				return 1;
		}
	}
	for (e = s; e < n && e - s < 100 && m[e] != ']' && m[e] != '\r'; e++)
		;
	if (e < n && m[e] == ']')
		for (k = 0; load_rate[k]; k++) {
			w = strlen(load_rate[k]);
			if (e + 1 >= s + w && !memcmp(m + e + 1 - w, load_rate[k], w))
				return 1;
		}
	return 0;
}

static int eval_bar(const char *m, size_t s);

int srv_progress_line(struct srv_progress *p, const char *m, size_t n,
		      const struct ol_time *t, uint64_t lineno)
{
	const char *s = memchr(m, '/', n);
	int64_t done = -1, total = -1, d, tot;
	int tr, trainer = 0, ev = 0;
	double mem;

	for (; s; s = memchr(s + 1, '/', n - (size_t)(s + 1 - m)))
		if (s > m && bar_at(m, n, (size_t)(s - m), &d, &tot, &tr) &&
		    !sampler_bar(m, (size_t)(s - m)) && !load_bar(m, n, (size_t)(s - m))) {
			done = d;    /* the last bar of the line: carriage returns glue them */
			total = tot;
			trainer = tr;
			ev = eval_bar(m, (size_t)(s - m));
		} else if (s > m && step_report_at(m, n, (size_t)(s - m), &d, &tot)) {
			done = d;
			total = tot;
			trainer = 1;
			ev = 0;
		}
	if (done < 0)
		return 0;
	p->last_eval = ev;
	/* a loop that finished, or an evaluation's loop (eval_bar): it ran,
	 * but it is no training progress. A finished bar still says a
	 * model's load above it is over (round 18, w-phase19: diffusers'
	 * "Loading pipeline components" bar, then the denoising loop's
	 * "100%| 50/50", then a failure in the VAE's decode: not the load) */
	if (done == total || ev)
		return 1;
	p->step = done;
	p->total = total;
	p->trainer = trainer;
	if (p->first_step < 0)
		p->first_step = done;
	p->bars++;
	p->line = lineno;
	if (t && (t->utc_ns != OL_NULL || t->boot_ns != OL_NULL))
		p->t = *t;
	if ((mem = max_mem(m, n)) >= 0) {
		if (!p->mem_n++)
			p->mem_first = mem;
		p->mem_last = mem;
	}
	return 1;
}

/* The number after label at m[0..n) (digits, a point, digits); -1 when
 * the label is absent or no digit follows it. */
static double number_after(const char *m, size_t n, const char *label)
{
	const char *p = mem_find(m, n, label), *end = m + n;
	double v = 0, scale = 0;
	int k = 0;

	if (!p)
		return -1;
	for (p += strlen(label); p < end && k < 2 * MAX_DIGITS; p++, k++) {
		if (dig(*p)) {
			v = v * 10 + (*p - '0');
			scale *= 10;
		} else if (*p == '.' && scale == 0) {
			scale = 1;
		} else {
			break;
		}
	}
	if (k == 0 || !dig(p[-1]))
		return -1;
	return scale > 1 ? v / scale : v;
}

/* DeepSpeed's "step=2000, skipped=1999, lr=...": the step before the
 * ", skipped=" at m[0..n); -1 when the line is not that. */
static int64_t ds_step(const char *m, size_t n)
{
	const char *s = mem_find(m, n, ", skipped=");
	size_t b, a;

	if (!s || s - m < 6)
		return -1;
	b = (size_t)(s - m);
	for (a = b; a > 0 && dig(m[a - 1]) && b - a <= MAX_DIGITS; a--)
		;
	if (a == b || b - a > MAX_DIGITS || a < 5 || memcmp(m + a - 5, "step=", 5) ||
	    (a > 5 && (isalnum((unsigned char)m[a - 6]) || m[a - 6] == '_')))
		return -1;   /* "global_step=" is another logger's */
	return number(m, a, b);
}

int srv_progress_logged(struct srv_progress *p, const char *m, size_t n,
			const struct ol_time *t, uint64_t lineno)
{
	int64_t step = ds_step(m, n);
	double epoch;

	if (step >= 0) {
		p->ds_step = step;
		if (p->ds_first < 0)
			p->ds_first = step;
		p->ds_n++;
	} else if (mem_find(m, n, "'learning_rate': ") &&
		   (epoch = number_after(m, n, "'epoch': ")) >= 0) {
		p->epoch = epoch;   /* a training dict (an evaluation's has no lr) */
		p->logged++;
	} else {
		return 0;
	}
	if (!p->bars) {         /* a bar's line stays the event's place */
		p->line = lineno;
		if (t && (t->utc_ns != OL_NULL || t->boot_ns != OL_NULL))
			p->t = *t;
	}
	return 1;
}

/* The event's data: the bar's steps when any, else DeepSpeed's; NULL
 * when out of memory. */
static json_t *progress_data(const struct srv_progress *p, char *summary, size_t n)
{
	json_t *d = json_object();
	int64_t step = p->bars ? p->step : p->ds_step;

	if (!d)
		return NULL;
	if (p->bars || p->ds_n) {
		json_object_set_new(d, "steps_done", json_integer((json_int_t)step));
		json_object_set_new(d, "steps_total", p->bars ? json_integer((json_int_t)p->total)
						       : json_null());
		json_object_set_new(d, "first_step", json_integer((json_int_t)(p->bars ? p->first_step
										       : p->ds_first)));
		json_object_set_new(d, "bars", json_integer((json_int_t)p->bars));
		json_object_set_new(d, "step_source", json_string(p->bars ? "bar" : "deepspeed"));
		/* the bar's own program says the loop trains (its training
		 * tab's progress, not any loop's bar) */
		if (p->bars && p->trainer)
			json_object_set_new(d, "loop", json_string("training"));
	}
	if (p->bars)
		snprintf(summary, n, "a training loop at step %lld of %lld", (long long)p->step,
			 (long long)p->total);
	else if (p->ds_n)
		snprintf(summary, n, "a training loop at step %lld (DeepSpeed's step line)",
			 (long long)p->ds_step);
	else
		snprintf(summary, n, "a training loop at epoch %.2f (%llu logged steps)", p->epoch,
			 (unsigned long long)p->logged);
	if (p->logged) {
		json_object_set_new(d, "epoch", json_real(p->epoch));
		json_object_set_new(d, "logged_steps", json_integer((json_int_t)p->logged));
	}
	return d;
}

int srv_progress_finish(struct srv_progress *p, struct sink *s, int keep)
{
	struct ol_event ev = { .kind = "train_progress", .t = p->t, .pid = OL_NULL,
			       .bytes = OL_NULL, .line = p->line };
	char summary[160];
	int64_t id;

	if (!keep || !(p->bars || p->ds_n || p->logged))
		return 0;
	ev.summary = summary;
	if (!(ev.data = progress_data(p, summary, sizeof(summary))))
		return -1;
	if (p->mem_n) {
		json_object_set_new(ev.data, "max_mem_first_mb", json_real(p->mem_first));
		json_object_set_new(ev.data, "max_mem_last_mb", json_real(p->mem_last));
		json_object_set_new(ev.data, "max_mem_samples", json_integer((json_int_t)p->mem_n));
	}
	id = sink_event(s, &ev);
	json_decref(ev.data);
	return id < 0 ? -1 : 1;
}

/* Round 16 (w-phase17). tqdm draws "{desc}: NN%|{bar}| n/total [...]"
 * (tqdm/std.py format_meter: l_bar = desc + ": " + percentage + "%|"),
 * the desc the program's own words. A bar drawn after a model's load
 * finished ("Loading checkpoint shards: 100%| 4/4", then a bar of the
 * program's loop) is that loop's: the set-16 row (one nohup log of a
 * fine-tuned model's test pipeline: the shards loaded, then
 * "处理测试数据:  10%|█ | 5/50", processing the test data, each item's
 * generation failing with the OOM) was placed in the load by the last
 * stage line. Words of an evaluation or a test, of a training; English
 * where a word starts (in any case), the Chinese ones
 * anywhere (no word boundaries in CJK text). */
static const char *const bar_eval_words[] = {
	"eval",
	"valid",
	"test",
	"\xe6\xb5\x8b\xe8\xaf\x95",   /* 测试 test */
	"\xe8\xaf\x84\xe4\xbc\xb0",   /* 评估 evaluate */
	"\xe9\xaa\x8c\xe8\xaf\x81",   /* 验证 validate */
	NULL
};

static const char *const bar_train_words[] = {
	"train",
	"\xe8\xae\xad\xe7\xbb\x83",   /* 训练 train */
	NULL
};

static int desc_says(const char *d, size_t n, const char *const *words)
{
	const char *p;
	size_t k;

	for (k = 0; words[k]; k++)
		for (p = d; (p = mem_find_ci(p, n - (size_t)(p - d), words[k])); p++)
			/* an ASCII word begins a word; a CJK one anywhere */
			if ((unsigned char)words[k][0] >= 0x80 || p == d ||
			    !isalpha((unsigned char)p[-1]))
				return 1;
	return 0;
}

enum oom_phase srv_progress_bar_phase(const char *m, size_t n)
{
	const char *bar = mem_find(m, n, "%|"), *a;
	int ev, tr;

	if (!bar)
		return OOM_PHASE_UNKNOWN;
	/* the description: back from the percentage to the bar's start (a
	 * carriage return, a ']' closing the bar before it), 200 bytes */
	for (a = bar; a > m && bar - a < 200 && a[-1] != '\r' && a[-1] != '\n' && a[-1] != ']'; a--)
		;
	ev = desc_says(a, (size_t)(bar - a), bar_eval_words);
	tr = desc_says(a, (size_t)(bar - a), bar_train_words);
	if (ev == tr)
		return OOM_PHASE_UNKNOWN;
	return ev ? OOM_PHASE_EVAL : OOM_PHASE_TRAINING_STEP;
}

/* Round 17 (w-phase18): 1 when the bar whose '/' is at m[s] counts an
 * evaluation's batches, not a training loop's: the words before it on
 * its line (back to a carriage return, at most 200 bytes) say an
 * evaluation's and not a training's (bar_eval_words, bar_train_words).
 * The MetricLogger that the DETR/DeiT family and LAVIS share prints
 * "{header}  [{i}/{n}]  eta: ..." every few batches of each loop, the
 * header the loop's own: "Train: data epoch: [0]" in LAVIS's training
 * loop, "Evaluation" in its evaluation (salesforce/LAVIS
 * lavis/tasks/base_task.py@9625d41 _train_inner_loop, evaluation;
 * MetricLogger.log_every in lavis/common/logger.py). Such a bar is no
 * training progress: a failure under it is no training step's (set 17's
 * SeViLA evaluation log, read as a training loop in round 16). So are
 * MMEngine's val and test loops' lines. */
static int eval_bar(const char *m, size_t s)
{
	size_t a = s;

	while (a > 0 && s - a < 200 && m[a - 1] != '\r' && m[a - 1] != '\n')
		a--;
	/* MMEngine's loops name their mode in the line's head,
	 * "Epoch(val) [1][ 50/500]", "Iter(test) [50/500]" (mmengine
	 * mmengine/runner/log_processor.py@b06234c get_log_after_iter) */
	if (mem_find(m + a, s - a, "(val) ") || mem_find(m + a, s - a, "(test) "))
		return 1;
	return desc_says(m + a, s - a, bar_eval_words) &&
	       !desc_says(m + a, s - a, bar_train_words);
}
