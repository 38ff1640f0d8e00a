python translate.py -model models/baseline_step_150000.pt -src test.en -output test.en.pred -gpu 0
