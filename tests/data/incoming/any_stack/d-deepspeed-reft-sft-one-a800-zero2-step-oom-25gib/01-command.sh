bash exps/paper_exps/SFT/gsm8k.sh
