#!/bin/sh
# t_tf1_defined_at.sh -- TensorFlow 1.x's definition frames name no phase
# (round 16, w-phase17; server_log.c def_frames). Under a graph-mode op's
# failure TF 1.x prints "Caused by op 'NAME', defined at:" and the frames
# that BUILT the op (OpError.__str__, tensorflow/python/framework/
# errors_impl.py@v1.12.0: traceback.format_list(self._op.traceback)),
# then "ResourceExhaustedError (see above for traceback): ..." again.
# Those frames ran when the graph was built (a model's constructor, its
# load), not when the step failed: the restated failure below them must
# keep the phase its own op name gives ("gradients/": training_step,
# phase_rows_training.inc), never load_weights from the build frames;
# and the first row, whose "[[Node: ...]]" line follows its traceback's
# exception line outside the piece, waits for that line (server_log.c
# emit: a tf_bfc failure is held as PyTorch's is).
# The excerpt is CONSTRUCTED in that printed shape (no real paste with
# misleading build frames was in the tuning set); the frame names follow
# the real thread suriyadeepan/practical_seq2seq#28 (an __init__ that
# builds the graph). Args: oomlens binary, source dir.
set -u
OOMLENS=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/tf1.log" <<'LOG'
Traceback (most recent call last):
  File "/usr/lib/python3.5/site-packages/tensorflow/python/client/session.py", line 1323, in _do_call
    return fn(*args)
tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[2048,4096]
	 [[Node: gradients/decoder/MatMul_grad/MatMul_1 = MatMul[T=DT_FLOAT]()]]

Caused by op 'gradients/decoder/MatMul_grad/MatMul_1', defined at:
  File "bot.py", line 30, in <module>
    model = seq2seq_wrapper.Seq2Seq(num_layers=3)
  File "/home/u/seq2seq_wrapper.py", line 79, in __init__
    self.load_model()
  File "/home/u/seq2seq_wrapper.py", line 75, in load_model
    self.train_op = tf.train.AdamOptimizer(learning_rate=lr).minimize(self.loss)

ResourceExhaustedError (see above for traceback): OOM when allocating tensor with shape[2048,4096]
	 [[Node: gradients/decoder/MatMul_grad/MatMul_1 = MatMul[T=DT_FLOAT]()]]
LOG
"$OOMLENS" analyze -q --db "$tmp/i.db" --format json -o "$tmp/r.json" "$tmp/tf1.log" 2>"$tmp/err" ||
	{ echo "analyze failed"; cat "$tmp/err"; exit 1; }
python3 - "$tmp/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ph = [o.get("phase") for o in (r.get("summary") or {}).get("ooms") or []]
if not ph or any(p != "training_step" for p in ph):
    print("phases %s: want training_step for each (the op's gradients/ scope)" % ph)
    sys.exit(1)
print("TF1: the op's scope places both rows, the definition frames none: %s" % ph)
PY
