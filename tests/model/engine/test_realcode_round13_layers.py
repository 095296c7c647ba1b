"""Real code, round 13: layers and losses handed what they cannot read, explained in the
learner's names (attributes, dict and list items, aliases) on fresh programs, at plain
torch's error line, with fixes that run in plain torch: ``torch.cat``/``torch.stack`` of
tensors that do not fit, an embedding one row short or given float ids, an RNN built for
another ``input_size`` or given a starting state of the wrong shape, heads that do not
divide the width, a CNN that shrinks its input away, a NumPy array or list given to a
layer, ``BCELoss`` of raw scores, ``CrossEntropyLoss`` of one score per example."""

from __future__ import annotations

import pytest

from tests.corpus.checks import explained, runs_plain


def test_cat_names_the_members_as_the_line_wrote_them() -> None:
    code = (
        "import torch\nimport torch.nn as nn\n"
        "class Fusion(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.audio = nn.Linear(5, 3)\n"
        "        self.video = nn.Linear(7, 3)\n"
        "    def forward(self, a, v):\n"
        "        return torch.cat((self.audio(a), self.video(v)), 1)\n"
        "net = Fusion()\n"
        "out = net(torch.randn(6, 5), torch.randn(2, 7))\n"
    )
    text = explained(code, "cat-sizes")
    assert "along dimension 1" in text
    assert "`self.video(v)` (tensor 1 of the list) has size 2" in text
    assert "`self.audio(a)` (tensor 0 of the list) has size 6" in text
    assert "print(self.audio(a).shape, self.video(v).shape)" in text


def test_cat_of_a_list_held_in_a_name_and_of_different_ranks() -> None:
    code = (
        "import torch\n"
        "left, right = torch.randn(4, 3), torch.randn(4, 5)\n"
        "parts = [left, right]\n"
        "both = torch.cat(parts, dim=0)\n"
    )
    text = explained(code, "cat-sizes")
    assert "Tensor 1 of `parts` has size 5" in text and "tensor 0 of `parts` has size 3" in text
    assert "print([t.shape for t in parts])" in text
    runs_plain(code.replace("dim=0", "dim=1"))  # joined along the dimension that differs
    code = "import torch\nx = torch.randn(4, 3)\nbias = torch.randn(3)\nz = torch.cat([x, bias])\n"
    text = explained(code, "cat-sizes")
    assert "one has 2 and another 1" in text and "print(x.shape, bias.shape)" in text
    runs_plain(code.replace("[x, bias]", "[x, bias.unsqueeze(0)]"))


def test_stack_of_sequences_of_different_lengths_offers_padding_that_runs() -> None:
    code = (
        "import torch\n"
        "docs = {'ids': [torch.tensor([4, 8, 15]), torch.tensor([16, 23]), torch.tensor([42])]}\n"
        "seqs = docs['ids']\n"
        "batch = torch.stack(seqs)\n"
    )
    text = explained(code, "stack-sizes")
    assert "tensor 0 of `seqs` has shape [3] and tensor 1 of `seqs` has shape [2]" in text
    fix = "torch.nn.utils.rnn.pad_sequence(seqs, batch_first=True)"
    assert fix in text
    runs_plain(code.replace("torch.stack(seqs)", fix) + "print(batch)\n")
    assert (
        "pad_sequence"
        not in explained(
            "import torch\n"
            "class VAE:\n"
            "    def __init__(self):\n"
            "        self.mu = torch.zeros(2, 4)\n"
            "    def stats(self, logvar):\n"
            "        return torch.stack([self.mu, logvar])\n"
            "s = VAE().stats(torch.zeros(2, 3))\n",
            "stack-sizes",
        ).split("same shape;")[0]
    )


def test_embedding_index_names_the_table_and_its_rows() -> None:
    code = (
        "import torch\nimport torch.nn as nn\n"
        "vocab = ['<pad>', 'the', 'cat', 'sat']\n"
        "class Encoder(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.emb = nn.Embedding(len(vocab), 16)\n"
        "    def forward(self, tokens):\n"
        "        return self.emb(tokens).mean(1)\n"
        "enc = Encoder()\n"
        "h = enc(torch.tensor([[1, 2, 4]]))\n"
    )
    text = explained(code, "embedding-index")
    assert "`self.emb` is an embedding table of `len(vocab)` rows" in text
    assert "`tokens` holds an id of `len(vocab)` or more" in text
    assert "print(tokens.max(), self.emb.num_embeddings)" in text
    runs_plain(code.replace("nn.Embedding(len(vocab), 16)", "nn.Embedding(len(vocab) + 1, 16)"))
    code = (
        "import torch\nimport torch.nn as nn\n"
        "table = nn.Embedding(50, 4)\n"
        "ids = torch.tensor([3, 50])\n"
        "alias = ids\n"
        "vecs = table(alias)\n"
    )
    text = explained(code, "embedding-index")
    assert "of 50 rows" in text and "0 to 49" in text and "`alias` holds an id of 50" in text


