import os, sys, asyncio, time


BASE  = os.getenv("OPENAI_BASE_URL", "http://127.0.0.1:30000/v1")
KEY   = os.getenv("OPENAI_API_KEY", "")
