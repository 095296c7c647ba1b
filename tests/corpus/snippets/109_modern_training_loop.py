# after: modern training-loop templates (AdamW + OneCycleLR, zero_grad(set_to_none=True), clip_grad_norm_, inference_mode, kaiming init over self.modules(), f-string logging)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F
import random
import numpy as np
torch.manual_seed(42); np.random.seed(42); random.seed(42)
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 4), nn.LeakyReLU(0.1), nn.Dropout(0.2), nn.Linear(4, 1))
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.kaiming_normal_(m.weight, mode='fan_out', nonlinearity='relu')
                nn.init.constant_(m.bias, 0)
    def forward(self, x):
        return self.net(x)
model = Model()
opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=1e-2)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=10)
X = torch.randn(32, 2); Y = (X[:, :1] > 0).float()
history = {"loss": []}
for step in range(10):
    model.train()
    logits = model(X)
    loss = F.binary_cross_entropy_with_logits(logits, Y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    opt.step(); sched.step()
    history["loss"].append(loss.item())
    print(f"step {step:02d} | loss {loss.item():.4f} | lr {sched.get_last_lr()[0]:.4f}")
model.eval()
with torch.inference_mode():
    acc = ((model(X) > 0).float() == Y).float().mean()
print(f"accuracy: {acc:.2%}", min(history["loss"]))
print(model.state_dict().keys())
print({k: v.shape for k, v in model.named_parameters()})
