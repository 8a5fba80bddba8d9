/* The rulebook editor: line numbers beside the text (the lines with a problem marked), a
   click on a problem's line puts the cursor on that line (the YAML's fold opened), and the
   table's search field shows only the infractions whose name or id holds what is typed.
   The page works without it. */
(function () {
  "use strict";
  function text() { return document.getElementById("draft-text"); }

  function number() {
    var area = text(), gutter = document.getElementById("draft-lines");
    if (!area || !gutter) return;
    var problems = document.getElementById("problems");
    var bad = {};
    ((problems && problems.getAttribute("data-lines")) || "").split(" ").forEach(function (n) {
      if (n) bad[n] = true;
    });
    var count = area.value.split("\n").length, out = [];
    for (var i = 1; i <= count; i++) out.push(bad[i] ? "\u25b6" + i : String(i));
    gutter.textContent = out.join("\n");
    gutter.scrollTop = area.scrollTop;
  }

  function gotoLine(line) {
    var area = text();
    if (!area) return;
    var fold = area.closest("details");
    if (fold) fold.open = true;
    var lines = area.value.split("\n"), start = 0;
    for (var i = 0; i < line - 1 && i < lines.length; i++) start += lines[i].length + 1;
    var end = start + (lines[line - 1] || "").length;
    area.focus();
    area.setSelectionRange(start, end);
    var height = area.scrollHeight / Math.max(lines.length, 1);
    area.scrollTop = Math.max(0, (line - 4) * height);
    number();
  }

  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a.goto-line");
    if (!link) return;
    event.preventDefault();
    gotoLine(parseInt(link.getAttribute("data-line"), 10));
  });
  function filter() {
    var field = document.getElementById("grid-find");
    if (!field) return;
    var words = field.value.toLowerCase().replace(/ё/g, "е").split(/\s+/).filter(Boolean);
    document.querySelectorAll(".rule-row").forEach(function (row) {
      var said = (row.getAttribute("data-find") || "").replace(/ё/g, "е");
      row.hidden = !words.every(function (w) { return said.indexOf(w) >= 0; });
    });
  }

  document.addEventListener("input", function (event) {
    if (event.target === text()) number();
    if (event.target.id === "grid-find") filter();
  });
  // the form comes back whole after a change: the search typed stays applied
  document.addEventListener("htmx:afterSwap", filter);
  document.addEventListener("scroll", function (event) {
    if (event.target === text()) number();
  }, true);
  document.addEventListener("htmx:afterSwap", number);
  document.addEventListener("DOMContentLoaded", number);
  if (document.readyState !== "loading") number();
})();
