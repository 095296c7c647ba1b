# after: PyTorch tutorial "How to save memory by fusing the optimizer step into the backward pass" (register_post_accumulate_grad_hook)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
optimizer_dict = {p: torch.optim.Adam([p], foreach=False) for p in model.parameters()}


def optimizer_hook(parameter) -> None:
    optimizer_dict[parameter].step()
    optimizer_dict[parameter].zero_grad()


for p in model.parameters():
    p.register_post_accumulate_grad_hook(optimizer_hook)


def train(model):
    fake_image = torch.rand(2, 4)
    loss = model.forward(fake_image)
    loss.sum().backward()


for _ in range(3):
    train(model)
print(model[0].weight[0])
print(model[2].bias, model[2].bias.grad)
