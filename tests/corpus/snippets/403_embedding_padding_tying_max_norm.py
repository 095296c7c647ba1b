# after: PyTorch docs nn.Embedding (padding_idx keeps row 0 at zero and out of the gradient, max_norm renormalising the rows it looks up in place, from_pretrained(freeze=False)) and the word_language_model weight tying (decoder.weight = encoder.weight: one tensor, gradients from both uses)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(19)
emb = nn.Embedding(10, 3, padding_idx=0)
print(emb.weight[0])
idx = torch.tensor([[0, 2, 0, 5], [4, 3, 2, 9]])
out = emb(idx)
out.sum().backward()
print(emb.weight.grad)

capped = nn.Embedding(6, 4, max_norm=1.0)
with torch.no_grad():
    capped.weight.mul_(3)
before = capped.weight.detach().norm(dim=1)
looked = capped(torch.tensor([1, 3, 3]))
after = capped.weight.detach().norm(dim=1)
print(before, after)
looked.sum().backward()
print(capped.weight.grad)

pretrained = torch.tensor([[1.0, 2.3, 3.0], [4.0, 5.1, 6.3]])
fe = nn.Embedding.from_pretrained(pretrained, freeze=False)
v = fe(torch.LongTensor([1, 1, 0]))
(v ** 2).sum().backward()
print(v, fe.weight.grad, fe.weight.requires_grad)

class TiedLM(nn.Module):
    def __init__(self, ntoken=12, ninp=5):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.GRU(ninp, ninp)
        self.decoder = nn.Linear(ninp, ntoken)
        self.decoder.weight = self.encoder.weight

    def forward(self, input):
        output, hidden = self.rnn(self.encoder(input))
        return self.decoder(output)

lm = TiedLM()
print(lm.decoder.weight is lm.encoder.weight, len(list(lm.parameters())))
src = torch.tensor([[1, 4], [2, 5], [3, 6]])
logits = lm(src)
loss = nn.functional.cross_entropy(logits.view(-1, 12), torch.tensor([2, 5, 3, 6, 7, 8]))
loss.backward()
print(loss, lm.encoder.weight.grad.abs().sum(), lm.decoder.bias.grad)
