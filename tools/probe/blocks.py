"""tools/probe/blocks.py: ResNet50 (torchvision, random weights, nothing downloaded) cut at the
block boundaries of models/resnet50-split.json, one torch module per block or process.

The split file names, in prose, the torchvision layers each block covers ("conv1 7x7/2, bn1,
relu, maxpool 3x3/2, layer1 (3 bottlenecks, 64->256)"); the first word of each comma-separated
piece, parentheses removed, is a torchvision ResNet attribute (or "flatten"). A process
(pipeline.processes[]) is its blocks in order. Shapes are checked against the file's in/out
shapes, so a changed split cannot silently measure something else.
"""
import json
import re

import torch
import torchvision

SPLIT_PATH = "models/resnet50-split.json"


def load_split(path=SPLIT_PATH):
    """The split file as a dict (blocks, pipeline.processes, shapes)."""
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def block_layer_names(block):
    """torchvision attribute names a split-file block covers, in order."""
    text = re.sub(r"\([^)]*\)", "", block["layers"])
    return [piece.split()[0] for piece in text.split(",") if piece.strip()]


def build_resnet(seed=0):
    """ResNet50 with seeded random weights (weights=None), eval mode, float32."""
    torch.manual_seed(seed)
    return torchvision.models.resnet50(weights=None).eval().float()


def block_module(net, block):
    """torch.nn.Sequential of one split-file block's layers taken from net."""
    mods = []
    for name in block_layer_names(block):
        if name == "flatten":
            mods.append(torch.nn.Flatten(1))
        elif hasattr(net, name):
            mods.append(getattr(net, name))
        else:
            raise ValueError(f"{SPLIT_PATH}: block {block['name']}: no torchvision layer '{name}'")
    return torch.nn.Sequential(*mods).eval()


def pieces(split, net):
    """{name: (module, in_shape, out_shape)} for every block and every pipeline process.

    A process made of one block is that block (same name); a fused process (block4_class)
    chains its blocks. in/out shapes are per sample, without the batch dimension.
    """
    blocks = {b["name"]: b for b in split["blocks"]}
    out = {}
    for b in split["blocks"]:
        out[b["name"]] = (block_module(net, b), tuple(b["in_shape"]), tuple(b["out_shape"]))
    for p in split["pipeline"]["processes"]:
        if p["name"] in out:
            continue
        chain = [blocks[n] for n in p["blocks"]]
        mod = torch.nn.Sequential(*[out[b["name"]][0] for b in chain]).eval()
        out[p["name"]] = (mod, tuple(chain[0]["in_shape"]), tuple(chain[-1]["out_shape"]))
    return out


def process_names(split):
    """The pipeline's processes in order (block1, block2, block3, block4_class)."""
    return [p["name"] for p in split["pipeline"]["processes"]]


def check_shapes(piece_map):
    """Run one sample through every piece and compare with the split file's shapes."""
    with torch.inference_mode():
        for name, (mod, in_shape, out_shape) in piece_map.items():
            y = mod(torch.zeros((1,) + in_shape))
            if tuple(y.shape[1:]) != out_shape:
                raise ValueError(f"{SPLIT_PATH}: {name}: output {tuple(y.shape[1:])}, file says {out_shape}")
