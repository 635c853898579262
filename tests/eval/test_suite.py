"""Suites: the real ones load; every malformed suite or row is one line naming file, line and field."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from pydantic import BaseModel

from paperworks.core.errors import UserError
from paperworks.eval.suite import find_suite, list_suites, load_suite
from paperworks.workflows.registry import WorkflowSpec
from tests.conftest import ROOT

# line:  1        2                3                4           5       6                   7
BASE = 'name: s\nworkflow: agent\ndata: data.jsonl\nid_field: id\ninput:\n  task: "{question}"\ntarget: answer\n'
SCORERS = "scorers: numeric\n"  # line 8
GOOD_ROW = '{"id": "q1", "question": "What is 2 + 2?", "answer": 4}\n'


def make_suite(root: Path, suite_yaml: str, data: str | None = GOOD_ROW, name: str = "s") -> Path:
    """A suite folder ``root/name`` with the given suite.yaml and data.jsonl (None: no data file)."""
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "suite.yaml").write_text(suite_yaml, encoding="utf-8")
    if data is not None:
        (folder / "data.jsonl").write_text(data, encoding="utf-8")
    return folder


def test_arith_suite_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # sources are shown relative to the current directory
    suite = load_suite("arith")
    assert suite.name == "arith" and suite.spec.workflow == "agent"
    assert len(suite.samples) >= 60
    assert [s.name for s in suite.spec.scorers] == ["numeric"]
    assert suite.spec.scorers[0].args == {"rel_tol": 1e-6}
    assert suite.spec.config["max_steps"] == 4 and suite.spec.limits.tokens == 6000
    assert suite.spec.limits.working_time_s == 120  # queueing for the shared model is not working time
    first = suite.samples[0]
    assert first.id == "arith-001" and first.source == "paperworks/suites/arith/data.jsonl:1"
    assert first.input["task"].endswith("reply with just the final number.")
    assert "{question}" not in first.input["task"]
    assert all(isinstance(s.target, int | float) and not isinstance(s.target, bool) for s in suite.samples)
    assert any(isinstance(s.target, float) for s in suite.samples)
    categories = {s.metadata["category"] for s in suite.samples}
    assert {"shopping", "rates", "area", "percentages", "splitting", "conversions"} <= categories
    assert len({s.id for s in suite.samples}) == len(suite.samples)


def test_arith_generator_reproduces_the_committed_data() -> None:
    spec = importlib.util.spec_from_file_location("make_arith_suite", ROOT / "scripts" / "make_arith_suite.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    committed = (ROOT / "evals" / "arith" / "data.jsonl").read_text(encoding="utf-8")
    assert module.render(module.generate()) == committed


def test_judged_suite_loads() -> None:
    suite = load_suite("explain")
    assert [s.name for s in suite.spec.scorers] == ["judge"]
    assert suite.spec.scorers[0].args == {"rubric_field": "rubric"}
    assert 10 <= len(suite.samples) <= 20
    for sample in suite.samples:
        assert sample.input["task"] and sample.target == sample.metadata["rubric"]
        assert sample.metadata["topic"]


def test_templates_render_text_and_keep_types(tmp_path: Path) -> None:
    suite_yaml = ('name: t\nworkflow: agent\ndata: [a.jsonl, b.jsonl]\n'
                  'input:\n  task: "Q: {question} ({meta[level]})"\n'
                  'target: "answer"\nmetadata: level\nscorers:\n  - includes\n'
                  '  - name: exact\n    args: {case_sensitive: false}\n'
                  'version: 2\nepochs: 3\nlimits: {time_s: 5}\n')
    folder = make_suite(tmp_path, suite_yaml, data=None, name="t")
    (folder / "a.jsonl").write_text('\n{"question": "1+1", "answer": [2, 3], "meta": {"level": "easy"}, "level": 1}\n')
    (folder / "b.jsonl").write_text('{"question": "{x}", "answer": 2.5, "meta": {"level": "hard"}, "level": 2}\n')
    suite = load_suite(str(folder / "suite.yaml"))
    assert [s.id for s in suite.samples] == ["a-2", "b-1"]
    assert suite.samples[0].input == {"task": "Q: 1+1 (easy)"}
    assert suite.samples[1].input == {"task": "Q: {x} (hard)"}  # braces in a value are not re-expanded
    assert suite.samples[0].target == [2, 3] and suite.samples[1].target == 2.5
    assert suite.samples[0].metadata == {"level": 1}
    assert [(s.name, s.args) for s in suite.spec.scorers] == [("includes", {}), ("exact", {"case_sensitive": False})]
    assert suite.spec.version == "2" and suite.spec.epochs == 3 and suite.spec.limits.time_s == 5.0
    assert suite.spec.metrics == ["accuracy"] and suite.spec.answer_field == "answer"


class TypedInput(BaseModel):
    """A workflow input with non-text fields, to show that a bare "{col}" keeps the column's type."""

    numbers: list[int]
    scale: float
    label: str


