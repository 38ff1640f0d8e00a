if response.status_code == HTTPStatus.OK:
    output = ""
    for line in response.iter_lines(
        chunk_size=8192, decode_unicode=False, delimiter=b"\0"
    ):
        if line:
            json_data = line.decode("utf-8")
            try:
                # 解析 JSON 对象
                json_obj = json.loads(json_data)
                # 处理接收到的 JSON 对象
                output += json_obj["text"]
            except json.JSONDecodeError:
                continue
    print("[Output]\n", output)
else:
    print("Error:", response.status_code, response.reason)`
