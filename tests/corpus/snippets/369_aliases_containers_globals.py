# after: learners' notebooks (one tensor under two names, tensors kept in a dict and a tuple, a global read inside a function, grads zeroed the old way)
# expect: match
import torch
from torch.autograd import Variable
w = v = torch.randn(3, requires_grad=True)
store = {"w": w, "pair": (w, torch.ones(3))}
scale = 2.0
def loss_fn():
    return (store["pair"][0] * scale + store["pair"][1]).pow(2).sum()
for step in range(3):
    loss = loss_fn()
    loss.backward()
    with torch.no_grad():
        v -= 0.01 * w.grad
    print(step, loss.item(), v.grad)
    w.grad.data.zero_()
old = Variable(torch.ones(2), requires_grad=True)
out = (old * 3).sum()
out.backward()
print(old.grad, old.data, w is store["w"])