TYPED = WorkflowSpec(name="typed", description="test only", build_graph=lambda config: None,
                     input_model=TypedInput, make_state=lambda inp: {}, output=lambda state: state)


def test_bare_template_keeps_the_column_type(tmp_path: Path) -> None:
    suite_yaml = ('name: s\nworkflow: "tests.eval.test_suite:TYPED"\ndata: data.jsonl\nid_field: id\n'
                  'input:\n  numbers: "{xs}"\n  scale: 0.5\n  label: "{xs[0]}-{name}"\n'
                  'metadata: [extra]\nscorers: [judge]\n')  # no target: a judge grades it
    folder = make_suite(tmp_path, suite_yaml,
                        data='{"id": 7, "xs": [3, 4], "name": "n", "extra": {"a": [1, 2]}}\n')
    suite = load_suite(str(folder))
    sample = suite.samples[0]
    assert sample.id == "7" and sample.target is None and sample.metadata == {"extra": {"a": [1, 2]}}
    assert sample.input == {"numbers": [3, 4], "scale": 0.5, "label": "3-n"}
    assert suite.spec.workflow == "tests.eval.test_suite:TYPED"


def test_select_by_limit_and_ids(tmp_path: Path) -> None:
    rows = "".join(f'{{"id": "q{i}", "question": "x{i}", "answer": {i}}}\n' for i in range(1, 6))
    suite = load_suite(str(make_suite(tmp_path, BASE + SCORERS, data=rows)))
    assert [s.id for s in suite.select()] == ["q1", "q2", "q3", "q4", "q5"]
    assert [s.id for s in suite.select(limit=2)] == ["q1", "q2"]
    assert [s.id for s in suite.select(sample_ids=["q4", "q2"])] == ["q2", "q4"]  # suite order
    assert [s.id for s in suite.select(limit=1, sample_ids=["q5", "q3"])] == ["q3"]
    assert [s.id for s in suite.select(limit=99)] == [s.id for s in suite.samples]
    with pytest.raises(UserError, match=r"suite 's' has no sample 'q9', 'nope' \(ids look like 'q1'\)"):
        suite.select(sample_ids=["q1", "q9", "nope"])
    with pytest.raises(UserError, match="limit must be >= 1"):
        suite.select(limit=0)


def test_find_suite_by_name_path_and_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    arith = (ROOT / "evals" / "arith").resolve()
    assert find_suite("arith") == arith
    assert find_suite(str(arith)) == arith and find_suite(str(arith / "suite.yaml")) == arith
    with pytest.raises(UserError, match=r"^unknown suite 'nosuch' \(looked in .*evals/.*\); known: .*arith.*explain"):
        find_suite("nosuch")
    with pytest.raises(UserError, match="no suite.yaml in this folder"):
        find_suite(str(tmp_path))
    make_suite(tmp_path / "extra", BASE.replace("name: s", "name: mine") + SCORERS, name="mine")
    make_suite(tmp_path / "extra", "name: [\n", name="broken")
    monkeypatch.setenv("PAPERWORKS_EVALS_DIR", str(tmp_path / "extra"))
    assert find_suite("mine") == (tmp_path / "extra" / "mine").resolve()
    listed = dict(list_suites())
    assert {"arith", "explain", "mine", "broken"} <= set(listed)
    assert len(getattr(listed["mine"], "samples", [])) == 1
    assert isinstance(listed["broken"], str) and "broken/suite.yaml:2: invalid YAML" in listed["broken"]


