# after: PyTorch forum "How to initialize weights of only Linear layers" (for m in model.modules(): if type(m) == nn.Linear / m.__class__.__name__.find('Conv'), the DCGAN weights_init)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(0)


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif classname.find("BatchNorm") != -1:
        nn.init.normal_(m.weight.data, 1.0, 0.02)
        nn.init.constant_(m.bias.data, 0)


netD = nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(4 * 4 * 4, 1))
netD.apply(weights_init)
for m in netD.modules():
    if type(m) == nn.Linear:
        nn.init.xavier_uniform_(m.weight)
        m.bias.data.fill_(0.01)
    print(type(m).__name__, m.__class__.__name__ == type(m).__name__)
out = netD(torch.randn(2, 1, 6, 6))
out.mean().backward()
print(out.detach(), netD[1].weight.grad)
