# after: quantum-inspired toy models (a Hermitian matrix H = A + A^H, expectation <psi|H|psi> as a real loss, torch.linalg.eigh of a real symmetric matrix)
# expect: match
import torch
torch.manual_seed(0)
A = torch.randn(3, 3, dtype=torch.cfloat)
H = A + A.conj().T
psi = torch.randn(3, dtype=torch.cfloat, requires_grad=True)
norm = torch.sqrt((psi.conj() * psi).real.sum())
phi = psi / norm
energy = (phi.conj() @ H @ phi).real
energy.backward()
print(energy, psi.grad)
S = torch.randn(3, 3)
S = (S + S.T) / 2
S.requires_grad_()
evals, evecs = torch.linalg.eigh(S)
evals.sum().backward()
print(evals, S.grad)