MALFORMED = [
    # (id, suite.yaml, data.jsonl, the message expected)
    ("yaml-syntax", BASE + "scorers: [numeric\n", GOOD_ROW,
     "s/suite.yaml:9: invalid YAML (expected ',' or ']', but got '<stream end>' at column 1)"),
    ("yaml-not-mapping", "- name: s\n", GOOD_ROW,
     "s/suite.yaml: expected a mapping of fields (name, workflow, data ...), got an array"),
    ("duplicate-yaml-field", BASE + SCORERS + "target: other\n", GOOD_ROW,
     "s/suite.yaml:9: duplicate field 'target' (first at line 7)"),
    ("unknown-field-typo", BASE + "scorer: numeric\n", GOOD_ROW,
     "s/suite.yaml:8: unknown field 'scorer' (did you mean 'scorers'?)"),
    ("unknown-nested-field", BASE + "scorers:\n  - name: numeric\n    arg: {rel_tol: 0.1}\n", GOOD_ROW,
     "s/suite.yaml:10: unknown field 'scorers[0].arg' (did you mean 'args'?)"),
    ("missing-field", BASE.replace("workflow: agent\n", "") + SCORERS, GOOD_ROW,
     "s/suite.yaml: missing field 'workflow' (expected a workflow name such as 'agent')"),
    ("epochs-zero", BASE + SCORERS + "epochs: 0\n", GOOD_ROW,
     "s/suite.yaml:9: field 'epochs': expected an integer >= 1, got 0"),
    ("limits-wrong-type", BASE + SCORERS + "limits:\n  time_s: 10\n  tokens: many\n", GOOD_ROW,
     "s/suite.yaml:11: field 'limits.tokens': expected an integer > 0 (or null), got 'many'"),
    ("name-not-folder", BASE.replace("name: s", "name: other") + SCORERS, GOOD_ROW,
     "s/suite.yaml:1: field 'name': expected the folder name 's', got 'other'"),
    ("unknown-workflow", BASE.replace("workflow: agent", "workflow: nosuch") + SCORERS, GOOD_ROW,
     "s/suite.yaml:2: field 'workflow': unknown workflow 'nosuch'; known: agent"),
    ("bad-workflow-config", BASE + SCORERS + "config: {max_steps: 0}\n", GOOD_ROW,
     "s/suite.yaml:9: field 'config': setting 'max_steps': Input should be greater than or equal to 1"),
    ("input-field-not-in-workflow", BASE.replace("  task:", "  prompt:") + SCORERS, GOOD_ROW,
     "s/suite.yaml:6: field 'input.prompt': workflow 'agent' has no input field 'prompt' (its fields: task)"),
    ("bad-template", BASE.replace('"{question}"', '"Q: {question"') + SCORERS, GOOD_ROW,
     "s/suite.yaml:6: field 'input.task': invalid template 'Q: {question' (expected '}' before end of string"),
    ("missing-data-file", BASE.replace("data.jsonl", "missing.jsonl") + SCORERS, GOOD_ROW,
     "s/suite.yaml:3: field 'data': data file 'missing.jsonl' does not exist"),
    ("empty-data-file", BASE + SCORERS, "\n\n",
     "s/data.jsonl: no rows (the file is empty; expected one JSON object per line)"),
    ("invalid-json", BASE + SCORERS, GOOD_ROW + '\n{"id": "q2" "question": "x"}\n',
     "s/data.jsonl:3: invalid JSON (Expecting ',' delimiter at column 13)"),
    ("row-not-object", BASE + SCORERS, GOOD_ROW + '["q2", "x", 1]\n',
     "s/data.jsonl:2: expected a JSON object, got an array"),
    ("template-field-missing", BASE + SCORERS, GOOD_ROW + '{"id": "q2", "answer": 1}\n',
     "s/data.jsonl:2: input template '{question}' needs field 'question', which the row lacks"),
    ("duplicate-id", BASE + SCORERS, GOOD_ROW + '\n\n{"id": "q1", "question": "again", "answer": 1}\n',
     "s/data.jsonl:4: duplicate sample id 'q1' (first at line 1)"),
    ("id-missing", BASE + SCORERS, GOOD_ROW + '{"question": "x", "answer": 1}\n',
     "s/data.jsonl:2: the row lacks the id field 'id'"),
    ("target-missing", BASE + SCORERS, GOOD_ROW + '{"id": "q2", "question": "x"}\n',
     "s/data.jsonl:2: the row lacks the target column 'answer'"),
    ("metadata-missing", BASE + SCORERS + "metadata: [category]\n",
     '{"id": "q1", "question": "x", "answer": 1, "category": "a"}\n{"id": "q2", "question": "x", "answer": 1}\n',
     "s/data.jsonl:2: the row lacks the metadata column 'category'"),
    ("group-by-not-metadata", BASE + SCORERS + "metadata: [category]\ngroup_by: [level, categry]\n",
     '{"id": "q1", "question": "x", "answer": 1, "category": "a"}\n',
     "s/suite.yaml:10: field 'group_by': 'level' is not a metadata column; group_by names columns kept under "
     "metadata (metadata: category)"),
    ("group-by-typo", BASE + SCORERS + "metadata: [category]\ngroup_by: categry\n",
     '{"id": "q1", "question": "x", "answer": 1, "category": "a"}\n',
     "s/suite.yaml:10: field 'group_by': 'categry' is not a metadata column; group_by names columns kept under "
     "metadata (did you mean 'category'?)"),
    ("group-by-wrong-type", BASE + SCORERS + "group_by: {level: 1}\n", GOOD_ROW,
     "s/suite.yaml:9: field 'group_by': expected a list of metadata column names such as [level, tools], "
     "got {\"level\": 1}"),
    ("group-by-twice", BASE + SCORERS + "metadata: [category]\ngroup_by: [category, category]\n",
     '{"id": "q1", "question": "x", "answer": 1, "category": "a"}\n',
     "s/suite.yaml:10: field 'group_by': 'category' is listed twice"),
    ("group-by-name-with-brackets", BASE + SCORERS + "metadata: ['lvl[x]']\ngroup_by: ['lvl[x]']\n",
     '{"id": "q1", "question": "x", "answer": 1, "lvl[x]": 1}\n',
     "s/suite.yaml:10: field 'group_by': 'lvl[x]': a group_by column's name cannot contain '[', ']' or '='"),
    ("group-by-value-not-groupable", BASE + SCORERS + "metadata: [category]\ngroup_by: [category]\n",
     '{"id": "q1", "question": "x", "answer": 1, "category": "a"}\n'
     '{"id": "q2", "question": "x", "answer": 1, "category": {"era": "early"}}\n',
     "s/data.jsonl:2: metadata column 'category' (in group_by): expected a string, number, boolean or a list "
     "of them, got {\"era\": \"early\"}"),
    ("input-fails-workflow-model", BASE + SCORERS, GOOD_ROW + '{"id": "q2", "question": "", "answer": 1}\n',
     "s/data.jsonl:2: field 'task': String should have at least 1 character (workflow 'agent')"),
]


