"""``paperworks.eval.view``: loading an eval run directory, the terminal summary and the HTML report."""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from paperworks.core.errors import UserError
from paperworks.eval.records import Results, SampleRecord, Score
from paperworks.eval.report_assets import PAGE_SIZE, embed_json
from paperworks.eval.view import EVENTS_PER_SAMPLE, FIELD_CHARS, IMAGE_BYTES, load_run, summary, write_report

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


def make_sample(sid: str, epoch: int = 1, passed: bool | None = True, scorer: str = "numeric", **kw: Any
                ) -> SampleRecord:
    """A finished sample; ``passed=None`` makes it an errored one with no score."""
    if passed is None:
        return SampleRecord(id=sid, epoch=epoch, input={"question": f"q {sid}"}, target="4", status="failed",
                            error="ModelError: boom", error_kind="model_error", **kw)
    score = Score(value=1.0 if passed else 0.0, passed=passed, answer="4" if passed else "5",
                  explanation="exact" if passed else "|5 - 4| > tolerance")
    kw.setdefault("usage", {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15, "cost": 0.0, "calls": 1})
    kw.setdefault("time_s", 0.5)
    kw.setdefault("output", {"answer": score.answer})
    return SampleRecord(id=sid, epoch=epoch, input={"question": f"q {sid}"}, target="4",
                        scores={scorer: score.to_dict()}, **kw)


def write_run(path: Path, samples: list[SampleRecord], results: Results | None = None,
              record: dict[str, Any] | None = None, events: list[dict[str, Any]] | None = None) -> Path:
    """An eval run directory written by hand: run.json, samples.jsonl, events.jsonl, results.json."""
    path.mkdir(parents=True, exist_ok=True)
    rec = {"id": "abc", "kind": "eval", "suite": "arith", "suite_version": "1", "workflow": "agent",
           "model": "mock/m", "status": "succeeded" if results else "running", "epochs": 1, "seed": 0,
           "sample_ids": sorted({s.id for s in samples}), "args": {}, **(record or {})}
    (path / "run.json").write_text(json.dumps(rec), encoding="utf-8")
    with open(path / "samples.jsonl", "w", encoding="utf-8") as fh:
        for s in samples:
            fh.write(json.dumps(s.to_dict(), ensure_ascii=False) + "\n")
    with open(path / "events.jsonl", "w", encoding="utf-8") as fh:
        for e in events or []:
            fh.write(json.dumps(e, ensure_ascii=False) + "\n")
    if results is not None:
        (path / "results.json").write_text(json.dumps(asdict(results)), encoding="utf-8")
    return path


def trace(key: str, t0: float = 1000.0) -> list[dict[str, Any]]:
    """A small trace of one sample."""
    return [
        {"t": t0, "type": "node_start", "node": "agent", "sample": key},
        {"t": t0 + 0.1, "type": "model_call", "model": "mock/m", "prompt_tokens": 10, "completion_tokens": 5,
         "latency_s": 0.1, "cached": False, "tool_calls": ["calculator"], "text": "", "sample": key},
        {"t": t0 + 0.2, "type": "tool_call", "tool": "calculator", "arguments": {"expression": "2+2"}, "ok": True,
         "observation": "4", "latency_s": 0.0, "sample": key},
        {"t": t0 + 0.3, "type": "node_end", "node": "agent", "seconds": 0.3, "error": None,
         "update": {"answer": "4"}, "sample": key},
    ]


def results_for(samples: list[SampleRecord], **kw: Any) -> Results:
    passed = [1.0 if s.scores and s.scores["numeric"]["passed"] else 0.0 for s in samples]
    acc = sum(passed) / len(passed)
    se = (acc * (1 - acc) / max(1, len(passed) - 1)) ** 0.5
    errors = sum(1 for s in samples if s.error)
    return Results(suite="arith", model="mock/m", n_samples=len({s.id for s in samples}), epochs=1,
                   metrics={"numeric/accuracy": {"value": acc, "stderr": se, "n": len(passed)},
                            "time_s/mean": {"value": 0.5, "stderr": 0.0, "n": len(passed)}},
                   errors={"model_error": errors} if errors else {},
                   usage={"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150, "cost": 0.0,
                          "calls": 10}, elapsed_s=12.5, **kw)


