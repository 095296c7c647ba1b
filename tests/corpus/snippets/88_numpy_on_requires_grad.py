# after: Stack Overflow "Can't call numpy() on Tensor that requires grad" (plotting a model's predictions after training)
# expect: explained numpy-requires-grad
# mentions: model(torch.from_numpy(x_train)).detach().numpy()
import numpy as np
import torch

x_train = np.array([[3.3], [4.4], [5.5], [6.71], [6.93]], dtype=np.float32)
y_train = np.array([[1.7], [2.76], [2.09], [3.19], [1.694]], dtype=np.float32)

model = torch.nn.Linear(1, 1)
criterion = torch.nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.001)

for epoch in range(10):
    inputs = torch.from_numpy(x_train)
    targets = torch.from_numpy(y_train)
    outputs = model(inputs)
    loss = criterion(outputs, targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

predicted = model(torch.from_numpy(x_train)).numpy()
print(predicted)
