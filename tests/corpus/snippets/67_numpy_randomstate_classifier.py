# after: scikit-style classroom demos: numpy RandomState data, xavier init via apply, clip_grad_norm_, train/eval, accuracy
# expect: match
import torch
import torch.nn as nn
import numpy as np
import time
torch.manual_seed(0)
X = torch.from_numpy(np.random.RandomState(0).randn(30, 4).astype(np.float32))
y = torch.randint(0, 3, (30,))
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Dropout(0.1), nn.Linear(16, 3))
def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight)
        m.bias.data.fill_(0.01)
model.apply(init_weights)
loss_fn = nn.CrossEntropyLoss()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
start = time.time()
model.train()
for epoch in range(30):
    logits = model(X)
    loss = loss_fn(logits, y)
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    opt.step()
model.eval()
with torch.no_grad():
    acc = (model(X).argmax(dim=1) == y).float().mean()
elapsed = time.time() - start
print(f"loss={loss.item():.4f} acc={acc.item():.2f}")
