# after: "Adam vs AdamW" blog posts (the same model copied, Adam with weight_decay vs AdamW, amsgrad, state['exp_avg'] read back)
# expect: match
import copy
import torch
import torch.nn as nn

torch.manual_seed(0)
model_a = nn.Linear(4, 2)
model_b = copy.deepcopy(model_a)
opt_a = torch.optim.Adam(model_a.parameters(), lr=1e-2, weight_decay=0.1, amsgrad=True)
opt_b = torch.optim.AdamW(model_b.parameters(), lr=1e-2, weight_decay=0.1)
x = torch.randn(16, 4)
y = torch.randn(16, 2)
loss_fn = nn.MSELoss()
for epoch in range(5):
    for model, opt in ((model_a, opt_a), (model_b, opt_b)):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
    print(epoch, loss.item())
print(model_a.weight)
print(model_b.weight)
state = opt_b.state[model_b.weight]
print(state['step'], state['exp_avg'].shape, state['exp_avg_sq'].sum())
