// The record form (templates/record.html) and the undo after it (templates/_recorded.html):
// - a preview is bound to what it previewed: changing any field removes it (and its confirm
//   button and token), so the old ruling can never be confirmed for new fields — the server
//   refuses that too (web/preview_token.py); but not the note («Что произошло»): the judge
//   types it with the ruling on the screen, and it changes nothing of the ruling;
// - a new preview is scrolled into view, its confirm button on the screen;
// - a confirm that fails (no connection, a server error, a refusal) says so beside the
//   button and keeps the form as it was filled (the texts are the form's data-failed-*);
// - the undo button goes away when its time is up (the server refuses it after that anyway).
// Static, no inline code: the pages' Content-Security-Policy is script-src 'self'.
(function () {
  "use strict";
  if (window.sudyaRecord) {
    return;
  }
  window.sudyaRecord = true;

  function formOf(el) {
    return el && el.closest ? el.closest("form.record-form, form.undo") : null;
  }

  // ------------------------------------------------------------ a changed field, no preview
  function fieldChanged(event) {
    var el = event.target;
    if (!el || !el.matches || !el.matches("input, select, textarea")) {
      return;
    }
    if (el.type === "hidden" || el.name === "note" || !el.closest("form.record-form")) {
      return;
    }
    var preview = document.getElementById("preview");
    if (preview) {
      preview.remove();
    }
  }
  document.addEventListener("input", fieldChanged);
  document.addEventListener("change", fieldChanged);

  // ------------------------------------------------------------ the preview in view
  function showPreview() {
    var preview = document.getElementById("preview");
    if (!preview) {
      return;
    }
    preview.scrollIntoView({ block: "start" });
    var confirm = preview.querySelector("button.confirm");
    if (confirm) {
      var box = confirm.getBoundingClientRect();
      if (box.bottom > window.innerHeight || box.top < 0) {
        confirm.scrollIntoView({ block: "end" });
      }
    }
  }
  function showRefusal() {
    var error = document.querySelector("#record .error:not([hidden])");
    if (error) {
      error.scrollIntoView({ block: "center" });
    }
  }
  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail && event.detail.target;
    if (target && target.id === "record") {
      if (document.getElementById("preview")) {
        showPreview();
      } else {
        showRefusal();
      }
    }
  });

  // Enter in a field previews again (the confirm comes first in the form, and a key press is
  // not a tap on it)
  document.addEventListener("keydown", function (event) {
    var el = event.target;
    if (event.key !== "Enter" || !el || !el.matches || !el.matches("input, select")) {
      return;
    }
    var form = el.closest("form.record-form");
    var button = form ? form.querySelector("button[type=submit]:not(.confirm)") : null;
    if (button) {
      event.preventDefault();
      button.click();
    }
  });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", showPreview);
  } else {
    showPreview();
  }

  // ------------------------------------------------------------ a failed confirm
  function slotFor(elt, form) {
    var near = elt.matches("button") ? elt.parentElement : null;
    var slot = near ? near.querySelector(".failure") : null;
    if (!slot) {
      slot = form.querySelector(".failure");
    }
    return slot;
  }

  function failed(elt, status) {
    var form = formOf(elt);
    if (!form) {
      return;
    }
    var text;
    if (status === 0) {
      text = form.dataset.failedNetwork;
    } else if (status >= 500) {
      text = form.dataset.failedServer;
    } else {
      text = form.dataset.failedConflict;
    }
    var slot = slotFor(elt, form);
    if (slot && text) {
      slot.textContent = text.replace("{status}", String(status));
      slot.hidden = false;
    }
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = formOf(event.detail.elt);
    if (form) {
      form.querySelectorAll(".failure").forEach(function (slot) {
        slot.hidden = true;
        slot.textContent = "";
      });
    }
  });
  document.addEventListener("htmx:beforeSwap", function (event) {
    // a 503 is swapped in (base.html) when it is our own page (the form, its message); one
    // from anything else (a proxy's page) must not replace the form
    var detail = event.detail;
    // (the event's own elt is the target it swaps into; the request's is the button)
    var form = formOf(detail.requestConfig ? detail.requestConfig.elt : null);
    if (form && detail.shouldSwap && detail.xhr.status >= 500 &&
        (detail.serverResponse || "").indexOf('id="record"') === -1 &&
        (detail.serverResponse || "").indexOf('class="recorded') === -1) {
      detail.shouldSwap = false;
      detail.isError = true;
    }
  });
  document.addEventListener("htmx:responseError", function (event) {
    failed(event.detail.elt, event.detail.xhr ? event.detail.xhr.status : 0);
  });
  document.addEventListener("htmx:sendError", function (event) {
    failed(event.detail.elt, 0);
  });

  // ------------------------------------------------------------ the undo's time
  function undoClock() {
    document.querySelectorAll("form.undo[data-left]").forEach(function (form) {
      if (!form.dataset.deadline) {
        form.dataset.deadline = String(Date.now() + Number(form.dataset.left) * 1000);
      }
      var left = Math.round((Number(form.dataset.deadline) - Date.now()) / 1000);
      var shown = form.querySelector(".undo-left");
      if (left <= 0) {
        form.remove();
        return;
      }
      if (shown) {
        shown.textContent = Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
      }
    });
  }
  undoClock();
  window.setInterval(undoClock, 1000);
})();
