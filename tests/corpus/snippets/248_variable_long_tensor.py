# after: PyTorch 0.3 era tutorial: Variable(torch.LongTensor(...), requires_grad=True)
# expect: explained integer-requires-grad
# mentions: `counts` | torch.FloatTensor([3, 1, 2])
import torch
from torch.autograd import Variable

counts = Variable(torch.LongTensor([3, 1, 2]), requires_grad=True)
total = (counts * 2).sum()
total.backward()
