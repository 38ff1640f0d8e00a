from gpt4all import GPT4All
import os

model_path = "models/nous-hermes-llama2-13b.ggmlv3.q2_K.bin"

def init():

    llm = GPT4All(os.getcwd() + "\\" + model_path.replace("/","\\"), device="gpu")

    with llm.chat_session():
        while True:
            query = input("What is your question? ")
            answer = llm.generate(query)
            print(answer)

if __name__ == "__main__":
    init()
