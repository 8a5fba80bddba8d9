// The record form that works with no network (templates/record_offline.html): filled from the
// link it was opened by (?player, ?table, ?round, ?infraction: the dashboard's and the record
// form's own links), it shows the engine's ruling on a first offence at the tournament's level
// marked as preliminary, and hands the confirmed infraction to the outbox (static/outbox.js):
// a new idempotency key, the form's fields, what the phone showed. The outbox sends it now or
// when the connection returns; the server rules it with the player's history.
(function () {
  "use strict";
  var form = document.getElementById("offline-record");
  if (!form) {
    return;
  }
  var D = form.dataset;
  var player = form.querySelector("[name=player]");
  var infraction = form.querySelector("[name=infraction]");
  var table = form.querySelector("[name=table]");
  var round = form.querySelector("[name=round]");
  var preview = document.getElementById("off-preview");
  var error = document.getElementById("off-error");

  var given = new URLSearchParams(location.search);
  function pick(select, value) {
    if (value && select.querySelector("option[value='" + CSS.escape(value) + "']")) {
      select.value = value;
    }
  }
  pick(player, given.get("player"));
  pick(infraction, given.get("infraction"));
  if (given.get("round")) {
    round.value = given.get("round");
  }
  function seat() {
    var chosen = player.selectedOptions[0];
    if (chosen && chosen.dataset.table && !given.get("table")) {
      table.value = chosen.dataset.table;
    }
  }
  table.value = given.get("table") || "";
  seat();

  function show() {
    error.hidden = true;
    var inf = infraction.selectedOptions[0];
    var who = player.selectedOptions[0];
    if (!inf || !inf.value || !who || !who.value) {
      preview.hidden = true;
      return;
    }
    if (!inf.dataset.ruling) {
      preview.hidden = true;
      error.textContent = D.onlineOnly;
      error.hidden = false;
      return;
    }
    preview.querySelector(".off-who").textContent = who.textContent.trim() + " — " +
      inf.textContent.trim();
    preview.querySelector(".off-ruling").textContent = inf.dataset.ruling;
    preview.querySelector(".off-mark").textContent = D.preliminary;
    preview.hidden = false;
  }
  player.addEventListener("change", function () { seat(); show(); });
  infraction.addEventListener("change", show);
  show();

  function newKey() {
    if (window.crypto && crypto.randomUUID) {
      return crypto.randomUUID().replace(/-/g, "");
    }
    return String(Date.now()) + String(Math.random()).slice(2);
  }

  form.addEventListener("submit", function (evt) {
    evt.preventDefault();
    var inf = infraction.selectedOptions[0];
    if (!player.value || !infraction.value) {
      error.textContent = D.choose;
      error.hidden = false;
      return;
    }
    if (!inf.dataset.ruling) {
      error.textContent = D.onlineOnly;
      error.hidden = false;
      return;
    }
    if (!window.sudyaOutbox) {
      return;
    }
    form.querySelector("[name=key]").value = newKey();
    var fields = [];
    new FormData(form).forEach(function (value, name) {
      if (name !== "table" || value) {
        fields.push([name, String(value)]);
      }
    });
    var guess = preview.querySelector(".off-who").textContent + " — " +
      inf.dataset.ruling + " (" + D.preliminary + ")";
    window.sudyaOutbox.queue({
      key: form.querySelector("[name=key]").value,
      url: "/t/" + D.tournament + "/record/confirm", fields: fields, guess: guess,
      preliminary: inf.dataset.ruling, user: D.user, at: Date.now()
    }).then(function () {
      var done = form.querySelector(".failure");
      done.textContent = D.queued;
      done.hidden = false;
      form.querySelector("[name=note]").value = "";
      infraction.value = "";
      show();
    });
  });
})();
