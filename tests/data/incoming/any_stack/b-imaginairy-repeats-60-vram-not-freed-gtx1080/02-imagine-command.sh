imagine "xxxxxxx " \
        --repeats 60 \
        --steps 50 \
        --prompt-strength 7.5 \
        --sampler-type k_lms \
        --width 512 \
        --height 512 \
        --fix-faces \
        --upscale
