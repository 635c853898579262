"""GradMem on the embedded SmolLM2-135M: the story prompt's pieces are exactly the chat template's tokens,
and a short write lowers the story's reconstruction loss with the memory where the story was."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def local() -> Any:
    from paperworks.models.local import get_local_model
    from paperworks.models.local.smollm import LocalModelError

    try:
        return get_local_model("smollm2-135m-torch")
    except LocalModelError as exc:
        pytest.skip(str(exc))


def test_story_prompt_pieces_are_the_template(local: Any) -> None:
    from paperworks.backends.gradmem.lm_stories import answer_prefix, question_messages, story_prompt
    from paperworks.backends.gradmem.stories import make_stories

    story = make_stories(1, 1, 4)[0]
    p = story_prompt(local, story)
    tail = local.tokenizer(answer_prefix(story), add_special_tokens=False)["input_ids"]
    ceiling = local.prompt_ids(question_messages(story, story.question)) + tail
    floor = local.prompt_ids(question_messages(None, story.question)) + tail
    assert p.prefix.tolist() + p.story[0].tolist() + p.rest[0].tolist() == ceiling
    assert p.prefix.tolist() + p.rest[0].tolist() == floor
    assert local.tokenizer.decode(p.story[0]) == story.text + "\n"


@pytest.mark.slow
def test_write_into_the_user_turn_lowers_the_loss(local: Any) -> None:
    from paperworks.backends.gradmem.lm_stories import frozen, story_prompt
    from paperworks.backends.gradmem.memory import GradMem, GradMemConfig, reconstruction_loss
    from paperworks.backends.gradmem.stories import make_stories

    p = story_prompt(local, make_stories(2, 1, 3)[0])
    flags = [q.requires_grad for q in local.model.parameters()]
    torch.manual_seed(0)  # M0 is drawn at random: an unseeded draw made a 3-step curve flat on one CI run
    with frozen(local.model):
        gm = GradMem(local.model, GradMemConfig(n_mem=4, steps=6, optimiser="adam", inner_lr=0.01))
        res = gm.write(p.story, prefix_ids=p.prefix, track_final=True)
        assert all(not q.requires_grad for q in local.model.parameters())
    assert [q.requires_grad for q in local.model.parameters()] == flags  # restored
    assert res.losses[-1] < res.losses[0] - 0.3, res.losses
    with torch.no_grad():  # the write scored the story after [prefix; M0], not after M0 alone
        emb, ones, m0 = local.model.get_input_embeddings()(p.story), torch.ones_like(p.story), gm.mem0[None]
        with_prefix = float(reconstruction_loss(local.model, m0, emb, p.story, ones, p.prefix)[0])
        without = float(reconstruction_loss(local.model, m0, emb, p.story, ones)[0])
    assert res.losses[0] == pytest.approx(with_prefix, abs=1e-4) and abs(with_prefix - without) > 0.05
    assert all(q.grad is None for q in local.model.parameters())
