python run_hyvideo.py
