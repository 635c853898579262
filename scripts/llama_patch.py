"""Make llama.cpp's CPU kernels batch-invariant: a sequence's logits do not depend on the other sequences
decoded in the same step, nor on the thread count. Run by ``scripts/setup.sh`` on the unpacked
llama-cpp-python source before it is compiled:

    python scripts/llama_patch.py path/to/llama_cpp_python-0.3.36

Three edits of the vendored ggml, each found by its exact text (the script fails, changing nothing, if one
is missing: a new llama.cpp must be checked again by hand):

1. llamafile's GEMMs (``llamafile_sgemm``) serve products of one token too, on x86. Upstream they serve only
   2 or more, so a token decoded alone went through ``ggml_vec_dot_*`` and the same token in a batch through
   tinyBLAS, which sums in another order: BF16 greedy outputs changed with the batch. tinyBLAS accumulates
   each output element in one vector register over k whatever the tile shape, so its result per element is
   the same for any number of tokens and threads.
2. Flash attention never takes its split-KV path (one query token and 512 or more KV cells: the cells are cut
   into one chunk per thread and the partial softmaxes merged), whose sums depend on the thread count and
   which a batch of several tokens never takes. Attention is then parallel over heads, as for batches.
3. ``llama_print_system_info`` says ``BATCH_INVARIANT = 1``, which is how paperworks knows the build.
"""

from __future__ import annotations

import sys
from pathlib import Path

EDITS = [
    ("vendor/llama.cpp/ggml/src/ggml-cpu/llamafile/sgemm.cpp",
     "    // only enable sgemm for prompt processing\n#if !defined(__MMA__)\n    if (n < 2)\n",
     "    // paperworks: one token too on x86, so that a row's products do not depend on the batch\n"
     "#if !defined(__MMA__) && !defined(__x86_64__)\n    if (n < 2)\n"),
    ("vendor/llama.cpp/ggml/src/ggml-cpu/ops.cpp",
     "q->type == GGML_TYPE_F32 && nek1 >= 512;",
     "q->type == GGML_TYPE_F32 && nek1 >= 512 && false;  // paperworks: thread- and batch-invariant"),
    ("vendor/llama.cpp/ggml/src/ggml-cpu/ggml-cpu.cpp",
     '            features.push_back({ "LLAMAFILE", "1" });\n',
     '            features.push_back({ "LLAMAFILE", "1" });\n'
     '            features.push_back({ "BATCH_INVARIANT", "1" });  // paperworks: scripts/llama_patch.py\n'),
]


def main(root: Path) -> int:
    texts: dict[Path, str] = {}
    for rel, old, _ in EDITS:
        path = root / rel
        if not path.is_file():
            print(f"llama_patch: {path} not found", file=sys.stderr)
            return 1
        text = texts.get(path, path.read_text(encoding="utf-8"))
        if text.count(old) != 1:
            print(f"llama_patch: {rel}: the text to change occurs {text.count(old)} times, not once", file=sys.stderr)
            return 1
        texts[path] = text
    for rel, old, new in EDITS:
        path = root / rel
        texts[path] = texts[path].replace(old, new)
    for path, text in texts.items():
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: python scripts/llama_patch.py LLAMA_CPP_PYTHON_SOURCE_DIR", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(Path(sys.argv[1])))
