# after: PyTorch "NLP From Scratch: Translation with a Sequence to Sequence Network" / chatbot tutorial encoders (nn.GRU with an initial hidden state, pack_sequence of unsorted sequences, the final hidden state of each sequence equal to the last valid output step, GRUCell unrolled by hand for comparison)
# expect: match
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_sequence, pad_packed_sequence

torch.manual_seed(16)
gru = nn.GRU(input_size=3, hidden_size=4, batch_first=True)
seqs = [torch.randn(4, 3), torch.randn(2, 3), torch.randn(3, 3)]
packed = pack_sequence(seqs, enforce_sorted=False)
h0 = torch.zeros(1, 3, 4, requires_grad=True)
out_packed, h_n = gru(packed, h0)
out, lens = pad_packed_sequence(out_packed, batch_first=True)
print(lens)
for i, L in enumerate(lens):
    print(torch.allclose(out[i, L - 1], h_n[0, i]))
loss = h_n.pow(2).sum() + out.sum()
loss.backward()
print(h0.grad)
print(gru.weight_ih_l0.grad.sum(), gru.bias_hh_l0.grad)

cell = nn.GRUCell(3, 4)
with torch.no_grad():
    cell.weight_ih.copy_(gru.weight_ih_l0)
    cell.weight_hh.copy_(gru.weight_hh_l0)
    cell.bias_ih.copy_(gru.bias_ih_l0)
    cell.bias_hh.copy_(gru.bias_hh_l0)
h = torch.zeros(1, 4)
for step in seqs[0]:
    h = cell(step.unsqueeze(0), h)
print(torch.allclose(h, h_n[0, 0:1], atol=1e-6))
