# after: speech-recognition tutorials with CTC (a small bidirectional GRU acoustic model over (batch, time, features), F.log_softmax(..., dim=2) transposed to (T, N, C), nn.CTCLoss(blank=0, zero_infinity=True) with padded targets, input_lengths and target_lengths, greedy decoding that collapses repeats and drops blanks)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(12)


class SpeechModel(nn.Module):
    def __init__(self, n_feats, n_hidden, n_class):
        super().__init__()
        self.rnn = nn.GRU(n_feats, n_hidden, batch_first=True, bidirectional=True)
        self.classifier = nn.Linear(n_hidden * 2, n_class)

    def forward(self, x):
        x, _ = self.rnn(x)
        return self.classifier(x)


n_class = 5
model = SpeechModel(6, 8, n_class)
criterion = nn.CTCLoss(blank=0, zero_infinity=True)
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-3)
spectrograms = torch.randn(3, 12, 6)
labels = torch.tensor([[1, 2, 3, 0], [2, 2, 4, 1], [3, 1, 0, 0]])
input_lengths = torch.tensor([12, 10, 12])
label_lengths = torch.tensor([3, 4, 2])
for step in range(4):
    optimizer.zero_grad()
    output = model(spectrograms)
    output = F.log_softmax(output, dim=2)
    output = output.transpose(0, 1)
    loss = criterion(output, labels, input_lengths, label_lengths)
    loss.backward()
    optimizer.step()
    print(step, loss.item())


def greedy_decode(output, blank_label=0):
    arg_maxes = torch.argmax(output, dim=2)
    decodes = []
    for args in arg_maxes:
        decode = []
        for j, index in enumerate(args):
            if index != blank_label:
                if j != 0 and index == args[j - 1]:
                    continue
                decode.append(index.item())
        decodes.append(decode)
    return decodes


with torch.no_grad():
    print(greedy_decode(model(spectrograms)))
per_item = nn.CTCLoss(reduction="none")(output.detach(), labels, input_lengths, label_lengths)
print(per_item)
