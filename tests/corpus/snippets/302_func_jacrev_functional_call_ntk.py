# after: PyTorch tutorial "Neural Tangent Kernels" (functional_call with a params dict, vmap(jacrev) per example, einsum of the flattened jacobians)
# expect: match
import torch
import torch.nn as nn
from torch.func import functional_call, vmap, jacrev

torch.manual_seed(0)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 5)
        self.fc2 = nn.Linear(5, 2)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))

net = Net()
params = {k: v.detach() for k, v in net.named_parameters()}

def fnet_single(params, x):
    return functional_call(net, params, (x.unsqueeze(0),)).squeeze(0)

def empirical_ntk_jacobian_contraction(fnet_single, params, x1, x2):
    jac1 = vmap(jacrev(fnet_single), (None, 0))(params, x1)
    jac1 = jac1.values()
    jac1 = [j.flatten(2) for j in jac1]
    jac2 = vmap(jacrev(fnet_single), (None, 0))(params, x2)
    jac2 = jac2.values()
    jac2 = [j.flatten(2) for j in jac2]
    result = torch.stack([torch.einsum('Naf,Mbf->NMab', j1, j2) for j1, j2 in zip(jac1, jac2)])
    return result.sum(0)

x_train = torch.randn(4, 3)
x_test = torch.randn(2, 3)
ntk = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test)
print(ntk.shape)
print(ntk[0, 0])
