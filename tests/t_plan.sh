#!/bin/sh
# t_plan.sh OOMLENS SRCDIR -- `oomlens plan` against the engines' own
# start-up figures (issue 28): tests/plan_accuracy.py over the real cases
# of tests/data/real/plan/MANIFEST.tsv (given the printed KV memory, or
# weights and non-KV memory, within 2 %; from the config, card and
# settings alone, weights within 5 % and KV tokens within 15 % in 80 %),
# then a configuration that does not fit: plan must say so (exit 1) with a
# knob and value, and plan run again with that value must fit (exit 0).
set -u
bin=$1
src=$2
command -v python3 > /dev/null || { echo "SKIP: python3 is missing"; exit 77; }
fail=0
python3 "$src/tests/plan_accuracy.py" "$bin" "$src/tests/data/real/plan/MANIFEST.tsv" || fail=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Llama-3.1-8B (meta-llama/Llama-3.1-8B-Instruct config.json) at its full
# 131072 context on a 24 GB card: the KV cache cannot hold one request
cat > "$tmp/config.json" <<'JSON'
{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
 "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32,
 "num_key_value_heads": 8, "vocab_size": 128256, "tie_word_embeddings": false,
 "torch_dtype": "bfloat16", "max_position_embeddings": 131072}
JSON
for extra in "--gpu rtx3090" "--gpu l4 --max-model-len 32768" "--gpu t4"; do
	# shellcheck disable=SC2086
	"$bin" plan --model "$tmp/config.json" $extra --format json > "$tmp/out.json"
	rc=$?
	knob=$(python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["advice"]; print(a["knob"] or "" if a else "")' "$tmp/out.json")
	value=$(python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["advice"]; print(a["value"] or "" if a else "")' "$tmp/out.json")
	if [ "$rc" != 1 ] || [ -z "$knob" ]; then
		echo "FAIL: plan $extra: expected 'does not fit' (exit 1) with a knob, got exit $rc, knob '$knob'"
		fail=1
		continue
	fi
	case $knob in
	gpu_memory_utilization) opt=--gpu-memory-utilization ;;
	max_model_len) opt=--max-model-len ;;
	tensor_parallel_size) opt=--tp ;;
	*) echo "FAIL: plan $extra: unknown knob $knob"; fail=1; continue ;;
	esac
	# shellcheck disable=SC2086
	if "$bin" plan --model "$tmp/config.json" $extra "$opt" "$value" > /dev/null; then
		echo "ok   plan $extra: does not fit; $knob=$value fits"
	else
		echo "FAIL: plan $extra $opt $value: the advised value does not fit"
		fail=1
	fi
done
exit $fail
