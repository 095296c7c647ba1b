# after: PyTorch forum "stack expects each tensor to be equal size, but got [5] at entry 0 and [3] at entry 1" (token id lists of different lengths batched with torch.stack instead of pad_sequence)
# expect: explained stack-sizes
# mentions: token_tensors | pad_sequence(token_tensors, batch_first=True)
import torch

sentences = [[4, 8, 15, 16, 23], [42, 7, 9], [1, 2, 3, 4, 5]]
token_tensors = [torch.tensor(s) for s in sentences]
batch = torch.stack(token_tensors)
print(batch.shape)
