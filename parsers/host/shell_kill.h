/*
 * shell_kill.h -- a shell's report that the job it ran was killed by
 * SIGKILL, as it lands under a program's last output in a pasted log.
 *
 * The forms read (real pastes: gensyn-ai/rl-swarm #59 and #50, vectorch-
 * ai/ScaleLLM #38, danijar/dreamerv3 #203; the words are strsignal(SIGKILL):
 * glibc's "Killed", its zh_CN translation "已杀死", macOS libc's
 * "Killed: 9"):
 *   bash, a script   "./run.sh: line 142: 33551 Killed: 9     python -m x ..."
 *                    (the script's "NAME: line N: " prefix, the pid right-
 *                    aligned, the signal's name, the command), anywhere in a
 *                    line: a progress bar without its newline may precede it
 *   bash, jobs       "[1]+  Killed                  python train.py"
 *   zsh              "zsh: killed     python train.py"
 *   alone            a line that is only "Killed", "Killed: 9" or "已杀死"
 *                    (an interactive shell's foreground job, dash, sh)
 * And a launcher's report of a worker it started dying of signal 9 (real
 * paste: CASIA-LMC-Lab/AnomalyGPT #43, tests/data/incoming/any_stack;
 * the sources are cited in shell_kill.c):
 *   deepspeed        "[ERROR] [launch.py:320:sigkill_handler] [...] exits
 *                    with return code = -9"
 *   torchrun         "traceback : Signal 9 (SIGKILL) received by PID 1234"
 *   a Go launcher    "...: llama runner process has terminated: signal: killed"
 *                    (os/exec's ExitError: Ollama's runner, an operator's
 *                    exec; "exit status 137" when a shell in between
 *                    reported its child's SIGKILL; readers18, ollama #18396
 *                    in tests/data/incoming/any_stack)
 *   PyTorch          "RuntimeError: DataLoader worker (pid 1234) is killed by
 *                    signal: Killed." (torch/csrc/DataLoader.cpp@v1.7.1; real
 *                    paste: neuralmagic/sparseml #152, tests/data/real/any_stack)
 *                    -- a worker's own SIGKILL; other signals are not read
 * A line where "killed" is a word in prose ("Killed process N", "killed
 * the old server", a script's pkill) is none of these and is not read.
 *
 * Event: process_crash (docs/json.md) with signal SIGKILL, killer unknown:
 * a SIGKILL is what the kernel's OOM killer, a cgroup's limit or macOS
 * jetsam send, but also kill -9 and a scheduler; the excerpt does not say
 * which, so no OOM event is made and the summary says so. Untimed.
 */
#ifndef OOMLENS_SHELL_KILL_H
#define OOMLENS_SHELL_KILL_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"
#include "lib/vocab.h"

/* How sure (0..100) that head holds a shell's SIGKILL report: 30 (a
 * line log, so the program's own output above it is read by the other
 * line logs too, and any of them claims the file first). */
int shell_kill_sniff(const unsigned char *head, size_t n);

/* Read in into s: the events sent, or -1 when the sink failed. */
int shell_kill_parse(struct input *in, struct sink *s);

/* The phase a line of the program's own output names (OOM_PHASE_UNKNOWN
 * none): the phase table's stage lines, parsers/serving's
 * memfail_phase_line(), which this layer may not include. */
typedef enum oom_phase (*shell_kill_stage_fn)(const char *line, size_t n);

/* shell_kill_parse(), and each event's data "phase" and "phase_line":
 * the last stage stage() named within 16 lines above the report (stage
 * NULL: none kept). */
int shell_kill_parse_staged(struct input *in, struct sink *s, shell_kill_stage_fn stage);

#endif
