# after: PyTorch docs torch.func.grad examples (argnums, has_aux, nested grad)
# expect: match
import torch
from torch.func import grad

x = torch.randn([])
cos_x = grad(lambda x: torch.sin(x))(x)
assert torch.allclose(cos_x, x.cos())

neg_sin_x = grad(grad(lambda x: torch.sin(x)))(x)
assert torch.allclose(neg_sin_x, -x.sin())


def my_loss_func(y, y_pred):
    loss_per_sample = (0.5 * y_pred - y) ** 2
    loss = loss_per_sample.mean()
    return loss, (y_pred, loss_per_sample)


fn = grad(my_loss_func, argnums=(0, 1), has_aux=True)
y_true = torch.rand(4)
y_preds = torch.rand(4, requires_grad=True)
(g_y, g_pred), aux = fn(y_true, y_preds)
print(g_y)
print(g_pred)
print(aux[1])
