"""The HTML report's page: inline CSS and vanilla JS (no network resources), and the JSON embedding.

The samples travel as JSON inside ``<script type="application/json">``; the script renders one page
of ``PAGE_SIZE`` samples at a time with DOM text nodes only (never ``innerHTML``), so model output
cannot inject markup, and a sample's details are built only when it is opened.
"""

from __future__ import annotations

import html
import json
from typing import Any

PAGE_SIZE = 50
"""Samples rendered per page of the report."""

CSS = """
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;padding:16px 24px;color:#1d1f23;
background:#fafafa}
h1{font-size:20px;margin:0 0 12px}h2{font-size:16px;margin:18px 0 6px}
table{border-collapse:collapse;margin:4px 0 8px;background:#fff}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f0f1f3}td:nth-child(n+2){font-variant-numeric:tabular-nums}
.note{color:#8a5a00;margin:4px 0}
#controls{position:sticky;top:0;background:#fafafa;padding:8px 0;border-bottom:1px solid #ddd;z-index:1;
display:flex;gap:8px;flex-wrap:wrap;align-items:center}
button{font:inherit;padding:2px 10px;border:1px solid #bbb;border-radius:4px;background:#fff;cursor:pointer}
button.on{background:#1d4ed8;color:#fff;border-color:#1d4ed8}button:disabled{opacity:.4;cursor:default}
input[type=search]{font:inherit;padding:2px 6px;min-width:260px}
details.sample{background:#fff;border:1px solid #ddd;border-radius:4px;margin:6px 0;padding:4px 10px}
details.sample>summary{cursor:pointer;display:flex;gap:10px;align-items:baseline}
.badge{display:inline-block;min-width:44px;text-align:center;border-radius:3px;padding:0 6px;font-size:12px;
color:#fff}
.pass{background:#15803d}.fail{background:#b45309}.error{background:#b91c1c}
.sid{font-family:ui-monospace,monospace;font-weight:600}.dim{color:#666;font-size:12px}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f7f9;border:1px solid #e3e3e3;padding:6px;
margin:2px 0 8px;max-height:400px;overflow:auto;font:12px/1.4 ui-monospace,monospace}
pre.err{background:#fdf0f0;border-color:#f1c4c4}
ol.trace{font:12px/1.4 ui-monospace,monospace;margin:2px 0 8px;padding-left:28px;max-height:400px;overflow:auto}
ol.trace li{white-space:pre-wrap;word-break:break-word}
.etype{display:inline-block;min-width:84px;color:#1d4ed8}
.artifacts img{max-width:480px;max-height:360px;border:1px solid #ddd;margin:4px;display:block}
h3{font-size:13px;margin:8px 0 2px;color:#444}
"""

