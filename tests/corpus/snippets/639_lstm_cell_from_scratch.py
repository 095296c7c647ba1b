# after: "LSTM from scratch" posts (a NaiveLSTM with W_ii, W_hi, b_ii ... as nn.Parameter, or one fused weight with gates = x @ W + h @ U + bias split into i, f, g, o with .chunk(4, 1), c_t = f * c + i * g, h_t = o * torch.tanh(c_t), hidden_seq stacked over time), its weights copied from nn.LSTMCell (weight_ih, weight_hh, bias_ih, bias_hh in the order i, f, g, o) with torch.no_grad copy_, and the outputs and gradients compared)
# expect: match
import torch
import torch.nn as nn

torch.manual_seed(24)


class CustomLSTM(nn.Module):
    def __init__(self, input_sz, hidden_sz):
        super().__init__()
        self.input_sz = input_sz
        self.hidden_size = hidden_sz
        self.W = nn.Parameter(torch.Tensor(input_sz, hidden_sz * 4))
        self.U = nn.Parameter(torch.Tensor(hidden_sz, hidden_sz * 4))
        self.bias = nn.Parameter(torch.Tensor(hidden_sz * 4))
        self.init_weights()

    def init_weights(self):
        stdv = 1.0 / self.hidden_size**0.5
        for weight in self.parameters():
            weight.data.uniform_(-stdv, stdv)

    def forward(self, x, init_states=None):
        bs, seq_sz, _ = x.size()
        hidden_seq = []
        if init_states is None:
            h_t, c_t = (torch.zeros(bs, self.hidden_size).to(x.device), torch.zeros(bs, self.hidden_size).to(x.device))
        else:
            h_t, c_t = init_states
        HS = self.hidden_size
        for t in range(seq_sz):
            x_t = x[:, t, :]
            gates = x_t @ self.W + h_t @ self.U + self.bias
            i_t, f_t, g_t, o_t = (
                torch.sigmoid(gates[:, :HS]),
                torch.sigmoid(gates[:, HS : HS * 2]),
                torch.tanh(gates[:, HS * 2 : HS * 3]),
                torch.sigmoid(gates[:, HS * 3 :]),
            )
            c_t = f_t * c_t + i_t * g_t
            h_t = o_t * torch.tanh(c_t)
            hidden_seq.append(h_t.unsqueeze(0))
        hidden_seq = torch.cat(hidden_seq, dim=0)
        hidden_seq = hidden_seq.transpose(0, 1).contiguous()
        return hidden_seq, (h_t, c_t)


mine = CustomLSTM(3, 5)
cell = nn.LSTMCell(3, 5)
with torch.no_grad():
    cell.weight_ih.copy_(mine.W.t())
    cell.weight_hh.copy_(mine.U.t())
    cell.bias_ih.copy_(mine.bias)
    cell.bias_hh.zero_()

x = torch.randn(2, 4, 3)
hidden_seq, (h_mine, c_mine) = mine(x)
h, c = torch.zeros(2, 5), torch.zeros(2, 5)
outs = []
for t in range(x.size(1)):
    h, c = cell(x[:, t, :], (h, c))
    outs.append(h)
ref_seq = torch.stack(outs, dim=1)
print(torch.allclose(hidden_seq, ref_seq, atol=1e-6), torch.allclose(c_mine, c, atol=1e-6))
hidden_seq.pow(2).sum().backward()
ref_seq.pow(2).sum().backward()
print(torch.allclose(mine.W.grad, cell.weight_ih.grad.t(), atol=1e-5))
print(torch.allclose(mine.bias.grad, cell.bias_hh.grad, atol=1e-5), mine.U.grad.shape)
