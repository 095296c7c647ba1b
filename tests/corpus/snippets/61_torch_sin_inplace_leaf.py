# after: Q&A about in-place torch functions on a leaf (torch.sin_)
# expect: explained leaf-inplace
import torch

a = torch.tensor([0.5, 1.0], requires_grad=True)
torch.sin_(a)
