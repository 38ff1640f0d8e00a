/*
 * frame_words.h -- the lowest tier of a traceback's phase: what the
 * names of the program's own frames say (train, evaluate, generate,
 * load_model...), read only where no row of phase_table.c names the
 * phase. See frame_words.c for the vocabulary and the counts it was
 * learnt from.
 */
#ifndef OOMLENS_FRAME_WORDS_H
#define OOMLENS_FRAME_WORDS_H

#include <stddef.h>

#include "lib/engine_vocab.h"

/* The flag (beside phase_table.h's PM_* bits, in memfail_frames_phase's
 * *flags) of a phase placed by the frames' names alone. */
#define PM_WORDS 512u

/* The phase that the Python frames of traceback text t[0..n) name by
 * their words: of the program's own frames (not site-packages,
 * dist-packages, the interpreter's library or a known library's
 * package), the innermost whose source line's words, else whose
 * function name, say one thing (training_step, eval, serving or
 * load_weights; a constructor its caller builds as a model, too);
 * inference inside an outer frame that says eval or
 * training is that frame's. reversed: 1 when the traceback was printed
 * newest call first. Unknown when no frame says anything, or the
 * innermost that speaks says two things (such a frame is passed over). Reads at most FRAME_WORDS_MAX
 * program frames (the innermost); allocates nothing. Where t holds no
 * Python frame, a Rust backtrace's numbered frames (innermost first;
 * the runtime's crates std, core, alloc... passed over) are read the
 * same way. */
enum oom_phase frame_words_phase(const char *t, size_t n, int reversed);

#define FRAME_WORDS_MAX 64

/* 1 when line s[0..n) is a frame of a Rust backtrace ("   5:
 * candle_core::safetensors::MmapedSafetensors::load": a number, ": ",
 * a symbol with a path), whichever crate's. */
int frame_words_rust_line(const char *s, size_t n);

#endif
