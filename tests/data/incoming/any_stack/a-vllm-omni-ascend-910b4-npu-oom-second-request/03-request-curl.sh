export FIRST_FRAME=/data1/1.png   
time curl -sS --max-time 3600 -X POST "127.0.0.1:8000" \
  -F 'prompt=A man stands beside a yellow car at night. The car drives away; he follows it with his eyes.' \
  -F 'fps=24' \
  -F 'num_inference_steps=50' \
  -F 'flow_shift=12' \
  -F 'seed=2101' \
  -F 'extra_params={"task":"fl2va","duration":5.0,"audio_flow_shift":3.0}' \
  -F "input_reference=@${FIRST_FRAME};type=image/png" \
  -o /tmp/h3_fl2va.mp4
