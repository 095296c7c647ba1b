# after: PyTorch forum "How can I extract intermediate layer output" (activation = {}; get_activation(name) returning a hook that stores output.detach()) and fastai-style activation statistics (mean and std per layer per batch), a forward hook that returns a changed output, and a forward pre-hook
# expect: match
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(10, 20)
        self.act1 = nn.ReLU()
        self.fc2 = nn.Linear(20, 20)
        self.act2 = nn.ReLU()
        self.fc3 = nn.Linear(20, 2)

    def forward(self, x):
        return self.fc3(self.act2(self.fc2(self.act1(self.fc1(x)))))

torch.manual_seed(5)
model = Net()
activation = {}
def get_activation(name):
    def hook(model, input, output):
        activation[name] = output.detach()
    return hook

model.fc2.register_forward_hook(get_activation('fc2'))
x = torch.randn(8, 10)
output = model(x)
print(activation['fc2'].shape, activation['fc2'].requires_grad)

stats = {name: ([], []) for name, m in model.named_children() if isinstance(m, nn.ReLU)}
def append_stats(name):
    def hook(mod, inp, outp):
        means, stds = stats[name]
        means.append(outp.data.mean().item())
        stds.append(outp.data.std().item())
    return hook
hooks = [m.register_forward_hook(append_stats(n)) for n, m in model.named_children() if n in stats]

opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    xb = torch.randn(16, 10)
    yb = torch.randint(0, 2, (16,))
    loss = nn.functional.cross_entropy(model(xb), yb)
    opt.zero_grad()
    loss.backward()
    opt.step()
for name, (means, stds) in stats.items():
    print(name, [round(m, 5) for m in means], [round(s, 5) for s in stds])
for h in hooks:
    h.remove()

def double_output(module, inp, out):
    return out * 2
def shift_input(module, args):
    return (args[0] + 1.0,)
h1 = model.fc3.register_forward_hook(double_output)
h2 = model.fc1.register_forward_pre_hook(shift_input)
y = model(x)
y.sum().backward()
print(y)
print(model.fc1.bias.grad)
h1.remove(); h2.remove()
print(torch.equal(model(x - 0.0), model(x)))
