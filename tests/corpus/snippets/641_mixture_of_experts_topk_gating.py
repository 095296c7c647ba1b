# after: "Mixture of Experts from scratch" posts (a noisy top-k router: logits = self.route(x), noise_logits = self.noise(x), noisy = logits + torch.randn_like(logits) * F.softplus(noise_logits), top_k_logits, indices = noisy.topk(k, dim=-1), sparse_logits = torch.full_like(noisy, float('-inf')).scatter(-1, indices, top_k_logits), router_output = F.softmax(sparse_logits, dim=-1); experts as an nn.ModuleList, each token sent to its experts with a boolean mask (indices == i).any(dim=-1), the weighted outputs summed into final_output[expert_mask] += weighted_output.squeeze(1); a load-balancing auxiliary loss)
# expect: match
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(26)


class Expert(nn.Module):
    def __init__(self, n_embed):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_embed, 4 * n_embed), nn.ReLU(), nn.Linear(4 * n_embed, n_embed))

    def forward(self, x):
        return self.net(x)


class NoisyTopkRouter(nn.Module):
    def __init__(self, n_embed, num_experts, top_k):
        super().__init__()
        self.top_k = top_k
        self.topkroute_linear = nn.Linear(n_embed, num_experts)
        self.noise_linear = nn.Linear(n_embed, num_experts)

    def forward(self, mh_output):
        logits = self.topkroute_linear(mh_output)
        noise_logits = self.noise_linear(mh_output)
        noise = torch.randn_like(logits) * F.softplus(noise_logits)
        noisy_logits = logits + noise
        top_k_logits, indices = noisy_logits.topk(self.top_k, dim=-1)
        zeros = torch.full_like(noisy_logits, float("-inf"))
        sparse_logits = zeros.scatter(-1, indices, top_k_logits)
        router_output = F.softmax(sparse_logits, dim=-1)
        return router_output, indices


class SparseMoE(nn.Module):
    def __init__(self, n_embed, num_experts, top_k):
        super(SparseMoE, self).__init__()
        self.router = NoisyTopkRouter(n_embed, num_experts, top_k)
        self.experts = nn.ModuleList([Expert(n_embed) for _ in range(num_experts)])
        self.top_k = top_k

    def forward(self, x):
        gating_output, indices = self.router(x)
        final_output = torch.zeros_like(x)
        flat_x = x.view(-1, x.size(-1))
        flat_gating_output = gating_output.view(-1, gating_output.size(-1))
        for i, expert in enumerate(self.experts):
            expert_mask = (indices == i).any(dim=-1)
            flat_mask = expert_mask.view(-1)
            if flat_mask.any():
                expert_input = flat_x[flat_mask]
                expert_output = expert(expert_input)
                gating_scores = flat_gating_output[flat_mask, i].unsqueeze(1)
                weighted_output = expert_output * gating_scores
                final_output[expert_mask] += weighted_output.squeeze(1)
        return final_output, gating_output


moe = SparseMoE(n_embed=8, num_experts=4, top_k=2)
x = torch.randn(2, 5, 8)
opt = torch.optim.AdamW(moe.parameters(), lr=1e-3)
for step in range(3):
    out, gates = moe(x)
    importance = gates.sum(dim=(0, 1))
    aux_loss = (importance.std() / importance.mean()) ** 2
    loss = out.pow(2).mean() + 0.01 * aux_loss
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 6), (gates > 0).sum(-1).unique())
print(moe.experts[0].net[0].weight.grad is None, moe.router.noise_linear.weight.grad.shape)
