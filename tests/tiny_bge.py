"""Build a tiny BGE-M3-shaped model on disk, so the real FlagEmbedding code path runs offline.

The real BAAI/bge-m3 is a 2 GB XLM-RoBERTa download; tests cannot fetch it. What FlagEmbedding
needs from a model folder is only its shape: an XLM-RoBERTa tokenizer (sentencepiece unigram),
an `XLMRobertaModel` saved with `save_pretrained`, and the `colbert_linear.pt` /
`sparse_linear.pt` heads. This builds all of them, 2 layers and 32 wide, in about a second,
seeded so every build gives the same weights.
"""

from __future__ import annotations

from pathlib import Path

TINY_HIDDEN = 32

_SENTENCES = [
    "What was the revenue of Orbis China in 2024?",
    "Revenue in China fell because of weaker online demand.",
    "The regulation on imports changed in the second half of the year.",
    "Sales grew in Europe thanks to the new product line.",
    "Qual è stato il fatturato di Orbis Cina nel 2024?",
    "I ricavi in Cina sono calati per la domanda online più debole.",
    "Perché il margine è sceso nel secondo trimestre?",
    "La normativa sulle importazioni è cambiata durante l'anno.",
    "中国区2024年的营收是多少？",
    "中国区营收下降的原因是线上需求减弱。",
    "为什么第二季度利润率下降？",
    "进口监管政策在下半年发生了变化。",
]


def build_tiny_bge(target: Path) -> Path:
    """Write a loadable tiny BGE-M3-shaped model folder at `target` and return it."""
    import sentencepiece as spm
    import torch
    from transformers import (
        XLMRobertaConfig,
        XLMRobertaModel,
        XLMRobertaTokenizer,
        XLMRobertaTokenizerFast,
    )

    target.mkdir(parents=True, exist_ok=True)
    corpus = target / "corpus.txt"
    corpus.write_text("\n".join(_SENTENCES * 4) + "\n", encoding="utf-8")
    spm.SentencePieceTrainer.train(
        input=str(corpus),
        model_prefix=str(target / "spm"),
        model_type="unigram",
        vocab_size=220,
        hard_vocab_limit=False,
        character_coverage=1.0,
        num_threads=1,
        minloglevel=2,
    )
    corpus.unlink()

    slow = XLMRobertaTokenizer(vocab_file=str(target / "spm.model"))
    slow.save_pretrained(str(target))
    fast = XLMRobertaTokenizerFast.from_pretrained(str(target))
    fast.save_pretrained(str(target))
    for leftover in ("spm.model", "spm.vocab"):
        (target / leftover).unlink()

    torch.manual_seed(0)
    config = XLMRobertaConfig(
        vocab_size=len(fast),
        hidden_size=TINY_HIDDEN,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=514,
        type_vocab_size=1,
        pad_token_id=fast.pad_token_id,
        bos_token_id=fast.bos_token_id,
        eos_token_id=fast.eos_token_id,
    )
    XLMRobertaModel(config).save_pretrained(str(target))
    torch.save(torch.nn.Linear(TINY_HIDDEN, TINY_HIDDEN).state_dict(), target / "colbert_linear.pt")
    torch.save(torch.nn.Linear(TINY_HIDDEN, 1).state_dict(), target / "sparse_linear.pt")
    return target
