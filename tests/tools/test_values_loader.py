"""Reading real-survey-shaped files through a mapping: CSV, Stata and SPSS; one line per bad mapping
row, missing column or bad cell; the synthetic population round-trips through the same loader."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from paperworks.tools.values.errors import ValuesDataError
from paperworks.tools.values.loader import load_survey
from paperworks.tools.values.mapping import load_mapping, mapping_for, normalise_cell, parse_rule, write_mapping
from paperworks.tools.values.survey import SurveyData
from paperworks.tools.values.synth import generate_population
from tests.fixtures.values import HEADER, MAPPING, WVS_ROWS, write_wvs_like

EXPECTED_1002 = {"country": "276", "region": "Europe", "age": 61, "sex": "male", "education": "secondary",
                 "income": 4, "religiosity": "moderate", "urban": "rural"}


def _check(survey: SurveyData) -> None:
    assert [r.id for r in survey] == ["1001", "1002", "1003", "1004", "1005"]
    assert survey.respondent("1002").demographics == EXPECTED_1002
    assert survey.respondent("1002").answers == {"Q57": 0, "Q164": 1, "Q170": 1, "Q235": 1}
    assert survey.respondent("1001").answers == {"Q57": 1, "Q164": 0, "Q170": 0, "Q235": 0}
    # 1004: education -1 and Q57 -2 and Q170 -1 are missing codes: absent, not 0
    assert "education" not in survey.respondent("1004").demographics
    assert survey.respondent("1004").answers == {"Q164": 1, "Q235": 0}
    assert survey.respondent("1005").answers == {"Q57": 1, "Q164": 0, "Q170": 0}  # Q235 -4: missing
    assert survey.items["Q57"].class_id == "generalized_trust" and survey.items["Q57"].choices == ("trusted", "careful")
    assert survey.items["Q235"].text == "Item Q235" and survey.items["Q235"].choices == ("good", "bad")
    assert survey.field("age").range == (18.0, 90.0) and survey.field("education").levels == (
        "primary", "secondary", "tertiary")


def test_wvs_like_csv_is_mapped_to_the_taxonomy(tmp_path: Path) -> None:
    data, mapping = write_wvs_like(tmp_path)
    _check(load_survey(data, mapping))


def test_comma_separated_csv_too(tmp_path: Path) -> None:
    data, mapping = write_wvs_like(tmp_path, delimiter=",")
    _check(load_survey(data, mapping))


def _frame() -> Any:
    pd = pytest.importorskip("pandas")
    return pd.DataFrame(WVS_ROWS, columns=HEADER).astype(int)


def test_stata_file(tmp_path: Path) -> None:
    _, mapping = write_wvs_like(tmp_path)
    path = tmp_path / "wvs7_sample.dta"
    _frame().to_stata(path, write_index=False)
    _check(load_survey(path, mapping))


def test_spss_file(tmp_path: Path) -> None:
    pyreadstat = pytest.importorskip("pyreadstat")
    _, mapping = write_wvs_like(tmp_path)
    path = tmp_path / "wvs7_sample.sav"
    pyreadstat.write_sav(_frame(), str(path))
    _check(load_survey(path, mapping))


BAD_MAPPING = MAPPING.replace('class: generalized_trust, rule: "== 1"', 'class: generalised_trust, rule: "== 1"') \
    .replace('rule: ">= 8"', 'rule: "at least 8"') \
    .replace("class: strong_leader_support, rule", "class: strong_leader_support, key: 0, rule") \
    .replace("  age: {column: Q262, kind: numeric, range: [18, 90]}", "  age: {column: Q262, kind: number}")
BAD_MAPPING += "  - {code: Q57, class: generalized_trust, rule: \"== 1\"}\n"
BAD_MAPPING += "  - {code: Q58, class: generalized_trust, rule: \"== 1\", choices: [yes, no]}\n"


def test_each_bad_mapping_row_is_one_line(tmp_path: Path) -> None:
    _, mapping = write_wvs_like(tmp_path, mapping=BAD_MAPPING)
    with pytest.raises(ValuesDataError) as info:
        load_mapping(mapping)
    lines = info.value.problems
    assert len(lines) == 6 and str(info.value).splitlines() == lines
    assert lines[0] == (f"{mapping}:7: demographics.age: field 'kind': expected one of categorical, numeric, ordinal, "
                        "got 'number' (did you mean 'numeric'?)")
    assert lines[1] == (f"{mapping}:17: row 1 (code 'Q57'): field 'class': expected a taxonomy subclass id, got "
                        "'generalised_trust' (did you mean 'generalized_trust'?)")
    assert lines[2] == (f"{mapping}:18: row 2 (code 'Q164'): field 'rule': expected '== v', '!= v', '< v', '<= v', "
                        "'> v', '>= v' or 'in v1,v2', got 'at least 8'")
    assert lines[3] == f"{mapping}:20: row 4 (code 'Q235'): field 'key': expected 1 or -1, got 0"
    assert lines[4] == f"{mapping}:21: row 5 (code 'Q57'): field 'code': expected a unique code, got 'Q57' (also row 1)"
    assert lines[5] == (f"{mapping}:22: row 6 (code 'Q58'): field 'choices': expected two different choice texts, got "
                        "[True, False] (quote yes/no: YAML reads them as booleans)")


def test_missing_columns_are_one_line_each(tmp_path: Path) -> None:
    rows = [r[:8] + r[9:11] for r in WVS_ROWS]  # drop Q57 and Q235
    data, mapping = write_wvs_like(tmp_path, rows=rows)
    data.write_text(data.read_text().replace("Q57;", "").replace(";Q235", "", 1))
    with pytest.raises(ValuesDataError) as info:
        load_survey(data, mapping)
    assert info.value.problems == [
        f"{data}: column 'Q57' ({mapping}:17 items[0], class generalized_trust) is not in the file",
        f"{data}: column 'Q235' ({mapping}:20 items[3], class strong_leader_support) is not in the file",
    ]


def test_bad_cells_are_one_line_each(tmp_path: Path) -> None:
    rows = [list(r) for r in WVS_ROWS]
    rows[1][2] = "sixty"       # age
    rows[2][3] = "3"           # sex: not a listed code
    rows[4][0] = "1001"        # duplicate id
    data, mapping = write_wvs_like(tmp_path, rows=rows)
    with pytest.raises(ValuesDataError) as info:
        load_survey(data, mapping)
    assert info.value.problems == [
        f"{data}: row 2 (id 1002): column 'Q262' (demographic age): expected a number, got 'sixty'",
        f"{data}: row 3 (id 1003): column 'Q260' (demographic sex): expected one of the codes 1, 2 (or a missing "
        "code), got '3'",
        f"{data}: row 5: column 'D_INTERVIEW': expected a unique id, got '1001' (also row 1)",
    ]


def test_unknown_file_type_and_missing_file(tmp_path: Path) -> None:
    _, mapping = write_wvs_like(tmp_path)
    (tmp_path / "data.xlsx").write_text("x")
    with pytest.raises(ValuesDataError, match=r"data.xlsx: unknown survey file type '.xlsx'"):
        load_survey(tmp_path / "data.xlsx", mapping)
    with pytest.raises(ValuesDataError, match="nothing.csv: no such file"):
        load_survey(tmp_path / "nothing.csv", mapping)


@pytest.mark.parametrize(("rule", "cells", "want"), [
    ("== 1", ["1", "1.0", "2", "x"], [True, True, False, False]),
    ("!= 1", ["1", "2"], [False, True]),
    ("<= 5", ["5", "5.5", "-3", "x"], [True, False, True, False]),
    ("> 7", ["8", "7"], [True, False]),
    ("in 1,2", ["1", "2", "3"], [True, True, False]),
    ("== yes", ["yes", "no"], [True, False]),
])
def test_rules(rule: str, cells: list[str], want: list[bool]) -> None:
    parsed = parse_rule(rule)
    assert [parsed.holds(normalise_cell(c)) for c in cells] == want


def test_bad_rules_name_the_accepted_forms() -> None:
    for bad in ("equals 1", "==", "in ,", None):
        with pytest.raises(ValueError, match="expected '== v', '!= v'"):
            parse_rule(bad)


def test_the_synthetic_population_round_trips(tmp_path: Path) -> None:
    survey = generate_population(3, seed=11).survey()
    survey.write_csv(tmp_path / "pop.csv")
    write_mapping(mapping_for(survey, "synthetic"), tmp_path / "mapping.yaml")
    back = load_survey(tmp_path / "pop.csv", tmp_path / "mapping.yaml")
    assert back.respondents == survey.respondents
    assert back.items == survey.items and back.schema == survey.schema