JS = """
(function () {
  "use strict";
  var PAGE_SIZE = %(page_size)d;
  var data = JSON.parse(document.getElementById("pw-data").textContent);
  var samples = data.samples || [];
  var state = {filter: "all", query: "", page: 0, shown: samples};
  var list = document.getElementById("samples");

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function section(parent, title, text, cls) {
    if (text === null || text === undefined || text === "") return;
    parent.appendChild(el("h3", null, title));
    parent.appendChild(el("pre", cls, text));
  }
  function haystack(s) {
    if (s._hay === undefined) {
      var answers = (s.scores || []).map(function (x) { return x.answer || ""; }).join("\\n");
      s._hay = [s.id, s.input || "", s.output || "", answers].join("\\n").toLowerCase();
    }
    return s._hay;
  }
  function matches(s) {
    if (state.filter !== "all" && s.verdict !== state.filter) return false;
    return !state.query || haystack(s).indexOf(state.query) >= 0;
  }
  function scoreText(x) {
    var v = typeof x.value === "number" ? +x.value.toFixed(3) : x.value;
    return x.name + ": " + v + (x.passed === true ? " \\u2713" : x.passed === false ? " \\u2717" : "");
  }
  function fillBody(body, s) {
    section(body, "Input", s.input);
    section(body, "Target", s.target);
    section(body, "Output", s.output);
    if (s.scores.length) {
      body.appendChild(el("h3", null, "Scores"));
      var t = el("table"), head = el("tr");
      ["scorer", "value", "passed", "answer", "explanation"].forEach(function (h) {
        head.appendChild(el("th", null, h));
      });
      t.appendChild(head);
      s.scores.forEach(function (x) {
        var tr = el("tr");
        [x.name, x.value, x.passed, x.answer, x.explanation].forEach(function (c) {
          var td = el("td");
          if (c !== null && c !== undefined) td.appendChild(el("span", null, c));
          tr.appendChild(td);
        });
        t.appendChild(tr);
      });
      body.appendChild(t);
    }
    section(body, "Error" + (s.error_kind ? " (" + s.error_kind + ")" : ""), s.error, "err");
    if (s.transcript && s.transcript.length) {
      body.appendChild(el("h3", null, "Transcript"));
      var tl = el("ol", "trace");
      s.transcript.forEach(function (e) {
        var li = el("li");
        li.appendChild(el("span", "etype", e[0]));
        li.appendChild(document.createTextNode(" " + e[1]));
        tl.appendChild(li);
      });
      body.appendChild(tl);
    }
    if (s.trace.length) {
      body.appendChild(el("h3", null, "Trace (" + s.trace.length + " events" +
        (s.trace_dropped ? ", " + s.trace_dropped + " more not shown" : "") + ")"));
      var ol = el("ol", "trace");
      s.trace.forEach(function (e) {
        var li = el("li");
        li.appendChild(el("span", "etype", e[0]));
        li.appendChild(el("span", "dim", "+" + e[1] + "s "));
        li.appendChild(document.createTextNode(e[2]));
        ol.appendChild(li);
      });
      body.appendChild(ol);
    }
    if (s.artifacts.length) {
      body.appendChild(el("h3", null, "Artifacts"));
      var box = el("div", "artifacts");
      s.artifacts.forEach(function (a) {
        var item = el("div");
        if (a.data && a.data.indexOf("data:image/") === 0) {
          var img = el("img"); img.src = a.data; img.alt = a.path; item.appendChild(img);
        }
        if (a.audio && !a.missing) {
          var au = el("audio"); au.controls = true; au.preload = "none"; au.src = a.data || a.href;
          item.appendChild(au);
        }
        if (a.missing) {
          item.appendChild(el("span", "dim", a.path + " (missing)"));
        } else {
          var link = el("a", null, a.path + (a.image && !a.data ? " (image too large to inline)" : ""));
          link.href = a.href; item.appendChild(link);
        }
        box.appendChild(item);
      });
      body.appendChild(box);
    }
  }
  function renderSample(s) {
    var d = el("details", "sample"), sum = el("summary");
    sum.appendChild(el("span", "badge " + s.verdict, s.verdict));
    sum.appendChild(el("span", "sid", s.id));
    sum.appendChild(el("span", "dim", "epoch " + s.epoch));
    sum.appendChild(el("span", null, s.scores.map(scoreText).join("  ")));
    if (s.error) sum.appendChild(el("span", "dim", s.error_kind || "error"));
    sum.appendChild(el("span", "dim", (+s.time_s || 0).toFixed(2) + "s"));
    d.appendChild(sum);
    var body = el("div"), filled = false;
    d.appendChild(body);
    d.addEventListener("toggle", function () { if (d.open && !filled) { filled = true; fillBody(body, s); } });
    return d;
  }
  function pages() { return Math.max(1, Math.ceil(state.shown.length / PAGE_SIZE)); }
  function render() {
    state.page = Math.min(Math.max(0, state.page), pages() - 1);
    var start = state.page * PAGE_SIZE, frag = document.createDocumentFragment();
    state.shown.slice(start, start + PAGE_SIZE).forEach(function (s) { frag.appendChild(renderSample(s)); });
    list.replaceChildren(frag);
    if (!state.shown.length) {
      list.appendChild(el("p", "dim", samples.length ? "No sample matches." : "No samples recorded yet."));
    }
    var info = state.shown.length + " samples \\u00b7 page " + (state.page + 1) + " of " + pages();
    document.querySelectorAll(".pageinfo").forEach(function (n) { n.textContent = info; });
    document.querySelectorAll("[data-go]").forEach(function (b) {
      var go = b.getAttribute("data-go");
      b.disabled = (go === "first" || go === "prev") ? state.page === 0 : state.page >= pages() - 1;
    });
  }
  function refilter() { state.shown = samples.filter(matches); state.page = 0; render(); }

  var counts = {all: samples.length, pass: 0, fail: 0, error: 0};
  samples.forEach(function (s) { counts[s.verdict] = (counts[s.verdict] || 0) + 1; });
  document.querySelectorAll("[data-filter]").forEach(function (b) {
    var f = b.getAttribute("data-filter");
    b.textContent = f + " (" + (counts[f] || 0) + ")";
    b.addEventListener("click", function () {
      state.filter = f;
      document.querySelectorAll("[data-filter]").forEach(function (o) { o.classList.toggle("on", o === b); });
      refilter();
    });
  });
  document.querySelectorAll("[data-go]").forEach(function (b) {
    b.addEventListener("click", function () {
      var go = b.getAttribute("data-go");
      state.page = go === "first" ? 0 : go === "prev" ? state.page - 1 : go === "next" ? state.page + 1 : pages() - 1;
      render();
      window.scrollTo(0, list.offsetTop - 60);
    });
  });
  var timer = null;
  document.getElementById("search").addEventListener("input", function (ev) {
    clearTimeout(timer);
    timer = setTimeout(function () { state.query = ev.target.value.trim().toLowerCase(); refilter(); }, 200);
  });
  render();
})();
"""

_PAGER = ('<span class="pager"><button data-go="first">&laquo;</button><button data-go="prev">&lsaquo;</button> '
          '<span class="pageinfo"></span> <button data-go="next">&rsaquo;</button>'
          '<button data-go="last">&raquo;</button></span>')

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%(title)s</title>
<style>%(css)s</style>
</head>
<body>
<h1>%(title)s</h1>
%(header)s
<h2>Samples</h2>
<div id="controls">
<button class="on" data-filter="all">all</button><button data-filter="pass">pass</button>
<button data-filter="fail">fail</button><button data-filter="error">error</button>
<input id="search" type="search" placeholder="search id, input, output, answer" aria-label="search">
%(pager)s
</div>
<noscript><p class="note">The samples need JavaScript to display.</p></noscript>
<div id="samples"></div>
<div>%(pager)s</div>
<script type="application/json" id="pw-data">%(data)s</script>
<script>%(js)s</script>
</body>
</html>
"""


def embed_json(data: Any) -> str:
    """JSON safe to place inside a ``<script>`` element: ``<``, ``>`` and ``&`` are written as
    ``\\u003c``/``\\u003e``/``\\u0026`` (they only occur inside JSON strings), so no ``</script>`` or
    ``<!--`` can appear, and ``JSON.parse`` reads the same values back."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_page(title: str, header_html: str, data: dict[str, Any]) -> str:
    """The whole report page. ``header_html`` must already be escaped; ``title`` is escaped here."""
    return _PAGE % {"title": html.escape(title), "css": CSS, "header": header_html, "pager": _PAGER,
                    "data": embed_json(data), "js": JS % {"page_size": PAGE_SIZE}}
