"""Loading transformers checkpoints from a local directory (issue 11).

Every checkpoint is built here, tiny and random, and saved the way real ones are: a masked LM
through ``save_pretrained`` (safetensors), a diffusion LM as a modeling file wired through
``auto_map``. They are loaded by the same ``load_engine`` / ``remask fill --model`` path a real
LLaDA or BERT directory takes. Quality is not the point; layout, ids and bytes are.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from safetensors.torch import save_file
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
from transformers import (
    BertConfig,
    BertForMaskedLM,
    PreTrainedTokenizerFast,
    RobertaConfig,
    RobertaForMaskedLM,
)

from remask.infill.engine import load_engine
from remask.infill.sampler import SamplerConfig

TEXTS = ["def add(a, b):\n    return a + b\n", "values = [x * x for x in range(10)]\n",
         "class Point:\n    def __init__(self, x, y):\n        self.x, self.y = x, y\n"] * 4
PREFIX, SUFFIX = "def area(w, h):\n    return ", "\n\n\nprint(area(2, 3))  # é ✓\n"
SOURCE = PREFIX + "???" + SUFFIX


def tokenizer(specials: list[str], frame: tuple[str, str] | None,
              **named) -> PreTrainedTokenizerFast:
    """A byte-level BPE trained on a few lines, wrapped as transformers wraps real ones."""
    hf = Tokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.decoder = decoders.ByteLevel()
    hf.train_from_iterator(TEXTS, trainers.BpeTrainer(
        vocab_size=320, special_tokens=specials, show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    if frame:
        a, b = frame
        hf.post_processor = processors.TemplateProcessing(
            single=f"{a} $A {b}", special_tokens=[(a, hf.token_to_id(a)), (b, hf.token_to_id(b))])
    return PreTrainedTokenizerFast(tokenizer_object=hf, model_max_length=128, **named)


def favour_x(bias: torch.Tensor, tok) -> None:
    """Make the random model prefer "x": its fills are then identifiers, which parse."""
    bias.data[tok.convert_tokens_to_ids("x")] += 20.0


def build_masked_lm(root: Path, family: str) -> Path:
    if family == "bert":
        tok = tokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"], ("[CLS]", "[SEP]"),
                        pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]",
                        sep_token="[SEP]", mask_token="[MASK]")
        cfg = BertConfig(vocab_size=len(tok), hidden_size=32, num_hidden_layers=2,
                         num_attention_heads=2, intermediate_size=64, max_position_embeddings=128,
                         pad_token_id=tok.pad_token_id)
        model = BertForMaskedLM(cfg)
        favour_x(model.cls.predictions.bias, tok)
    else:
        tok = tokenizer(["<s>", "<pad>", "</s>", "<unk>", "<mask>"], ("<s>", "</s>"),
                        bos_token="<s>", pad_token="<pad>", eos_token="</s>", unk_token="<unk>",
                        cls_token="<s>", sep_token="</s>", mask_token="<mask>")
        cfg = RobertaConfig(vocab_size=len(tok), hidden_size=32, num_hidden_layers=2,
                            num_attention_heads=2, intermediate_size=64,
                            max_position_embeddings=130, pad_token_id=tok.pad_token_id,
                            bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id)
        model = RobertaForMaskedLM(cfg)
        favour_x(model.lm_head.bias, tok)
    out = root / family
    tok.save_pretrained(out)
    model.save_pretrained(out, safe_serialization=True)
    return out


MODELING = '''
import torch
from torch import nn
from transformers import PretrainedConfig, PreTrainedModel
from transformers.modeling_outputs import MaskedLMOutput


class TinyDiffConfig(PretrainedConfig):
    model_type = "{model_type}"

    def __init__(self, vocab_size=8, mask_token_id=None, **kwargs):
        self.vocab_size, self.mask_token_id = vocab_size, mask_token_id
        super().__init__(**kwargs)


class TinyDiffModel(PreTrainedModel):
    """Echoes each input token (shifted one left when it is Dream-like), plus a bias."""

    config_class = TinyDiffConfig

    def __init__(self, config):
        super().__init__(config)
        self.echo = nn.Embedding(config.vocab_size, config.vocab_size)
        self.bias = nn.Parameter(torch.zeros(config.vocab_size))
        self.post_init()

    def _init_weights(self, module):
        pass

    def forward(self, input_ids, **kwargs):
        logits = self.echo(input_ids) + self.bias
        if self.config.model_type == "Dream":  # position i predicts token i+1
            logits = torch.cat([logits[:, 1:], logits[:, -1:]], dim=1)
        return MaskedLMOutput(logits=logits)
'''


def build_remote(root: Path, model_type: str = "tinydiff") -> Path:
    out = root / f"remote-{model_type}"
    tok = tokenizer(["<|endoftext|>", "<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>",
                     "<|mask|>"], None, eos_token="<|endoftext|>", pad_token="<|endoftext|>",
                    mask_token="<|mask|>")
    tok.save_pretrained(out)
    (out / "modeling_tinydiff.py").write_text(MODELING.format(model_type=model_type))
    vocab = len(tok) + 6  # padded embedding rows past the tokenizer, as real dLLMs have
    (out / "config.json").write_text(json.dumps({
        "model_type": model_type, "architectures": ["TinyDiffModel"], "vocab_size": vocab,
        "mask_token_id": tok.mask_token_id, "max_position_embeddings": 256,
        "auto_map": {"AutoConfig": "modeling_tinydiff.TinyDiffConfig",
                     "AutoModel": "modeling_tinydiff.TinyDiffModel"}}))
    bias = torch.zeros(vocab)
    favour_x(bias, tok)
    bias[:] += torch.linspace(0, 1, vocab)  # random-ish order, "x" still first
    save_file({"echo.weight": 100 * torch.eye(vocab), "bias": bias}, out / "model.safetensors")
    return out


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("ckpt")
    for family in ("bert", "roberta"):
        build_masked_lm(root, family)
    build_remote(root)
    build_remote(root, "Dream")
    return root


@pytest.fixture
def module_cache(tmp_path, monkeypatch):
    """Keep transformers' copy of remote modeling code out of the home directory."""
    import transformers.dynamic_module_utils as dmu

    monkeypatch.setattr(dmu, "HF_MODULES_CACHE", str(tmp_path / "modules"))
    return tmp_path / "modules"


