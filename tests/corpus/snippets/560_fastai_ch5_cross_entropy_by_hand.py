# after: fast.ai book chapter 5 "Image Classification", cross-entropy loss worked by hand (acts = torch.randn((6,2))*2, acts.sigmoid(), (acts[:,0]-acts[:,1]).sigmoid(), sm_acts = torch.softmax(acts, dim=1), targ = tensor([0,1,0,1,1,0]), idx = range(6), sm_acts[idx, targ], F.nll_loss(sm_acts, targ, reduction='none'), log_softmax, nn.CrossEntropyLoss(reduction='none'), and the gradient of the loss with respect to the activations)
# expect: refused
# mentions: torch.random | torch.manual_seed(n)
import torch
import torch.nn.functional as F
from torch import nn, tensor

torch.random.manual_seed(42)
acts = torch.randn((6, 2)) * 2
print(acts)
print(acts.sigmoid())
print((acts[:, 0] - acts[:, 1]).sigmoid())
sm_acts = torch.softmax(acts, dim=1)
print(sm_acts)
targ = tensor([0, 1, 0, 1, 1, 0])
idx = range(6)
print(sm_acts[idx, targ])
print(-sm_acts[idx, targ])
print(F.nll_loss(sm_acts, targ, reduction="none"))


def log_softmax(x):
    return x - x.exp().sum(-1, keepdim=True).log()


print(log_softmax(acts))
print(torch.log_softmax(acts, dim=1))
loss_func = nn.CrossEntropyLoss()
print(loss_func(acts, targ))
print(F.cross_entropy(acts, targ))
print(nn.CrossEntropyLoss(reduction="none")(acts, targ))

acts.requires_grad_()
loss = F.cross_entropy(acts, targ)
loss.backward()
print(acts.grad)
print((torch.softmax(acts, 1) - F.one_hot(targ, 2)) / 6)
