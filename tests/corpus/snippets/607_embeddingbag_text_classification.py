# after: the PyTorch tutorial "Text classification with the torchtext library" without torchtext (a made-up vocabulary, collate_batch building text_list, label_list and offsets with torch.cumsum, TextClassificationModel with nn.EmbeddingBag(vocab_size, embed_dim, sparse=False) and init_weights using uniform_(-initrange, initrange), SGD lr=5, StepLR(1.0, gamma=0.1), clip_grad_norm_(model.parameters(), 0.1), accuracy with argmax(1))
# expect: match
import torch
from torch import nn

torch.manual_seed(0)
vocab = {
    w: i for i, w in enumerate("<unk> the a good bad movie plot actor great awful fine".split())
}
text_pipeline = lambda x: [vocab.get(token, 0) for token in x.split()]
train_iter = [
    (1, "the movie good"),
    (0, "a bad plot"),
    (1, "great actor fine movie"),
    (0, "awful"),
    (1, "good good plot"),
    (0, "the bad actor awful movie"),
]


def collate_batch(batch):
    label_list, text_list, offsets = [], [], [0]
    for _label, _text in batch:
        label_list.append(_label)
        processed_text = torch.tensor(text_pipeline(_text), dtype=torch.int64)
        text_list.append(processed_text)
        offsets.append(processed_text.size(0))
    label_list = torch.tensor(label_list, dtype=torch.int64)
    offsets = torch.tensor(offsets[:-1]).cumsum(dim=0)
    text_list = torch.cat(text_list)
    return label_list, text_list, offsets


class TextClassificationModel(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_class):
        super(TextClassificationModel, self).__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, sparse=False)
        self.fc = nn.Linear(embed_dim, num_class)
        self.init_weights()

    def init_weights(self):
        initrange = 0.5
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.fc.weight.data.uniform_(-initrange, initrange)
        self.fc.bias.data.zero_()

    def forward(self, text, offsets):
        embedded = self.embedding(text, offsets)
        return self.fc(embedded)


model = TextClassificationModel(len(vocab), 8, 2)
criterion = torch.nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=5)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.1)
for epoch in range(1, 4):
    model.train()
    total_acc, total_count = 0, 0
    for idx in range(0, len(train_iter), 3):
        label, text, offsets = collate_batch(train_iter[idx : idx + 3])
        optimizer.zero_grad()
        predicted_label = model(text, offsets)
        loss = criterion(predicted_label, label)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
        optimizer.step()
        total_acc += (predicted_label.argmax(1) == label).sum().item()
        total_count += label.size(0)
    scheduler.step()
    print(
        "| epoch {:3d} | accuracy {:8.3f} | lr {}".format(
            epoch, total_acc / total_count, scheduler.get_last_lr()
        )
    )

model.eval()
with torch.no_grad():
    text = torch.tensor(text_pipeline("a great movie"))
    print(model(text, torch.tensor([0])).argmax(1).item())
