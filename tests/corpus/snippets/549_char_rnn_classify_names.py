# after: PyTorch "NLP From Scratch: Classifying Names with a Character-Level RNN" (all_letters = string.ascii_letters-style alphabet, letterToTensor / lineToTensor one-hot, class RNN with i2h and h2o on torch.cat((input, hidden), 1) and LogSoftmax, initHidden, NLLLoss, train() adding p.data.add_(p.grad.data, alpha=-learning_rate), categoryFromOutput with topk, randomTrainingExample with random.choice)
# expect: match
import random

import torch
import torch.nn as nn

random.seed(0)
torch.manual_seed(0)
all_letters = "abcdefghijklmnopqrstuvwxyz'"
n_letters = len(all_letters)
category_lines = {
    "English": ["smith", "jones", "brown"],
    "French": ["dubois", "lefevre", "moreau"],
    "Italian": ["rossi", "russo", "ferrari"],
}
all_categories = list(category_lines)
n_categories = len(all_categories)


def letterToIndex(letter):
    return all_letters.find(letter)


def lineToTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li, letter in enumerate(line):
        tensor[li][0][letterToIndex(letter)] = 1
    return tensor


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(RNN, self).__init__()
        self.hidden_size = hidden_size
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.h2o = nn.Linear(input_size + hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, input, hidden):
        combined = torch.cat((input, hidden), 1)
        hidden = self.i2h(combined)
        output = self.h2o(combined)
        output = self.softmax(output)
        return output, hidden

    def initHidden(self):
        return torch.zeros(1, self.hidden_size)


n_hidden = 16
rnn = RNN(n_letters, n_hidden, n_categories)
criterion = nn.NLLLoss()
learning_rate = 0.005


def categoryFromOutput(output):
    top_n, top_i = output.topk(1)
    category_i = top_i[0].item()
    return all_categories[category_i], category_i


def randomTrainingExample():
    category = random.choice(all_categories)
    line = random.choice(category_lines[category])
    category_tensor = torch.tensor([all_categories.index(category)], dtype=torch.long)
    return category, line, category_tensor, lineToTensor(line)


def train(category_tensor, line_tensor):
    hidden = rnn.initHidden()
    rnn.zero_grad()
    for i in range(line_tensor.size()[0]):
        output, hidden = rnn(line_tensor[i], hidden)
    loss = criterion(output, category_tensor)
    loss.backward()
    for p in rnn.parameters():
        p.data.add_(p.grad.data, alpha=-learning_rate)
    return output, loss.item()


current_loss = 0
for iter in range(1, 9):
    category, line, category_tensor, line_tensor = randomTrainingExample()
    output, loss = train(category_tensor, line_tensor)
    current_loss += loss
    guess, guess_i = categoryFromOutput(output)
    correct = "✓" if guess == category else "✗ (%s)" % category
    print("%d %.4f %s / %s %s" % (iter, loss, line, guess, correct))
print(current_loss / 8)
with torch.no_grad():
    hidden = rnn.initHidden()
    line_tensor = lineToTensor("rossi")
    for i in range(line_tensor.size()[0]):
        output, hidden = rnn(line_tensor[i], hidden)
    topv, topi = output.topk(2, 1, True)
print(topv, [all_categories[i] for i in topi[0].tolist()])
