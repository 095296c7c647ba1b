# after: learners writing Raschka's calc_loss_batch without the flatten (torch.nn.functional.cross_entropy(logits, target_batch) on (batch, tokens, vocab) logits: "Expected target size [2, 10], got [2, 4]")
# expect: explained class-target-shape
# mentions: logits.flatten(0, 1) | target_batch.flatten()
import torch
import torch.nn as nn

torch.manual_seed(0)
vocab_size = 10
model = nn.Sequential(nn.Embedding(vocab_size, 8), nn.Linear(8, vocab_size))
input_batch = torch.randint(0, vocab_size, (2, 4))
target_batch = torch.randint(0, vocab_size, (2, 4))


def calc_loss_batch(input_batch, target_batch, model):
    logits = model(input_batch)
    loss = torch.nn.functional.cross_entropy(logits, target_batch)
    return loss


loss = calc_loss_batch(input_batch, target_batch, model)
loss.backward()
