from ctranslate2 import Translator
import GPUtil
translators = []
for i in range(10):
    print(GPUtil.getGPUs()[0].memoryUsed)
    translator = Translator("model1", device="cuda", device_index=0)
    translators.append(translator)
    translator.translate_batch([["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"]]*32)
    translator.unload_model(to_cpu=True)