@pytest.mark.parametrize(("suite_yaml", "data", "message"), [case[1:] for case in MALFORMED],
                         ids=[case[0] for case in MALFORMED])
def test_malformed_suite_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suite_yaml: str,
                                     data: str, message: str) -> None:
    make_suite(tmp_path, suite_yaml, data)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UserError) as info:
        load_suite("s/")
    text = str(info.value)
    assert "\n" not in text
    assert text.startswith(message), text


def test_malformed_cases_are_distinct() -> None:
    assert len({case[3].split(": ", 1)[1][:30] for case in MALFORMED}) == len(MALFORMED) >= 12


def test_messages_use_absolute_paths_when_shorter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # from here, tmp_path's relative form (../../tmp/...) is the longer one
    folder = make_suite(tmp_path, BASE + SCORERS + "epochs: 0\n")
    with pytest.raises(UserError) as info:
        load_suite(str(folder))
    assert str(info.value).startswith(f"{folder / 'suite.yaml'}:9: field 'epochs'")


def test_suites_ship_inside_the_package() -> None:
    """A wheel carries the suites as package data (pyproject's package-data); evals/ links to them."""
    import tomllib

    import paperworks
    from paperworks.eval.suite_paths import package_suites_dir

    package = Path(paperworks.__file__).resolve().parent
    assert package_suites_dir() == package / "suites"
    assert (package / "suites" / "arith" / "suite.yaml").is_file()
    root = package.parent
    assert (root / "evals").resolve() == package / "suites"
    data = tomllib.loads((root / "pyproject.toml").read_text())
    assert "suites/**/*" in data["tool"]["setuptools"]["package-data"]["paperworks"]
