import requests

ids =  [37]* 13647
try1 = ids
try2 = [ids + [3], ids + [4], ids + [5]]

response = requests.post(
    "http://localhost:30000/generate",
    json={
        "input_ids" : try1,
        "sampling_params": {
            "temperature": 0,
            "max_new_tokens": 32,
        },
    },
)

response = requests.post(
    "http://localhost:30000/generate",
    json={
        "input_ids" : try2,
        "sampling_params": {
            "temperature": 0,
            "max_new_tokens": 32,
        },
    },
)
