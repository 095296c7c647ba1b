# after: "LLaMA from scratch" posts (RMSNorm with self.weight = nn.Parameter(torch.ones(dim)) and x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps), precompute_freqs_cis with torch.outer and torch.polar, apply_rotary_emb through torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2)) and torch.view_as_real(...).flatten(3), a FeedForward with SwiGLU w2(F.silu(w1(x)) * w3(x)), causal attention with F.scaled_dot_product_attention(is_causal=True), one AdamW step on a next-token loss)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(20)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def _norm(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

    def forward(self, x):
        output = self._norm(x.float()).type_as(x)
        return output * self.weight


def precompute_freqs_cis(dim, end, theta=10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device)
    freqs = torch.outer(t, freqs).float()
    return torch.polar(torch.ones_like(freqs), freqs)


def reshape_for_broadcast(freqs_cis, x):
    ndim = x.ndim
    shape = [d if i == 1 or i == ndim - 1 else 1 for i, d in enumerate(x.shape)]
    return freqs_cis.view(*shape)


def apply_rotary_emb(xq, xk, freqs_cis):
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    freqs_cis = reshape_for_broadcast(freqs_cis, xq_)
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


class Attention(nn.Module):
    def __init__(self, dim, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.head_dim = dim // n_heads
        self.wq = nn.Linear(dim, dim, bias=False)
        self.wk = nn.Linear(dim, dim, bias=False)
        self.wv = nn.Linear(dim, dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)

    def forward(self, x, freqs_cis):
        bsz, seqlen, _ = x.shape
        xq = self.wq(x).view(bsz, seqlen, self.n_heads, self.head_dim)
        xk = self.wk(x).view(bsz, seqlen, self.n_heads, self.head_dim)
        xv = self.wv(x).view(bsz, seqlen, self.n_heads, self.head_dim)
        xq, xk = apply_rotary_emb(xq, xk, freqs_cis=freqs_cis)
        out = F.scaled_dot_product_attention(
            xq.transpose(1, 2), xk.transpose(1, 2), xv.transpose(1, 2), is_causal=True
        )
        return self.wo(out.transpose(1, 2).contiguous().view(bsz, seqlen, -1))


class FeedForward(nn.Module):
    def __init__(self, dim, hidden_dim):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class Block(nn.Module):
    def __init__(self, dim, n_heads):
        super().__init__()
        self.attention = Attention(dim, n_heads)
        self.feed_forward = FeedForward(dim, 4 * dim)
        self.attention_norm = RMSNorm(dim)
        self.ffn_norm = RMSNorm(dim)

    def forward(self, x, freqs_cis):
        h = x + self.attention(self.attention_norm(x), freqs_cis)
        return h + self.feed_forward(self.ffn_norm(h))


vocab, dim, n_heads, seqlen = 11, 8, 2, 6
tok_embeddings = nn.Embedding(vocab, dim)
block = Block(dim, n_heads)
norm = RMSNorm(dim)
output = nn.Linear(dim, vocab, bias=False)
freqs_cis = precompute_freqs_cis(dim // n_heads, seqlen * 2)
params = [*tok_embeddings.parameters(), *block.parameters(), *norm.parameters(), *output.parameters()]
optimizer = torch.optim.AdamW(params, lr=1e-3, weight_decay=0.1)
tokens = torch.randint(0, vocab, (2, seqlen + 1))
inputs, targets = tokens[:, :-1], tokens[:, 1:]
h = block(tok_embeddings(inputs), freqs_cis[:seqlen])
logits = output(norm(h)).float()
loss = F.cross_entropy(logits.view(-1, vocab), targets.reshape(-1))
loss.backward()
optimizer.step()
print(loss, freqs_cis.shape, freqs_cis.dtype)
print(block.attention_norm.weight.grad)
