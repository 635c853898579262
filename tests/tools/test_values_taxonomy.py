"""The value taxonomy: the packaged 76 classes, and one clear line per bad row of a taxonomy file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from paperworks.tools.values.errors import ValuesDataError
from paperworks.tools.values.taxonomy import load_taxonomy

PER_DOMAIN = {"social_values": 6, "wellbeing": 5, "social_capital": 6, "economic_values": 6, "corruption": 5,
              "migration": 5, "security": 5, "science_technology": 5, "religious_values": 6, "ethical_values": 5,
              "political_participation": 5, "political_culture": 5}


def test_packaged_taxonomy_has_12_domains_and_64_subclasses() -> None:
    t = load_taxonomy()
    assert (len(t), len(t.domains), len(t.subclasses)) == (76, 12, 64)
    assert {d.id: len(t.subclasses_of(d.id)) for d in t.domains} == PER_DOMAIN
    assert len({c.id for c in t}) == 76 and len({c.name for c in t}) == 76
    assert t.domain_of("religious_exclusivism") == "religious_values"
    assert t.get("outgroup_tolerance").name == "Outgroup Tolerance"
    assert all(len(c.description) >= 40 for c in t)
    with pytest.raises(KeyError, match="did you mean 'outgroup_tolerance'"):
        t.get("outgroup_tolerence")


BAD = """\
version: "1"
classes:
  - {id: values, name: Values, kind: domain, domain: values, description: A domain that is described well enough.}
  - {id: trust, name: Trust, kind: subclass, domain: valuez, description: Trust in most people one meets daily.}
  - {id: trust, name: Trust again, kind: subclass, domain: values, description: A second row with the same id.}
  - {id: Pride, name: Pride, kind: subclass, domain: values, description: Pride in being a citizen of a country.}
  - {id: luck, name: Luck, kind: subclas, domain: values, description: Believing that success comes from luck.}
  - {id: work, name: Work, kind: subclass, domain: values, description: short}
  - {id: order, name: Order, kind: subclass, domain: values}
  - {id: fame, name: Fame, kind: subclass, domain: values, description: Wanting to be known widely., colour: red}
  - {id: ok_one, name: Fine, kind: subclass, domain: values, description: A valid row among the broken ones.}
"""


def test_each_bad_row_is_one_line_naming_file_line_row_field_and_expectation(tmp_path: Path) -> None:
    path = tmp_path / "taxonomy.yaml"
    path.write_text(BAD)
    with pytest.raises(ValuesDataError) as info:
        load_taxonomy(path)
    lines = str(info.value).splitlines()
    assert lines == info.value.problems and len(lines) == 7  # one per bad row, the two good rows silent
    assert lines[0] == (f"{path}:4: row 2 (id 'trust'): field 'domain': expected the id of a domain row, got "
                        "'valuez' (did you mean 'values'?)")
    assert lines[1] == f"{path}:5: row 3 (id 'trust'): field 'id': expected a unique id, got 'trust' (also row 2)"
    assert lines[2] == (f"{path}:6: row 4 (id 'Pride'): field 'id': expected lower_snake_case ([a-z][a-z0-9_]*), "
                        "got 'Pride'")
    assert lines[3] == (f"{path}:7: row 5 (id 'luck'): field 'kind': expected 'domain' or 'subclass', got 'subclas' "
                        "(did you mean 'subclass'?)")
    assert lines[4] == f"{path}:8: row 6 (id 'work'): field 'description': expected at least 20 characters, got 5"
    assert lines[5].startswith(f"{path}:9: row 7 (id 'order'): field 'description': expected a value")
    assert lines[6].startswith(f"{path}:10: row 8 (id 'fame'): field 'colour': unknown field")


def test_file_level_problems_are_one_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("classes:\n  - {id: a, name: [unclosed\n")
    with pytest.raises(ValuesDataError, match=r"broken.yaml:\d+: invalid YAML") as info:
        load_taxonomy(broken)
    assert len(str(info.value).splitlines()) == 1
    (tmp_path / "nolist.yaml").write_text("version: 1\n")
    with pytest.raises(ValuesDataError, match="expected a mapping with a 'classes' list"):
        load_taxonomy(tmp_path / "nolist.yaml")
    with pytest.raises(ValuesDataError, match="cannot read the file"):
        load_taxonomy(tmp_path / "missing.yaml")


def test_content_hash_follows_the_text(tmp_path: Path) -> None:
    text = Path(load_taxonomy().source).read_text()
    (tmp_path / "a.yaml").write_text(text)
    (tmp_path / "b.yaml").write_text(text.replace("Pride in being a citizen", "Pride in being a member"))
    a, b = load_taxonomy(tmp_path / "a.yaml"), load_taxonomy(tmp_path / "b.yaml")
    assert a.content_hash() == load_taxonomy().content_hash() != b.content_hash()


def test_the_package_imports_lazily_and_never_imports_the_llm_stack() -> None:
    code = ("import sys, paperworks.tools.values as v; heavy = ('numpy', 'rdflib', 'pandas', 'torch'); "
            "print([m for m in heavy if m in sys.modules]); v.load_taxonomy(); "
            "print([m for m in heavy if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True).stdout
    assert out.split("\n")[:2] == ["[]", "[]"]
    package = Path(__file__).resolve().parents[2] / "paperworks" / "tools" / "values"
    for path in package.rglob("*.py"):
        lines = [ln.strip() for ln in path.read_text().splitlines()]
        assert not [ln for ln in lines if ln.startswith(("import langgraph", "from langgraph", "import litellm",
                                                         "from litellm"))], path
