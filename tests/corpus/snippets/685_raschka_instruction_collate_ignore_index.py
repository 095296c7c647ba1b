# after: Raschka "Build a Large Language Model (From Scratch)" ch. 7.3 (custom_collate_draft_1/2 and custom_collate_fn padding with pad_token_id=50256, new_item + [pad_token_id], inputs_tensor = torch.tensor(padded[:-1]), targets shifted by one, mask = targets == pad_token_id with indices = torch.nonzero(mask).squeeze() and targets[indices[1:]] = ignore_index, allowed_max_length truncation, torch.stack(inputs_lst)), then the book's demonstration that cross_entropy with the default ignore_index=-100 skips those targets (logits_2 vs targets_3)
# expect: match
import torch

inputs_1 = [0, 1, 2, 3, 4]
inputs_2 = [5, 6]
inputs_3 = [7, 8, 9]
batch = (inputs_1, inputs_2, inputs_3)


def custom_collate_draft_1(batch, pad_token_id=50256, device="cpu"):
    batch_max_length = max(len(item) + 1 for item in batch)
    inputs_lst = []
    for item in batch:
        new_item = item.copy()
        new_item += [pad_token_id]
        padded = new_item + [pad_token_id] * (batch_max_length - len(new_item))
        inputs = torch.tensor(padded[:-1])
        inputs_lst.append(inputs)
    inputs_tensor = torch.stack(inputs_lst).to(device)
    return inputs_tensor


print(custom_collate_draft_1(batch))


def custom_collate_fn(batch, pad_token_id=50256, ignore_index=-100, allowed_max_length=None, device="cpu"):
    batch_max_length = max(len(item) + 1 for item in batch)
    inputs_lst, targets_lst = [], []
    for item in batch:
        new_item = item.copy()
        new_item += [pad_token_id]
        padded = new_item + [pad_token_id] * (batch_max_length - len(new_item))
        inputs = torch.tensor(padded[:-1])
        targets = torch.tensor(padded[1:])
        mask = targets == pad_token_id
        indices = torch.nonzero(mask).squeeze()
        if indices.numel() > 1:
            targets[indices[1:]] = ignore_index
        if allowed_max_length is not None:
            inputs = inputs[:allowed_max_length]
            targets = targets[:allowed_max_length]
        inputs_lst.append(inputs)
        targets_lst.append(targets)
    inputs_tensor = torch.stack(inputs_lst).to(device)
    targets_tensor = torch.stack(targets_lst).to(device)
    return inputs_tensor, targets_tensor


inputs, targets = custom_collate_fn(batch)
print(inputs)
print(targets)
print(custom_collate_fn(batch, allowed_max_length=3))

logits_1 = torch.tensor([[-1.0, 1.0], [-0.5, 1.5]], requires_grad=True)
targets_1 = torch.tensor([0, 1])
loss_1 = torch.nn.functional.cross_entropy(logits_1, targets_1)
print(loss_1)
logits_2 = torch.tensor([[-1.0, 1.0], [-0.5, 1.5], [-0.5, 1.5]], requires_grad=True)
targets_2 = torch.tensor([0, 1, 1])
loss_2 = torch.nn.functional.cross_entropy(logits_2, targets_2)
print(loss_2)
targets_3 = torch.tensor([0, 1, -100])
loss_3 = torch.nn.functional.cross_entropy(logits_2, targets_3)
print(loss_3)
print("loss_1 == loss_3:", loss_1 == loss_3)
loss_3.backward()
print(logits_2.grad)

torch.manual_seed(0)
vocab = 12
emb = torch.nn.Embedding(vocab, 4)
head = torch.nn.Linear(4, vocab)
small_inputs, small_targets = custom_collate_fn(batch, pad_token_id=11)
logits = head(emb(small_inputs))
loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), small_targets.flatten())
loss.backward()
print(loss.item(), emb.weight.grad[11], head.bias.grad)
