# after: PyTorch forum "IndexError: The shape of the mask [32] at index 0 does not match the shape of the indexed tensor [31, 10]" (a mask of valid labels made from the full batch, applied to the logits of the batch minus its last step)
# expect: explained mask-shape
# mentions: `valid` has shape [8] | `logits` has shape [7, 5] | print(valid.shape, logits.shape)
import torch
import torch.nn as nn

torch.manual_seed(33)
tokens = torch.randint(0, 5, (8,))
model = nn.Linear(5, 5)
inputs = nn.functional.one_hot(tokens[:-1], 5).float()
targets = tokens[1:]
logits = model(inputs)
valid = tokens != 0
loss = nn.functional.cross_entropy(logits[valid], targets[valid[1:]])
