# after: "The Annotated Transformer" (Harvard NLP) LabelSmoothing module (self.criterion = nn.KLDivLoss(reduction="sum"), true_dist = x.data.clone(), true_dist.fill_(self.smoothing / (self.size - 2)), true_dist.scatter_(1, target.data.unsqueeze(1), self.confidence), true_dist[:, self.padding_idx] = 0, mask = torch.nonzero(target.data == self.padding_idx), true_dist.index_fill_(0, mask.squeeze(), 0.0), self.criterion(x, true_dist.clone().detach())) and its SimpleLossCompute with a generator's log_softmax, divided by the number of tokens)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(10)


class LabelSmoothing(nn.Module):
    "Implement label smoothing."

    def __init__(self, size, padding_idx, smoothing=0.0):
        super(LabelSmoothing, self).__init__()
        self.criterion = nn.KLDivLoss(reduction="sum")
        self.padding_idx = padding_idx
        self.confidence = 1.0 - smoothing
        self.smoothing = smoothing
        self.size = size
        self.true_dist = None

    def forward(self, x, target):
        assert x.size(1) == self.size
        true_dist = x.data.clone()
        true_dist.fill_(self.smoothing / (self.size - 2))
        true_dist.scatter_(1, target.data.unsqueeze(1), self.confidence)
        true_dist[:, self.padding_idx] = 0
        mask = torch.nonzero(target.data == self.padding_idx)
        if mask.dim() > 0:
            true_dist.index_fill_(0, mask.squeeze(), 0.0)
        self.true_dist = true_dist
        return self.criterion(x, true_dist.clone().detach())


class Generator(nn.Module):
    "Define standard linear + softmax generation step."

    def __init__(self, d_model, vocab):
        super(Generator, self).__init__()
        self.proj = nn.Linear(d_model, vocab)

    def forward(self, x):
        return torch.log_softmax(self.proj(x), dim=-1)


class SimpleLossCompute:
    "A simple loss compute and train function."

    def __init__(self, generator, criterion):
        self.generator = generator
        self.criterion = criterion

    def __call__(self, x, y, norm):
        x = self.generator(x)
        sloss = (
            self.criterion(x.contiguous().view(-1, x.size(-1)), y.contiguous().view(-1)) / norm
        )
        return sloss.data * norm, sloss


crit = LabelSmoothing(5, 0, 0.4)
predict = torch.FloatTensor(
    [[0, 0.2, 0.7, 0.1, 0], [0, 0.2, 0.7, 0.1, 0], [0, 0.2, 0.7, 0.1, 0], [0, 0.2, 0.7, 0.1, 0], [0, 0.2, 0.7, 0.1, 0]]
)
crit(x=predict.log(), target=torch.LongTensor([2, 1, 0, 3, 3]))
print(crit.true_dist)

generator = Generator(8, 6)
out = torch.randn(2, 4, 8, requires_grad=True)
tgt_y = torch.tensor([[3, 1, 4, 0], [5, 2, 0, 0]])
ntokens = (tgt_y != 0).data.sum()
loss_compute = SimpleLossCompute(generator, LabelSmoothing(6, padding_idx=0, smoothing=0.1))
loss, loss_node = loss_compute(out, tgt_y, ntokens)
loss_node.backward()
print(loss, ntokens, loss_node)
