# after: PyTorch 0.3 evaluation loops with Variable(..., volatile=True) and loss.data[0]-era idioms updated to .item()
# expect: match warns volatile-removed
# mentions: volatile=True | with torch.no_grad():
import torch
import torch.nn as nn
from torch.autograd import Variable

model = nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 2))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

inputs = Variable(torch.randn(8, 3))
targets = Variable(torch.LongTensor([0, 1, 1, 0, 1, 0, 0, 1]))
for epoch in range(3):
    optimizer.zero_grad()
    outputs = model(inputs)
    loss = criterion(outputs, targets)
    loss.backward()
    optimizer.step()
    print('epoch %d loss %.4f' % (epoch, loss.item()))

model.eval()
test_inputs = Variable(torch.randn(4, 3), volatile=True)
test_outputs = model(test_inputs)
print(test_outputs.requires_grad)
print(test_outputs.max(1)[1])
