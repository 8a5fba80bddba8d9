// Live parts of a page (templates/_live.html, web/live.py): each [data-live] element is fetched
// again when the tournament's event stream says something changed (hx-trigger "sse:change"),
// and every 10 s while there is no stream (no EventSource, or the connection is down): the
// 10 s poll is let through only then. A part the judge is typing in is not replaced under
// their fingers: its refresh waits until the focus leaves it.
(function () {
  "use strict";
  var hasStream = typeof window.EventSource === "function";

  if (!hasStream) {
    // before htmx processes the page (deferred scripts run before DOMContentLoaded): no
    // extension tries to open a stream the browser cannot; the 10 s poll does the work
    document.querySelectorAll("[sse-connect]").forEach(function (el) {
      el.removeAttribute("sse-connect");
    });
  }

  function streamOpen(el) {
    var source = el.closest("[sse-connect]");
    return hasStream && source !== null && source.dataset.liveOpen === "1";
  }

  function busy(el) {
    var active = document.activeElement;
    if (active && el.contains(active) && active.matches("input, select, textarea")) {
      return true;
    }
    return el.querySelector("form[data-live-touched]") !== null;
  }

  function refresh(scope) {
    (scope || document).querySelectorAll("[data-live]").forEach(function (el) {
      htmx.trigger(el, "live:refresh");
    });
  }

  document.addEventListener("htmx:confirm", function (evt) {
    var el = evt.detail.elt;
    if (!el || !el.matches || !el.matches("[data-live]")) {
      return;
    }
    var trigger = evt.detail.triggeringEvent;
    if (!trigger && streamOpen(el)) {
      evt.preventDefault(); // the 10 s poll (it has no event): the stream is up, not needed
      return;
    }
    if (busy(el)) {
      evt.preventDefault();
      el.dataset.liveStale = "1";
    }
  });

  // a form the judge has started filling in (one that writes: a decision, an appeal) keeps its
  // part from being replaced until it is sent; a search box (a GET form) does not, but what was
  // typed in it is put back into the new part and searched again (see keepTyped)
  function writes(form) {
    return (form.getAttribute("method") || "get").toLowerCase() !== "get";
  }
  document.addEventListener("input", function (evt) {
    var form = evt.target && evt.target.closest ? evt.target.closest("[data-live] form") : null;
    if (form && writes(form)) {
      form.dataset.liveTouched = "1";
    }
  });
  document.addEventListener("htmx:afterRequest", function (evt) {
    var form = evt.detail.elt && evt.detail.elt.closest ? evt.detail.elt.closest("form") : null;
    var verb = evt.detail.requestConfig ? evt.detail.requestConfig.verb : "get";
    if (form && evt.detail.successful && verb !== "get") {
      delete form.dataset.liveTouched;
    }
  });

  // typed but not sent (a search box): kept across the part's refresh, by the field's id or name
  var typed = {};
  function keyOf(field) {
    return field.id ? "#" + field.id : field.name ? "@" + field.name : "";
  }
  document.addEventListener("htmx:beforeSwap", function (evt) {
    var el = evt.detail.target;
    if (!el || !el.matches || !el.matches("[data-live]") || !el.id) {
      return;
    }
    var kept = {};
    el.querySelectorAll("input[type=search], input[type=text], input:not([type])").forEach(
      function (field) {
        if (field.value !== field.defaultValue && keyOf(field)) {
          kept[keyOf(field)] = field.value;
        }
      });
    typed[el.id] = kept;
  });
  document.addEventListener("htmx:load", function (evt) {
    var el = evt.detail.elt;
    var kept = el && el.id ? typed[el.id] : null;
    if (!kept || !el.matches("[data-live]")) {
      return;
    }
    delete typed[el.id];
    Object.keys(kept).forEach(function (key) {
      var field = key.charAt(0) === "#" ? el.querySelector("[id='" + key.slice(1) + "']")
        : el.querySelector("[name='" + key.slice(1) + "']");
      if (field && field.value !== kept[key]) {
        field.value = kept[key];
        field.dispatchEvent(new Event("input", { bubbles: true })); // its results again
      }
    });
  });

  // a new ruling that came live: a small notice at the top of the page (#live-notice), with
  // the count of rulings the list did not have before; the list itself is where it was
  var seen = {};
  function eventsOf(el) {
    var out = {};
    el.querySelectorAll(".latest [data-event]").forEach(function (li) {
      out[li.dataset.event] = true;
    });
    return out;
  }
  document.addEventListener("htmx:beforeSwap", function (evt) {
    var el = evt.detail.target;
    if (el && el.matches && el.matches("[data-live]") && el.id) {
      seen[el.id] = eventsOf(el);
    }
  });
  document.addEventListener("htmx:load", function (evt) {
    var el = evt.detail.elt;
    var before = el && el.id ? seen[el.id] : null;
    var notice = document.getElementById("live-notice");
    if (!before || !notice || !el.matches("[data-live]")) {
      return;
    }
    delete seen[el.id];
    var fresh = Object.keys(eventsOf(el)).filter(function (e) { return !before[e]; });
    if (fresh.length === 0) {
      return;
    }
    var shown = Number(notice.dataset.count || "0") + fresh.length;
    notice.dataset.count = String(shown);
    var link = notice.querySelector("a");
    link.textContent = shown === 1 ? notice.dataset.one
      : notice.dataset.many.replace("{n}", String(shown));
    notice.hidden = false;
  });
  document.addEventListener("click", function (evt) {
    var notice = document.getElementById("live-notice");
    if (notice && evt.target && notice.contains(evt.target)) {
      notice.hidden = true;
      notice.dataset.count = "0";
    }
  });

  document.addEventListener("focusout", function (evt) {
    var el = evt.target && evt.target.closest ? evt.target.closest("[data-live]") : null;
    if (!el || el.dataset.liveStale !== "1") {
      return;
    }
    window.setTimeout(function () {
      if (el.isConnected && !busy(el)) {
        delete el.dataset.liveStale;
        htmx.trigger(el, "live:refresh");
      }
    }, 0);
  });

  // the stream's state, on the element that holds it (the htmx SSE extension's events)
  document.addEventListener("htmx:sseOpen", function (evt) {
    var source = evt.target;
    var wasLost = source.dataset.liveOpen === "0";
    source.dataset.liveOpen = "1";
    if (wasLost) {
      refresh(source); // back after a break: what changed meanwhile
    }
  });
  document.addEventListener("htmx:sseError", function (evt) {
    evt.target.dataset.liveOpen = "0";
  });
  window.addEventListener("online", function () {
    refresh(document);
  });
})();