def run_cli(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_MODULES_CACHE": str(home / "modules")}
    return subprocess.run([sys.executable, "-m", "remask.cli", *args], capture_output=True,
                          text=True, env=env, timeout=300)


@pytest.mark.parametrize("family", ["bert", "roberta"])
def test_masked_lm_layout_mask_id_and_shapes(checkpoints, family):
    engine = load_engine(checkpoints / family, device="cpu")
    backend, tok = engine.backend, engine.tokenizer
    hf_mask = tok.hf.mask_token_id
    assert tok.special.mask == hf_mask == tok.hf.convert_tokens_to_ids(tok.hf.mask_token)
    seen = []
    backend.model.register_forward_pre_hook(
        lambda _m, _a, kw: seen.append((kw["input_ids"], kw["attention_mask"])),
        with_kwargs=True)
    p, s = tok.encode(PREFIX), tok.encode(SUFFIX)
    ctx = backend.context(p, s, 8)
    canvas = torch.full((2, 5), tok.special.delete)  # (B, M); row 0 has 3 positions
    canvas[0, :3], canvas[1] = hf_mask, hf_mask
    valid = torch.arange(5)[None] < torch.tensor([[3], [5]])
    logits, processed = backend.logits(ctx, canvas, valid)
    assert logits.shape == (2, 5, tok.vocab_size)
    ids, attn = seen[0]
    cls, sep, pad = tok.hf.cls_token_id, tok.hf.sep_token_id, tok.hf.pad_token_id
    assert ids[1].tolist() == [cls, *p, *[hf_mask] * 5, *s, sep]
    assert ids[0].tolist() == [cls, *p, *[hf_mask] * 3, *s, sep, pad, pad]
    assert attn.sum(1).tolist() == [len(p) + len(s) + 5, len(p) + len(s) + 7]
    assert processed == ids.numel()
    # the canvas logits are the model's own at the mask positions, nothing shifted
    direct = backend.model(input_ids=ids[1:], attention_mask=attn[1:]).logits[0]
    start = 1 + len(p)
    n = len(tok.hf)
    banned = torch.isin(torch.arange(n), torch.tensor(tok.banned))
    assert torch.equal(logits[1, :, :n].isinf(), banned.expand(5, n))
    keep = ~logits[1, :, :n].isinf()
    torch.testing.assert_close(logits[1, :, :n][keep], direct[start:start + 5, :n][keep])
    # tokens the vocabulary lacks get ids the model can never propose
    for name in ("expand", "delete", "fim_prefix", "fim_suffix", "fim_middle"):
        vid = getattr(tok.special, name)
        assert vid >= n and logits[..., vid].eq(-torch.inf).all()
        assert tok.is_special(vid) and tok.decode([vid]) == ""


@pytest.mark.parametrize("name", ["bert", "roberta", "remote-tinydiff"])
def test_tokenization_round_trip(checkpoints, module_cache, name):
    tok = load_engine(checkpoints / name, device="cpu", trust_remote_code=True).tokenizer
    for text in (SOURCE, "x = '[MASK] <mask> <|mask|>'\n\tπ ≈ 3.14\r\n", " lead and trail  "):
        ids = tok.encode(text)
        assert tok.decode(ids) == text
        assert tok.special.mask not in ids  # a literal mask token in a file is only text
    assert tok.encode("") == [] and tok.decode([]) == ""


def test_remote_code_reads_ids_from_its_vocabulary(checkpoints, module_cache):
    tok = load_engine(checkpoints / "remote-tinydiff", trust_remote_code=True,
                      device="cpu").tokenizer
    vocab = tok.hf.get_vocab()
    assert tok.special.mask == vocab["<|mask|>"] == json.loads(
        (checkpoints / "remote-tinydiff" / "config.json").read_text())["mask_token_id"]
    assert tok.special.fim_middle == vocab["<|fim_middle|>"]
    assert tok.special.eos == tok.special.pad == vocab["<|endoftext|>"]
    # no <|expand|> / <|delete|> here, and the padded rows past the tokenizer are not ids
    assert tok.special.expand >= len(vocab) + 6 and tok.special.delete >= len(vocab) + 6


@pytest.mark.parametrize("model_type", ["tinydiff", "Dream"])
def test_logit_alignment_shifted_or_not(checkpoints, module_cache, model_type):
    """An echo model predicts each decided token; Dream's shift must be undone to see that."""
    engine = load_engine(checkpoints / f"remote-{model_type}", trust_remote_code=True)
    tok, backend = engine.tokenizer, engine.backend
    assert backend.shift == (model_type == "Dream") and backend.head == backend.tail == []
    body = tok.encode("return width * height + 1")
    L = len(body)
    assert L > 4
    canvas = torch.full((2, L), tok.special.delete)  # (B, M); row 1 has 4 positions
    canvas[0], canvas[1, :4] = torch.tensor(body), torch.tensor(body[:4])
    canvas[0, 2] = tok.special.mask
    valid = torch.arange(L)[None] < torch.tensor([[L], [4]])
    logits, processed = backend.logits(backend.context(tok.encode(PREFIX), [], 8), canvas,
                                       valid)
    pred = logits.argmax(-1)
    decided = valid & (canvas != tok.special.mask)
    assert (pred[decided] == canvas[decided]).all()
    assert pred[0, 2] == tok.hf.convert_tokens_to_ids("x")  # the mask itself is banned
    assert processed == len(tok.encode(PREFIX)) * 2 + L + 4  # one pass per length


@pytest.mark.slow
def test_cli_fill_masked_lm_end_to_end(checkpoints, tmp_path):
    src = tmp_path / "area.py"
    src.write_text(SOURCE, encoding="utf-8", newline="")
    res = run_cli("fill", str(src), "--model", str(checkpoints / "bert"), "--device", "cpu",
                  "--json", home=tmp_path)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    [hole] = out["holes"]
    assert hole["text"] and set(hole["text"]) == {"x"}  # what the biased head proposes
    assert out["text"] == PREFIX + hole["text"] + SUFFIX  # every byte outside the span kept
    assert src.read_text(encoding="utf-8") == SOURCE


@pytest.mark.slow
def test_cli_refuses_remote_code_without_the_flag(checkpoints, tmp_path):
    src = tmp_path / "area.py"
    src.write_text(SOURCE)
    res = run_cli("fill", str(src), "--model", str(checkpoints / "remote-tinydiff"),
                  home=tmp_path)
    assert res.returncode == 2 and res.stdout == ""
    assert len(res.stderr.strip().splitlines()) == 1
    assert "--trust-remote-code" in res.stderr and "modeling_tinydiff.py" in res.stderr
    assert not (tmp_path / "modules").exists()  # the modeling file was never imported


@pytest.mark.slow
def test_cli_fill_remote_code_end_to_end(checkpoints, tmp_path):
    src = tmp_path / "area.py"
    src.write_text(SOURCE)
    res = run_cli("fill", str(src), "--model", str(checkpoints / "remote-Dream"),
                  "--trust-remote-code", "--write", home=tmp_path)
    assert res.returncode == 0, res.stderr
    new = src.read_text()
    assert new.startswith(PREFIX) and new.endswith(SUFFIX) and "???" not in new
    assert set(new[len(PREFIX):-len(SUFFIX)]) == {"x"}


def broken_copy(checkpoints: Path, tmp_path: Path, name: str) -> Path:
    out = tmp_path / name
    shutil.copytree(checkpoints / name, out)
    return out


def test_mask_id_must_be_known_and_consistent(checkpoints, tmp_path, module_cache):
    d = broken_copy(checkpoints, tmp_path, "remote-tinydiff")
    cfg = json.loads((d / "config.json").read_text())
    (d / "config.json").write_text(json.dumps({**cfg, "mask_token_id": 0}))
    with pytest.raises(ValueError, match="mask_token_id 0, the tokenizer says"):
        load_engine(d, trust_remote_code=True)
    b = broken_copy(checkpoints, tmp_path, "bert")
    tc = json.loads((b / "tokenizer_config.json").read_text())
    tc.pop("mask_token", None)
    (b / "tokenizer_config.json").write_text(json.dumps(tc))
    with pytest.raises(ValueError, match="no mask token"):
        load_engine(b)


def test_pickle_weights_are_refused(checkpoints, tmp_path):
    d = broken_copy(checkpoints, tmp_path, "bert")
    (d / "model.safetensors").unlink()
    (d / "pytorch_model.bin").write_bytes(b"not unpickled")
    with pytest.raises(ValueError, match=r"only pickle: pytorch_model\.bin"):
        load_engine(d)


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_unavailable_device_is_one_line(checkpoints, tmp_path):
    with pytest.raises(ValueError, match="--device cuda: this torch sees no CUDA device"):
        load_engine(checkpoints / "bert", device="cuda")
    with pytest.raises(ValueError, match="remask's own models run on the CPU"):
        load_engine(None, device="cuda")


def test_fixed_length_canvas_without_expand_and_delete(checkpoints):
    engine = load_engine(checkpoints / "bert", device="cpu")
    fill = engine.fill(PREFIX, SUFFIX, candidates=2,
                       sampler=SamplerConfig(lengths=(), init_length=6))
    # each candidate keeps its initial length (ranked by score, so in either order)
    assert sorted(len(t) for t in fill.tokens) == [6, 12]


def test_vocabulary_expand_and_delete_are_used_for_real():
    """A DreamOn-style vocabulary has <|expand|>/<|delete|>: the sampler may propose them."""
    from remask.infill.hf import HFTokenizer

    tok = tokenizer(["<|endoftext|>", "<|mask|>", "<|expand|>", "<|delete|>"], None,
                    eos_token="<|endoftext|>", mask_token="<|mask|>",
                    additional_special_tokens=["<|expand|>", "<|delete|>"])
    ada = HFTokenizer(tok, tok.mask_token_id, len(tok))
    vocab = tok.get_vocab()
    assert (ada.special.expand, ada.special.delete) == (vocab["<|expand|>"], vocab["<|delete|>"])
    assert ada.special.expand not in ada.banned and ada.special.delete not in ada.banned
    assert ada.special.mask in ada.banned and ada.special.eos in ada.banned
    assert ada.vocab_size == len(tok) + 5  # virtual: pad, bos and the three FIM markers
    assert ada.decode([*ada.encode("a = 1"), ada.special.delete]) == "a = 1"


def test_dtype_keyword_follows_the_transformers_version():
    """Older transformers (pinned by dLLM checkpoints) would ignore ``dtype`` and load fp32."""
    from remask.infill.hf import _dtype_arg

    cpu = torch.device("cpu")
    assert _dtype_arg("4.46.2", cpu) == {"torch_dtype": torch.float32}
    assert _dtype_arg("5.23.0", cpu) == {"dtype": torch.float32}
    engine = load_engine(Path(__file__).parents[1] / "infill" / "bundled", device="cpu")
    assert engine.name == "bundled"  # remask's own format still loads, on the CPU