def test_index_out_of_range_outside_an_embedding_says_only_what_is_true() -> None:
    code = "import torch\ntable = torch.randn(5, 2)\nrows = torch.index_select(table, 0, torch.tensor([0, 5]))\n"
    text = explained(code, "embedding-index")
    assert "0 to n-1" in text and "-n" not in text  # index_select refuses negatives too
    runs_plain(code.replace("[0, 5]", "[0, 4]"))


def test_rnn_input_size_names_the_layer_and_what_arrived() -> None:
    code = (
        "import torch\nimport torch.nn as nn\n"
        "class Tagger(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.rnn = nn.GRU(8, 32, batch_first=True)\n"
        "    def forward(self, x):\n"
        "        out, h = self.rnn(x)\n"
        "        return out\n"
        "y = Tagger()(torch.randn(2, 6, 5))\n"
    )
    text = explained(code, "rnn-input-size")
    assert "`self.rnn` was built with `input_size=8`" in text
    assert "`x` has 5 there" in text and "nn.GRU(input_size=5, ...)" in text
    runs_plain(code.replace("nn.GRU(8,", "nn.GRU(input_size=5, hidden_size="))
    code = (
        "import torch\nimport torch.nn as nn\n"
        "n_feats = 3\n"
        "rnn = nn.RNN(input_size=n_feats, hidden_size=4)\n"
        "seqs = [torch.randn(10, 2, 4)]\n"
        "out, h = rnn(seqs[0])\n"
    )
    text = explained(code, "rnn-input-size")
    assert "`rnn` was built with `input_size=3`" in text and "`seqs[0]` has 4 there" in text


def test_heads_that_do_not_divide_the_width_in_the_learners_names() -> None:
    code = "import torch.nn as nn\nlayer = nn.TransformerEncoderLayer(d_model=30, nhead=4)\n"
    text = explained(code, "heads-divide")
    assert "`d_model` = 30" in text and "`nhead` = 4" in text and "30 / 4 = 7.500" in text
    assert "(1, 2, 3, 5, 6, 10, 15, 30)" in text and "width `embed_dim`" not in text
    runs_plain(code.replace("nhead=4", "nhead=5"))
    code = (
        "import torch.nn as nn\n"
        "class Cfg:\n"
        "    dim = 12\n"
        "    heads = 5\n"
        "cfg = Cfg()\n"
        "attn = nn.MultiheadAttention(cfg.dim, cfg.heads)\n"
    )
    text = explained(code, "heads-divide")
    assert "`embed_dim` (`cfg.dim`)" in text and "`num_heads` (`cfg.heads`)" in text


@pytest.mark.parametrize(
    ("code", "words", "fixed"),
    [
        (
            "import torch\nimport torch.nn as nn\n"
            "lstm = nn.LSTM(3, 6, num_layers=2)\n"
            "x = torch.randn(5, 4, 3)\n"
            "state = (torch.zeros(1, 4, 6), torch.zeros(1, 4, 6))\n"
            "out, state = lstm(x, state)\n",
            ["`lstm`, `state` (each of its two tensors", "(2, 4, 6)", "[1, 4, 6]"],
            ("torch.zeros(1, 4, 6)", "torch.zeros(2, x.size(1), 6)"),
        ),
        (
            "import torch\nimport torch.nn as nn\n"
            "gru = nn.GRU(3, 6, batch_first=True)\n"
            "x = torch.randn(4, 5, 3)\n"
            "h = torch.zeros(4, 6)\n"
            "out, h = gru(x, h)\n",
            ["`gru`, `h`, must be 3-D too", "(2-D)", ".unsqueeze(0)"],
            ("torch.zeros(4, 6)", "torch.zeros(4, 6).unsqueeze(0)"),
        ),
    ],
)
def test_a_recurrent_layers_starting_state_of_the_wrong_shape(
    code: str, words: list[str], fixed: tuple[str, str]
) -> None:
    text = explained(code, "rnn-hidden-shape")
    for word in words:
        assert word in text, (word, text)
    runs_plain(code.replace(*fixed))


def test_float_token_ids_name_the_table_and_the_ids() -> None:
    code = (
        "import torch\nimport torch.nn as nn\n"
        "class Enc(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.emb = nn.Embedding(30, 4)\n"
        "    def forward(self, batch):\n"
        "        return self.emb(batch['ids']).sum(1)\n"
        "v = Enc()({'ids': torch.tensor([[1.0, 2.0]])})\n"
    )
    text = explained(code, "embedding-ids-dtype")
    assert "`self.emb` looks its rows up by whole-number ids" in text
    assert "`batch['ids']` holds Float numbers" in text
    runs_plain(code.replace("self.emb(batch['ids'])", "self.emb(batch['ids'].long())"))


