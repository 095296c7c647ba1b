# after: PyTorch forum "Trying to backward through the graph a second time" in a hand-written RNN (the hidden state carried across iterations without .detach())
# expect: explained backward-twice
# mentions: `h` | h.detach()
import torch

torch.manual_seed(0)
W_xh = torch.randn(3, 4, requires_grad=True)
W_hh = torch.randn(4, 4, requires_grad=True)
h = torch.zeros(1, 4)
optimizer = torch.optim.SGD([W_xh, W_hh], lr=0.01)
for step in range(3):
    x = torch.randn(1, 3)
    h = torch.tanh(x @ W_xh + h @ W_hh)
    loss = h.pow(2).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
