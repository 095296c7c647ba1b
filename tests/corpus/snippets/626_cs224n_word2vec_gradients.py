# after: CS224n assignment 2 word2vec.py (naiveSoftmaxLossAndGradient with y_hat = softmax(outsideVectors @ centerWordVec), loss = -log y_hat[outsideWordIdx], gradCenterVec = U^T (y_hat - y), gradOutsideVecs = outer(y_hat - y, v_c); negSamplingLossAndGradient with sigmoid(u_o . v_c) and K negative samples; skipgram summing over the window), the hand-derived gradients checked against autograd on the same vectors)
# expect: match
import torch

torch.manual_seed(13)
vocab_size, dim = 6, 4
centerWordVectors = torch.randn(vocab_size, dim, dtype=torch.float64, requires_grad=True)
outsideVectors = torch.randn(vocab_size, dim, dtype=torch.float64, requires_grad=True)


def naiveSoftmaxLossAndGradient(centerWordVec, outsideWordIdx, outsideVectors):
    scores = outsideVectors @ centerWordVec
    y_hat = torch.softmax(scores, dim=0)
    loss = -torch.log(y_hat[outsideWordIdx])
    y = torch.zeros_like(y_hat)
    y[outsideWordIdx] = 1.0
    delta = (y_hat - y).detach()
    gradCenterVec = outsideVectors.detach().T @ delta
    gradOutsideVecs = torch.outer(delta, centerWordVec.detach())
    return loss, gradCenterVec, gradOutsideVecs


def negSamplingLossAndGradient(centerWordVec, outsideWordIdx, outsideVectors, negSampleWordIndices):
    u_o = outsideVectors[outsideWordIdx]
    u_k = outsideVectors[negSampleWordIndices]
    pos = torch.sigmoid(u_o @ centerWordVec)
    neg = torch.sigmoid(-u_k @ centerWordVec)
    loss = -torch.log(pos) - torch.log(neg).sum()
    gradCenterVec = -(1 - pos.detach()) * u_o.detach() + ((1 - neg.detach()).unsqueeze(1) * u_k.detach()).sum(0)
    return loss, gradCenterVec


def skipgram(currentCenterWordIdx, outsideWordIndices):
    loss = 0.0
    gradCenter = torch.zeros(dim, dtype=torch.float64)
    gradOutside = torch.zeros(vocab_size, dim, dtype=torch.float64)
    v_c = centerWordVectors[currentCenterWordIdx]
    for o in outsideWordIndices:
        l, gc, go = naiveSoftmaxLossAndGradient(v_c, o, outsideVectors)
        loss = loss + l
        gradCenter += gc
        gradOutside += go
    return loss, gradCenter, gradOutside


loss, gradCenter, gradOutside = skipgram(2, [1, 3, 3, 5])
loss.backward()
print(f"{loss.item():.6f}")
print(torch.allclose(centerWordVectors.grad[2], gradCenter), torch.allclose(outsideVectors.grad, gradOutside))

centerWordVectors.grad = None
v_c = centerWordVectors[0]
neg_loss, neg_grad = negSamplingLossAndGradient(v_c, 4, outsideVectors, [1, 2, 2, 5])
neg_loss.backward()
print(neg_loss, torch.allclose(centerWordVectors.grad[0], neg_grad))
