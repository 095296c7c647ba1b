# after: the "Automatic Mixed Precision" recipe run on a CPU (with torch.autocast(device_type="cpu", dtype=torch.bfloat16): around the forward and the loss, the output's dtype printed, loss.backward() outside the block, the parameters' grads in float32, an SGD step)
# expect: refused
# mentions: torch.autocast
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.CrossEntropyLoss()
data = torch.randn(6, 8)
target = torch.randint(0, 4, (6,))
for epoch in range(3):
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        output = model(data)
        loss = loss_fn(output, target)
    print(output.dtype, loss.dtype)
    loss.backward()
    print(model[0].weight.grad.dtype)
    optimizer.step()
    optimizer.zero_grad()
    print(epoch, loss.item())
