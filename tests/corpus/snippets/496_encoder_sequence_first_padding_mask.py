# after: older encoder examples with the default batch_first=False (inputs shaped (seq, batch, feature), embeddings transposed, src_key_padding_mask still (batch, seq)), a classifier on the first position, evaluated with torch.no_grad
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(3)
vocab, d_model = 50, 16
embedding = nn.Embedding(vocab, d_model)
encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(d_model, 4, 32), num_layers=2, enable_nested_tensor=False)
classifier = nn.Linear(d_model, 2)
for m in (embedding, encoder, classifier):
    m.eval()

tokens = torch.tensor([[4, 8, 15, 16, 0], [23, 42, 0, 0, 0]])
src = embedding(tokens).transpose(0, 1)
with torch.no_grad():
    memory = encoder(src, src_key_padding_mask=tokens == 0)
    logits = classifier(memory[0])
print(memory.shape)
print(memory[:, 1])
print(logits, logits.argmax(dim=1))
