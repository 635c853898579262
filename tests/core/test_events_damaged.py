"""read_events keeps every intact event of a damaged log (views and exports read it)."""

from __future__ import annotations

import json
from pathlib import Path

from paperworks.core.events import read_events


def test_damaged_lines_are_skipped_and_intact_events_kept(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    good = [{"type": "node", "n": 1}, {"type": "model_call", "text": "é"}]
    log.write_bytes(json.dumps(good[0]).encode() + b"\n"
                    + b'{"type": "x", "bad": "\xff\xfe"}\n'  # not UTF-8: read with replacement, still an event
                    + b"[" * 5000 + b"]" * 5000 + b"\n"  # nested too deeply for json
                    + b"[1, 2]\n42\n"  # JSON, but not events
                    + json.dumps(good[1], ensure_ascii=False).encode() + b"\n"
                    + b'{"type": "torn')
    events = read_events(log)
    assert [e["type"] for e in events] == ["node", "x", "model_call"]
    assert events[0] == good[0] and events[2] == good[1]
    assert events[1]["bad"] == "\ufffd\ufffd"


def test_a_missing_log_or_a_folder_in_its_place_has_no_events(tmp_path: Path) -> None:
    assert read_events(tmp_path / "none.jsonl") == []
    (tmp_path / "dir.jsonl").mkdir()
    assert read_events(tmp_path / "dir.jsonl") == []
