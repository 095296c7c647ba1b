# after: PyTorch tutorial "Model ensembling" (torch.func.stack_module_state, functional_call, vmap)
# expect: match
import copy
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import stack_module_state, functional_call, vmap

torch.manual_seed(0)


class SimpleMLP(nn.Module):
    def __init__(self):
        super(SimpleMLP, self).__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        return self.fc2(x)


num_models = 3
data = torch.randn(5, 8)
models = [SimpleMLP() for _ in range(num_models)]
minibatch = data
predictions_diff_minibatch_loop = [model(minibatch) for model in models]
params, buffers = stack_module_state(models)
base_model = copy.deepcopy(models[0])
base_model = base_model.to('meta')


def fmodel(params, buffers, x):
    return functional_call(base_model, (params, buffers), (x,))


predictions2_vmap = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)
assert torch.allclose(predictions2_vmap, torch.stack(predictions_diff_minibatch_loop), atol=1e-3, rtol=1e-5)
print(predictions2_vmap.shape)
