lmdeploy serve api_server /Qwen2.5-32B-Instruct-int4 ---session-len 100 --quant-policy 4