def test_a_shrinking_cnn_names_the_model_and_its_input() -> None:
    code = (
        "import torch\nimport torch.nn as nn\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.convs = nn.Sequential(nn.Conv2d(3, 8, 5), nn.MaxPool2d(2), nn.Conv2d(8, 8, 5))\n"
        "    def forward(self, img):\n"
        "        return self.convs(img).mean()\n"
        "net = Net()\n"
        "batch = {'img': torch.randn(2, 3, 10, 10)}\n"
        "y = net(batch['img'])\n"
    )
    text = explained(code, "input-too-small")
    assert "slides a 5 x 5 kernel" in text and "only 3 x 3" in text
    assert "`img` is that small" in text
    assert "`x = img`, then `for layer in self.convs: x = layer(x)" in text
    runs_plain(code.replace("nn.Conv2d(3, 8, 5)", "nn.Conv2d(3, 8, 5, padding=2)"))
    code = "import torch\nimport torch.nn as nn\npool = nn.MaxPool2d(2)\ntiny = torch.randn(1, 4, 1, 1)\nout = pool(tiny)\n"
    text = explained(code, "input-too-small")
    assert "gets 4x1x1" in text and "would produce 4x0x0" in text and "`tiny` is that small" in text


@pytest.mark.parametrize(
    ("line", "words"),
    [
        (
            "pred = model(X)",
            ["its argument `input` got a NumPy array: `X`", "torch.from_numpy(X).float()"],
        ),
        (
            "pred = model(rows)",
            ["got a Python list: `rows`", "torch.tensor(rows, dtype=torch.float32)"],
        ),
    ],
)
def test_a_numpy_array_or_list_given_to_a_layer(line: str, words: list[str]) -> None:
    code = (
        "import numpy as np\nimport torch\nimport torch.nn as nn\n"
        "model = nn.Linear(3, 1)\n"
        "X = np.ones((5, 3), dtype=np.float32)\n"
        "rows = [[1.0, 2.0, 3.0]]\n"
        f"{line}\n"
    )
    text = explained(code, "tensor-expected")
    for word in words:
        assert word in text, (word, text)
    fixed = words[1]
    runs_plain(code.replace(line, line.replace(line.split("(")[1].rstrip(")"), fixed)))


def test_bce_of_raw_scores_offers_the_logits_loss_that_runs() -> None:
    code = (
        "import torch\nimport torch.nn.functional as F\n"
        "scores = {'raw': torch.randn(6, 1) * 4}\n"
        "targets = torch.ones(6, 1)\n"
        "loss = F.binary_cross_entropy(scores['raw'], targets)\n"
    )
    text = explained(code, "bce-probabilities")
    assert "its first argument, `scores['raw']`, must hold numbers between 0 and 1" in text
    fix = "nn.BCEWithLogitsLoss()(scores['raw'], targets)"
    assert fix in text
    runs_plain(code.replace("F.binary_cross_entropy(scores['raw'], targets)", "torch." + fix))


def test_cross_entropy_of_one_score_per_example_names_both_sides() -> None:
    code = (
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
        "head = nn.Linear(3, 1)\n"
        "answers = [torch.tensor([1, 0, 0, 1, 1])]\n"
        "loss = F.cross_entropy(head(torch.randn(5, 3)).squeeze(), answers[0])\n"
    )
    text = explained(code, "class-target-probabilities")
    assert "`answers[0]` has the same shape as `head(torch.randn(5, 3)).squeeze()`" in text
    assert "answers[0].float()" in text


def test_a_mask_of_another_length_names_mask_and_tensor() -> None:
    code = (
        "import torch\n"
        "batch = {'scores': torch.randn(6, 2), 'ok': torch.ones(5, dtype=torch.bool)}\n"
        "kept = batch['scores'][batch['ok']]\n"
    )
    text = explained(code, "mask-shape")
    assert "`batch['ok']` has shape [5] and `batch['scores']` has shape [6, 2]" in text
    assert "dimension 0" in text
    runs_plain(code.replace("torch.ones(5,", "torch.ones(6,"))


def test_dot_and_mm_name_their_operands_and_offer_what_runs() -> None:
    code = (
        "import torch\n"
        "class P:\n"
        "    def __init__(self):\n"
        "        self.w = torch.randn(4, requires_grad=True)\n"
        "p = P()\n"
        "x = torch.randn(3)\n"
        "s = p.w.dot(x)\n"
    )
    text = explained(code, "dot-sizes")
    assert "`p.w` has 4 elements and `x` 3" in text and "print(p.w.shape, x.shape)" in text
    code = (
        "import torch\n"
        "layers = [torch.randn(2, 5, requires_grad=True)]\n"
        "v = torch.randn(5)\n"
        "out = torch.mm(layers[0], v)\n"
    )
    text = explained(code, "matmul-shape")
    assert "`v` is not 2-D" in text and "`layers[0] @ v`" in text
    runs_plain(code.replace("torch.mm(layers[0], v)", "layers[0] @ v"))
    runs_plain(code.replace("torch.mm(layers[0], v)", "torch.mm(layers[0], v.unsqueeze(1))"))
