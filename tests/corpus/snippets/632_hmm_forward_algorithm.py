# after: "HMMs in PyTorch" posts (unnormalised transition_logits, emission_logits and start_logits as nn.Parameter, normalised with log_softmax, the forward algorithm in log space log_alpha = emission[:, x_t] + torch.logsumexp(log_alpha.unsqueeze(1) + log_A, dim=0) over the time steps, the sequence log-likelihood maximised with Adam, and the brute-force sum over every state path with itertools.product checked equal)
# expect: match
import itertools

import torch
import torch.nn as nn

torch.manual_seed(18)


class HMM(nn.Module):
    def __init__(self, num_states, num_symbols):
        super().__init__()
        self.start_logits = nn.Parameter(torch.randn(num_states))
        self.transition_logits = nn.Parameter(torch.randn(num_states, num_states))
        self.emission_logits = nn.Parameter(torch.randn(num_states, num_symbols))

    def log_params(self):
        log_pi = torch.log_softmax(self.start_logits, dim=0)
        log_A = torch.log_softmax(self.transition_logits, dim=1)
        log_B = torch.log_softmax(self.emission_logits, dim=1)
        return log_pi, log_A, log_B

    def forward(self, x):
        log_pi, log_A, log_B = self.log_params()
        log_alpha = log_pi + log_B[:, x[0]]
        for t in range(1, len(x)):
            log_alpha = log_B[:, x[t]] + torch.logsumexp(log_alpha.unsqueeze(1) + log_A, dim=0)
        return torch.logsumexp(log_alpha, dim=0)

    def brute_force(self, x):
        log_pi, log_A, log_B = self.log_params()
        total = []
        for path in itertools.product(range(log_A.shape[0]), repeat=len(x)):
            lp = log_pi[path[0]] + log_B[path[0], x[0]]
            for t in range(1, len(x)):
                lp = lp + log_A[path[t - 1], path[t]] + log_B[path[t], x[t]]
            total.append(lp)
        return torch.logsumexp(torch.stack(total), dim=0)


hmm = HMM(num_states=3, num_symbols=4)
sequences = [torch.tensor([0, 1, 1, 3]), torch.tensor([2, 2, 0]), torch.tensor([3, 1, 0, 0, 2])]
optimizer = torch.optim.Adam(hmm.parameters(), lr=0.1)
for epoch in range(5):
    optimizer.zero_grad()
    nll = -sum(hmm(seq) for seq in sequences)
    nll.backward()
    optimizer.step()
    print(epoch, round(nll.item(), 5))
seq = sequences[0]
print(hmm(seq), torch.allclose(hmm(seq), hmm.brute_force(seq)))
