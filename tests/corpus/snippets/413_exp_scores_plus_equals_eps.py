# after: PyTorch forum "output 0 of ExpBackward0 is at version 1; expected version 0 instead" (a softmax written by hand, with an epsilon added in place to the exponentials before normalising)
# expect: explained saved-tensor-modified
# mentions: `exps` | line 8 | exps = exps + 1e-8` on line 8
import torch

logits = torch.randn(4, 3, requires_grad=True)
exps = torch.exp(logits)
exps += 1e-8
probs = exps / exps.sum(dim=1, keepdim=True)
loss = -probs[:, 0].log().mean()
loss.backward()
