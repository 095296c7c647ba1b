# after: PyTorch word_language_model example (tie_weights: decoder.weight = encoder.weight)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(1)


class TiedModel(nn.Module):
    def __init__(self, ntoken, ninp):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.decoder = nn.Linear(ninp, ntoken)
        self.decoder.weight = self.encoder.weight

    def forward(self, tokens):
        return self.decoder(torch.tanh(self.encoder(tokens)))


model = TiedModel(ntoken=6, ninp=4)
print(model.decoder.weight is model.encoder.weight)
print(len(list(model.parameters())))
tokens = torch.tensor([1, 3, 5])
targets = torch.tensor([3, 5, 0])
loss = nn.functional.cross_entropy(model(tokens), targets)
loss.backward()
print(model.encoder.weight.grad)
