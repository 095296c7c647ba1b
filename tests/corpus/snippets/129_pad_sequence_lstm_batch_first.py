# after: Stack Overflow "How to use pack_padded_sequence with an LSTM" (pad_sequence, pack_sequence, PackedSequence, batch_first=True)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(0)
seqs = [torch.randn(4, 2), torch.randn(2, 2), torch.randn(3, 2)]
lengths = [len(s) for s in seqs]
padded = torch.nn.utils.rnn.pad_sequence(seqs, batch_first=True)
lstm = nn.LSTM(2, 3, batch_first=True)
packed = torch.nn.utils.rnn.pack_padded_sequence(
    padded, lengths, batch_first=True, enforce_sorted=False
)
print(isinstance(packed, torch.nn.utils.rnn.PackedSequence), packed.batch_sizes)
out, (h, c) = lstm(packed)
unpacked, out_lengths = torch.nn.utils.rnn.pad_packed_sequence(out, batch_first=True)
again = torch.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=False)
out2, _ = lstm(again)
print(torch.equal(out2.data, out.data), out_lengths)
loss = unpacked.pow(2).sum() + h.sum()
