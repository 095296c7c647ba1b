# after: PyTorch tutorial "Hooks for autograd saved tensors", Saving tensors to disk (SelfDeletingTempFile, torch.save in pack_hook)
# expect: refused
# mentions: import uuid | files
import torch
import uuid
import os
import tempfile

tmp_dir_obj = tempfile.TemporaryDirectory()
tmp_dir = tmp_dir_obj.name


class SelfDeletingTempFile():
    def __init__(self):
        self.name = os.path.join(tmp_dir, str(uuid.uuid4()))

    def __del__(self):
        os.remove(self.name)


def pack_hook(tensor):
    temp_file = SelfDeletingTempFile()
    torch.save(tensor, temp_file.name)
    return temp_file


def unpack_hook(temp_file):
    return torch.load(temp_file.name)


x = torch.ones(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = x.pow(2)
y.sum().backward()