def embedded(html: str) -> dict[str, Any]:
    match = re.search(r'<script type="application/json" id="pw-data">(.*?)</script>', html, re.S)
    assert match, "no embedded data block"
    data: dict[str, Any] = json.loads(match.group(1))
    return data


@pytest.fixture
def finished(tmp_path: Path) -> Path:
    samples = [make_sample("q1"), make_sample("q2", passed=False), make_sample("q3", passed=None)]
    events = [e for s in samples for e in trace(s.key)] + [{"t": 999.0, "type": "run_start", "run_id": "abc"}]
    return write_run(tmp_path / "run", samples, results_for(samples), events=events)


def test_load_run_groups_events_and_tolerates_torn_and_repeated_lines(finished: Path) -> None:
    with open(finished / "samples.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps(make_sample("q2", passed=True).to_dict()) + "\n")  # a retry: the last one wins
        fh.write(json.dumps({"epoch": 1}) + "\n")  # no id: skipped
        fh.write('{"id": "q4", "epoch": 1, "inp')  # torn by a kill
    run = load_run(finished)
    assert [s.key for s in run.samples] == ["q1#1", "q2#1", "q3#1"]
    assert run.samples[1].scores["numeric"]["passed"] is True
    assert run.skipped_lines == 2
    assert [e["type"] for e in run.events["q1#1"]] == ["node_start", "model_call", "tool_call", "node_end"]
    assert run.events[""][0]["type"] == "run_start"
    assert run.results is not None and run.results.metrics["numeric/accuracy"]["n"] == 3


def test_load_run_errors(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="not a run directory"):
        load_run(tmp_path)
    (tmp_path / "run.json").write_text(json.dumps({"kind": "workflow", "workflow": "agent"}))
    with pytest.raises(UserError, match="not an eval run"):
        load_run(tmp_path)
    write_run(tmp_path, [make_sample("q1")])
    (tmp_path / "results.json").write_text("{not json")
    with pytest.raises(UserError, match="results.json: unreadable"):
        load_run(tmp_path)


def render(renderable: Any) -> str:
    console = Console(width=160, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(renderable)
    return console.export_text()


def test_summary_shows_metrics_errors_usage_and_testing_note(tmp_path: Path) -> None:
    samples = [make_sample("q1"), make_sample("q2", passed=False), make_sample("q3", passed=None)]
    path = write_run(tmp_path / "r", samples, results_for(samples, limited=True))
    text = render(summary(load_run(path)))
    assert "arith (version 1)" in text and "mock/m" in text and "3/3" in text
    assert "numeric/accuracy" in text and "0.333" in text and "model_error" in text
    assert "150 tokens" in text and "12.5 s" in text
    assert "testing only" in text


def test_unfinished_run_summary_and_report(tmp_path: Path) -> None:
    samples = [make_sample("q1"), make_sample("q2", passed=False)]
    path = write_run(tmp_path / "r", samples, record={"sample_ids": [f"q{i}" for i in range(10)],
                                                         "args": {"limit": 10}})
    run = load_run(path)
    assert run.results is None and run.limited
    text = render(summary(run))
    assert "did not finish" in text and "2/10" in text and "testing only" in text
    html = write_report(run).read_text(encoding="utf-8")
    assert "did not finish" in html and "Metrics" not in html
    assert [s["id"] for s in embedded(html)["samples"]] == ["q1", "q2"]


def test_empty_run(tmp_path: Path) -> None:
    path = tmp_path / "r"
    path.mkdir()
    (path / "run.json").write_text(json.dumps({"kind": "eval", "suite": "arith", "status": "running"}))
    run = load_run(path)
    assert run.samples == [] and run.results is None
    assert "0/?" in render(summary(run))
    html = write_report(run).read_text(encoding="utf-8")
    assert embedded(html) == {"samples": []} and "No samples recorded yet" in html


def test_report_is_one_file_with_metrics_and_samples(finished: Path) -> None:
    out = write_report(load_run(finished))
    assert out == finished / "report.html"
    html = out.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    assert "numeric/accuracy" in html and "0.333" in html and "model_error" in html
    assert not re.search(r"""(src|href)=["']?https?:""", html)  # no network resources
    data = embedded(html)["samples"]
    assert [(s["id"], s["verdict"]) for s in data] == [("q1", "pass"), ("q2", "fail"), ("q3", "error")]
    q2 = data[1]
    assert q2["scores"][0]["explanation"] == "|5 - 4| > tolerance" and '"question": "q q2"' in q2["input"]
    assert [e[0] for e in q2["trace"]] == ["node_start", "model_call", "tool_call", "node_end"]
    assert "calculator" in q2["trace"][2][2] and q2["trace"][3][1] == 0.3
    assert data[2]["error"] == "ModelError: boom" and data[2]["error_kind"] == "model_error"


def test_model_output_cannot_close_the_script_block(tmp_path: Path) -> None:
    evil = '</script><script>alert(1)</script><!-- <b onload="x">&amp;'
    sample = make_sample("</script>x", output=evil)
    sample.scores["numeric"]["explanation"] = evil
    path = write_run(tmp_path / "r", [sample], record={"suite": "<i>suite</i>", "model": "<b>m</b>"})
    html = write_report(load_run(path)).read_text(encoding="utf-8")
    assert html.count("</script>") == 2  # the data block's and the code block's closing tags only
    assert "<script>alert" not in html and "<i>suite</i>" not in html and "<b>m</b>" not in html
    assert "&lt;i&gt;suite&lt;/i&gt;" in html
    data = embedded(html)["samples"][0]
    assert data["output"] == evil and data["id"] == "</script>x" and data["scores"][0]["explanation"] == evil
    assert "innerHTML" not in html  # the page builds samples from text nodes only


def test_embed_json_round_trips() -> None:
    value = {"a": "</script><!--&\u2028", "b": [1, 2.5, None, True]}
    text = embed_json(value)
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == value


def test_images_inlined_within_budget_and_linked_beyond(tmp_path: Path) -> None:
    path = tmp_path / "r"
    art = path / "artifacts" / "q1#1"
    art.mkdir(parents=True)
    (art / "render.png").write_bytes(PNG)
    (art / "plot.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')
    (art / "big.png").write_bytes(PNG + b"\0" * IMAGE_BYTES)
    (art / "part.step").write_text("ISO-10303-21;")
    rels = [f"artifacts/q1#1/{n}" for n in ("render.png", "plot.svg", "big.png", "part.step", "gone.png")]
    write_run(path, [make_sample("q1", artifacts=[*rels, "../../etc/passwd"])])
    html = write_report(load_run(path)).read_text(encoding="utf-8")
    arts = embedded(html)["samples"][0]["artifacts"]
    assert arts[0]["data"] == "data:image/png;base64," + base64.b64encode(PNG).decode()
    assert arts[1]["data"].startswith("data:image/svg+xml;base64,")
    assert "data" not in arts[2] and arts[2]["image"] and arts[2]["href"] == "./artifacts/q1%23/big.png".replace(
        "%23/", "%231/")
    assert "data" not in arts[3] and arts[3]["href"].endswith("part.step")
    assert arts[4]["missing"] and arts[5]["missing"] and "href" not in arts[5]
    # a report written elsewhere links artifacts relative to itself
    elsewhere = write_report(load_run(path), tmp_path / "out" / "rep.html").read_text(encoding="utf-8")
    assert embedded(elsewhere)["samples"][0]["artifacts"][3]["href"] == "../r/artifacts/q1%231/part.step"


def test_long_fields_and_traces_are_truncated(tmp_path: Path) -> None:
    sample = make_sample("q1", output={"answer": "x" * (FIELD_CHARS * 3)})
    events = [{"t": 1000.0 + i, "type": "node_start", "node": f"n{i}", "sample": "q1#1"}
              for i in range(EVENTS_PER_SAMPLE + 50)]
    path = write_run(tmp_path / "r", [sample], events=events)
    html = write_report(load_run(path)).read_text(encoding="utf-8")
    data = embedded(html)["samples"][0]
    assert len(data["output"]) < FIELD_CHARS + 100 and "truncated" in data["output"]
    assert len(data["trace"]) == EVENTS_PER_SAMPLE and data["trace_dropped"] == 50
    assert "traces to 200 events" in html


def test_large_run_builds_fast_and_renders_one_page(tmp_path: Path) -> None:
    n = 5000
    samples = [make_sample(f"s{i:05d}", passed=i % 3 != 0) if i % 50 else make_sample(f"s{i:05d}", passed=None)
               for i in range(n)]
    events = [e for s in samples for e in trace(s.key)]
    path = write_run(tmp_path / "r", samples, results_for(samples), events=events)
    start = time.perf_counter()
    out = write_report(load_run(path))
    took = time.perf_counter() - start
    assert took < 10, f"report for {n} samples took {took:.1f} s"
    html = out.read_text(encoding="utf-8")
    assert len(html) < 40_000_000
    assert len(embedded(html)["samples"]) == n
    assert PAGE_SIZE == 50 and "var PAGE_SIZE = 50;" in html
    # nothing is rendered statically: the samples container is empty until the script fills one page
    assert '<div id="samples"></div>' in html and html.count('class="sample"') == 0
    assert "state.shown.slice(start, start + PAGE_SIZE)" in html


DOM_SHIM = r"""
class El {
  constructor(tag) { this.tagName = tag; this.children = []; this.attrs = {}; this.listeners = {}; this._text = "";
    this.className = ""; this.open = false; this.offsetTop = 0; const self = this;
    this.classList = {toggle(c, on) { const s = new Set(self.className.split(" ").filter(Boolean));
      on ? s.add(c) : s.delete(c); self.className = [...s].join(" "); }}; }
  appendChild(c) { if (c.fragment) { this.children.push(...c.children); c.children = []; } else this.children.push(c);
    return c; }
  replaceChildren(...cs) { this.children = []; cs.forEach(c => this.appendChild(c)); }
  set textContent(v) { this._text = String(v); this.children = []; }
  get textContent() { return this._text + this.children.map(c => c.textContent).join(""); }
  addEventListener(t, f) { (this.listeners[t] = this.listeners[t] || []).push(f); }
  fire(t, ev) { (this.listeners[t] || []).forEach(f => f(ev || {target: this})); }
  getAttribute(k) { return k in this.attrs ? this.attrs[k] : null; }
  find(pred, out = []) { if (pred(this)) out.push(this); this.children.forEach(c => c.find && c.find(pred, out));
    return out; }
}
const byId = {"pw-data": new El("script"), samples: new El("div"), search: new El("input")};
byId["pw-data"]._text = require("fs").readFileSync(process.argv[2], "utf8");
const mk = (attr, v) => { const b = new El("button"); b.attrs[attr] = v; return b; };
const filters = ["all", "pass", "fail", "error"].map(f => mk("data-filter", f));
const gos = [0, 1].flatMap(() => ["first", "prev", "next", "last"].map(g => mk("data-go", g)));
const infos = [new El("span"), new El("span")];
global.document = {getElementById: id => byId[id], createElement: t => new El(t),
  createTextNode: t => { const n = new El("#text"); n._text = String(t); return n; },
  createDocumentFragment: () => { const f = new El("#fragment"); f.fragment = true; return f; },
  querySelectorAll: s => s === ".pageinfo" ? infos : s === "[data-go]" ? gos : s === "[data-filter]" ? filters : []};
global.window = {scrollTo() {}};
global.setTimeout = f => { f(); return 0; };
global.clearTimeout = () => {};
require(process.argv[3]);
const list = byId.samples, out = {};
const snap = name => { out[name] = {n: list.children.length, info: infos[0].textContent,
  first: list.children[0] ? list.children[0].textContent : null}; };
snap("initial");
gos[2].fire("click"); snap("next");
gos[3].fire("click"); snap("last");
filters[3].fire("click"); snap("errors"); filters[0].fire("click");
byId.search.fire("input", {target: {value: "S00007"}}); snap("search");
byId.search.fire("input", {target: {value: "no such thing"}}); snap("nothing");
byId.search.fire("input", {target: {value: ""}}); filters[0].fire("click");
const d = list.children[0]; d.open = true; d.fire("toggle");
out.body = d.textContent;
out.imgs = d.find(n => n.tagName === "img").map(n => n.src);
out.links = d.find(n => n.tagName === "a").map(n => n.href);
console.log(JSON.stringify(out));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run the report's script")
def test_report_script_pages_filters_and_opens_samples(tmp_path: Path) -> None:
    art = tmp_path / "r" / "artifacts" / "s00000#1"
    art.mkdir(parents=True)
    (art / "render.png").write_bytes(PNG)
    samples = [make_sample(f"s{i:05d}", passed=i % 2 == 0) if i % 10 else make_sample(f"s{i:05d}", passed=None)
               for i in range(120)]
    samples[0].artifacts = ["artifacts/s00000#1/render.png", "artifacts/s00000#1/gone.txt"]
    samples[0].output = "<script>alert(1)</script>"
    path = write_run(tmp_path / "r", samples, results_for(samples), events=trace("s00000#1"))
    html = write_report(load_run(path)).read_text(encoding="utf-8")
    for attr in ('data-filter="all"', 'data-filter="error"', 'data-go="next"', 'class="pageinfo"', 'id="search"'):
        assert attr in html
    (tmp_path / "data.json").write_text(re.search(r'id="pw-data">(.*?)</script>', html, re.S).group(1))  # type: ignore[union-attr]
    (tmp_path / "page.js").write_text(re.search(r"<script>(.*?)</script>", html, re.S).group(1))  # type: ignore[union-attr]
    (tmp_path / "shim.js").write_text(DOM_SHIM)
    proc = subprocess.run(["node", str(tmp_path / "shim.js"), str(tmp_path / "data.json"), str(tmp_path / "page.js")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["initial"]["n"] == PAGE_SIZE and out["initial"]["info"] == "120 samples · page 1 of 3"
    assert out["initial"]["first"].startswith("errors00000")
    assert out["next"]["info"].endswith("page 2 of 3") and out["next"]["first"].startswith("errors00050")
    assert out["last"]["n"] == 20
    assert out["errors"]["n"] == 12 and out["errors"]["info"] == "12 samples · page 1 of 1"
    assert out["search"]["n"] == 1 and "s00007" in out["search"]["first"]
    assert out["nothing"]["n"] == 1 and out["nothing"]["first"] == "No sample matches."
    body = out["body"]
    assert "Input" in body and '"question": "q s00000"' in body and "ModelError: boom" in body
    assert "tool_call" in body and "calculator" in body
    assert out["imgs"] == ["data:image/png;base64," + base64.b64encode(PNG).decode()]
    assert "gone.txt (missing)" in body and out["links"] == ["./artifacts/s00000%231/render.png"]


def test_audio_artifacts_get_a_player_inline_or_linked(tmp_path: Path) -> None:
    """AgentSteerTTS's renders: a small WAV is inlined as audio/wav, one over the budget is played from its link."""
    from paperworks.eval.view import AUDIO_BYTES

    path = tmp_path / "r"
    art = path / "artifacts" / "q1#1"
    art.mkdir(parents=True)
    wav = b"RIFF\x24\x00\x00\x00WAVEfmt " + b"\0" * 28
    (art / "best.wav").write_bytes(wav)
    (art / "long.wav").write_bytes(wav + b"\0" * AUDIO_BYTES)
    write_run(path, [make_sample("q1", artifacts=["artifacts/q1#1/best.wav", "artifacts/q1#1/long.wav"])])
    html = write_report(load_run(path)).read_text(encoding="utf-8")
    small, big = embedded(html)["samples"][0]["artifacts"]
    assert small["audio"] and small["data"] == "data:audio/wav;base64," + base64.b64encode(wav).decode()
    assert big["audio"] and "data" not in big and big["href"].endswith("long.wav")
    assert 'el("audio")' in html
