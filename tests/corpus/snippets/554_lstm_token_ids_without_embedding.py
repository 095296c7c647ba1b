# after: PyTorch forum "RuntimeError: input must have the type torch.float32, got type torch.int64" (token ids from a tokenizer fed straight into nn.LSTM, the nn.Embedding layer forgotten)
# expect: explained dtype-mismatch
# mentions: token_ids | nn.Embedding
import torch
import torch.nn as nn

torch.manual_seed(5)
vocab_size, hidden = 20, 8
lstm = nn.LSTM(input_size=1, hidden_size=hidden, batch_first=True)
classifier = nn.Linear(hidden, 2)
token_ids = torch.randint(0, vocab_size, (3, 5, 1))
output, (h_n, c_n) = lstm(token_ids)
logits = classifier(h_n[-1])
print(logits)
