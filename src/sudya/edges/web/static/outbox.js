// Working through Wi-Fi drops: the service worker (/sw.js) and the outbox.
//
// An infraction confirmed without a connection (the request failed, timed out, or a gateway
// answered 502/504) is kept in IndexedDB under its idempotency key — the key the form carries —
// and sent again, as the same form to the same URL, when the connection returns (the "online"
// event, and retries with back-off up to a minute). The server records a key once, so a send
// that did get through before the connection broke is answered with the first answer, never
// recorded twice. The page shows «не отправлено: N», then each server answer: what it recorded
// (GET /t/ID/record/answer/EVENT), beside what the phone showed before the confirm (the answer may
// differ: another judge may have recorded meanwhile), or why it refused: only a refusal of the
// ruling itself ends an entry — a refused form token (a new sign-in, a new secret) is fetched
// anew (/session/csrf), a refused preview token asked for again, and the same key sent again. Any other failed
// confirm (a server error) says so and keeps the form. The texts come from #outbox's data-
// attributes (templates/_offline.html), so they are in the page's language.
(function () {
  "use strict";
  var box = document.getElementById("outbox");
  if (!box) {
    return;
  }
  var T = box.dataset;
  var me = T.user || "";
  var CONFIRM = /\/t\/(\d+)\/record\/confirm$/;
  var CONFIRM_WAIT = 10000; // ms a confirm may take before it is kept for later
  var FIRST_RETRY = 2000;
  var LAST_RETRY = 60000;
  var ANSWERS = "sudya-outbox-answers"; // sessionStorage: answers not yet hidden
  var retry = FIRST_RETRY;
  var timer = null;
  var sending = false;

  function say(text, values) {
    return String(text || "").replace(/\{(\w+)\}/g, function (_m, name) {
      return values && values[name] !== undefined ? values[name] : "";
    });
  }

  // ---------------------------------------------------------------- the service worker
  if ("serviceWorker" in navigator && me) {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).then(function () {
      return navigator.serviceWorker.ready;
    }).then(function (reg) {
      var urls = [location.pathname + location.search];
      document.querySelectorAll("link[rel=stylesheet][href], script[src]").forEach(function (e) {
        urls.push(e.getAttribute("href") || e.getAttribute("src"));
      });
      (T.keep || "").split(" ").forEach(function (u) {
        if (u) {
          urls.push(u);
        }
      });
      if (reg.active) {
        reg.active.postMessage({ type: "keep", urls: urls });
        // the offline record form holds the round's tables: taken again from each visit of
        // the tournament's dashboard, so that the copy is of the current round
        var home = /^\/t\/(\d+)$/.exec(location.pathname);
        if (home) {
          reg.active.postMessage({ type: "keep", fresh: true,
                                   urls: ["/t/" + home[1] + "/record/offline"] });
        }
      }
    }).catch(function () { /* no service worker: the pages still work online */ });
  }
  document.addEventListener("submit", function (evt) {
    var form = evt.target;
    if (form.getAttribute("action") === "/logout" && navigator.serviceWorker &&
        navigator.serviceWorker.controller) {
      navigator.serviceWorker.controller.postMessage({ type: "forget" });
    }
  }, true);

  // ---------------------------------------------------------------- IndexedDB
  function open() {
    return new Promise(function (resolve, reject) {
      var req = indexedDB.open("sudya", 1);
      req.onupgradeneeded = function () {
        req.result.createObjectStore("outbox", { keyPath: "key" });
      };
      req.onsuccess = function () { resolve(req.result); };
      req.onerror = function () { reject(req.error); };
    });
  }

  function store(mode, work) {
    return open().then(function (db) {
      return new Promise(function (resolve, reject) {
        var tx = db.transaction("outbox", mode);
        var req = work(tx.objectStore("outbox"));
        tx.oncomplete = function () {
          db.close();
          resolve(req ? req.result : undefined);
        };
        tx.onerror = function () {
          db.close();
          reject(tx.error);
        };
      });
    });
  }

  function entries() {
    return store("readonly", function (s) { return s.getAll(); }).then(function (all) {
      return (all || []).sort(function (a, b) { return a.at - b.at; });
    });
  }

  function keep(entry) {
    return store("readwrite", function (s) { return s.put(entry); });
  }

  function drop(key) {
    return store("readwrite", function (s) { return s.delete(key); });
  }

  // ---------------------------------------------------------------- what the page shows
  function answers() {
    try {
      return JSON.parse(sessionStorage.getItem(ANSWERS) || "[]");
    } catch (e) {
      return [];
    }
  }

  function answered(item) {
    settled(item.key);
    var list = answers().filter(function (a) { return a.key !== item.key; });
    list.push(item);
    try {
      sessionStorage.setItem(ANSWERS, JSON.stringify(list.slice(-10)));
    } catch (e) { /* private mode: shown on this page only */ }
    render();
  }

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) {
      node.className = cls;
    }
    if (text) {
      node.textContent = text;
    }
    return node;
  }

  function render() {
    return entries().then(function (all) {
      var mine = all.filter(function (e) { return e.user === me; });
      var others = all.filter(function (e) { return e.user !== me; });
      var count = box.querySelector(".outbox-count");
      var lines = [];
      if (mine.length) {
        lines.push(say(T.unsent, { n: mine.length }) + (sending ? " · " + T.sending : "") +
                   (mine.some(function (e) { return e.signIn; }) ? " · " + T.signIn : ""));
      }
      others.forEach(function (e) {
        lines.push(say(T.otherUser, { user: e.user || "?" }));
      });
      count.textContent = lines.join(" · ");
      count.hidden = lines.length === 0;
      var list = box.querySelector(".outbox-answers");
      list.textContent = "";
      answers().forEach(function (a) {
        var li = el("li", "card answer-" + a.state);
        if (a.state === "sent") {
          li.appendChild(el("p", null, say(T.sent, { event: a.event || "" })));
        } else {
          li.appendChild(el("p", "error", T.refused + " " + (a.message || "")));
        }
        if (a.guess) {
          li.appendChild(el("p", "muted", T.guess + " " + a.guess));
        }
        if (a.state === "sent" && a.preliminary && a.html &&
            a.html.indexOf(a.preliminary.split(" + ")[0]) < 0) {
          li.appendChild(el("p", "notice differs", T.differs));
        }
        if (a.html) {
          li.appendChild(el("p", null, T.recorded));
          var holder = el("div", "server-answer");
          holder.innerHTML = a.html; // the server's own page fragment, escaped by it
          li.appendChild(holder);
        }
        var hide = el("button", "link", T.dismiss);
        hide.type = "button";
        hide.addEventListener("click", function () {
          try {
            sessionStorage.setItem(ANSWERS, JSON.stringify(
              answers().filter(function (x) { return x.key !== a.key; })));
          } catch (e) { /* nothing kept */ }
          render();
        });
        li.appendChild(hide);
        list.appendChild(li);
      });
      box.hidden = lines.length === 0 && list.children.length === 0;
    }).catch(function () { /* no IndexedDB: nothing is kept, the confirm says so */ });
  }

  // a message beside the confirm button: in the record form's own slot for it (.failure, which
  // static/record.js fills on a failed confirm: ours comes after, once the entry is kept), or
  // in a line of our own after the form
  function slotOf(confirm) {
    var bar = confirm.elt.closest(".confirm-bar") || confirm.form;
    return bar.querySelector(".failure");
  }

  // (`key`: the kept entry the message is about, so that it goes once the entry is sent)
  function message(confirm, text, cls, key) {
    var slot = slotOf(confirm);
    if (slot) {
      slot.textContent = text;
      slot.hidden = false;
      slot.dataset.outboxKey = key || "";
      return;
    }
    var next = confirm.form.nextElementSibling;
    if (next && next.classList.contains("outbox-message")) {
      next.remove();
    }
    var p = el("p", (cls || "error") + " outbox-message", text);
    p.setAttribute("role", "alert");
    p.dataset.outboxKey = key || "";
    confirm.form.insertAdjacentElement("afterend", p);
  }

  // an entry sent (or refused for good): «Нет связи…» beside its confirm is no longer true,
  // and the answer at the top of the page says what became of it
  function settled(key) {
    document.querySelectorAll("[data-outbox-key]").forEach(function (node) {
      if (!key || node.dataset.outboxKey !== key) {
        return;
      }
      if (node.classList.contains("outbox-message")) {
        node.remove();
        return;
      }
      node.hidden = true;
      node.textContent = "";
      delete node.dataset.outboxKey;
    });
  }

  // what the phone showed before the confirm: the previewed rulings, one line each
  function guessOf(form) {
    var section = form.querySelector(".preview") || form.closest(".preview") || form.parentElement;
    return Array.prototype.map.call(section.querySelectorAll(".ruling"), function (card) {
      var head = card.querySelector("p");
      var list = card.querySelector("ul");
      return [head && head.innerText.trim(), list && list.innerText.trim().replace(/\s*\n\s*/g, " + ")]
        .filter(Boolean).join(" — ");
    }).join("; ").slice(0, 1000);
  }

  // ---------------------------------------------------------------- a confirm that failed
  // the confirm: a button (or a form) whose hx-post is /t/ID/record/confirm, and its form
  function confirmOf(elt) {
    if (!elt || !elt.closest) {
      return null;
    }
    var form = elt.closest("form");
    var url = elt.getAttribute("hx-post") || (form && form.getAttribute("hx-post")) || "";
    return form && CONFIRM.test(url) ? { elt: elt, form: form, url: url } : null;
  }

  function keepForLater(confirm) {
    var key = confirm.form.querySelector("[name=key]");
    if (!key || !key.value || !window.indexedDB) {
      return; // nothing to keep it by: the record form's own message stands
    }
    var fields = [];
    new FormData(confirm.form).forEach(function (value, name) {
      fields.push([name, String(value)]);
    });
    keep({ key: key.value, url: confirm.url, fields: fields, guess: guessOf(confirm.form),
           user: me, at: Date.now() }).then(function () {
      message(confirm, T.offline, "notice", key.value);
      render();
      later(FIRST_RETRY);
    }, function () { /* not kept: the record form's own message stands */ });
  }

  document.addEventListener("htmx:configRequest", function (evt) {
    if (confirmOf(evt.detail.elt)) {
      evt.detail.timeout = CONFIRM_WAIT; // a hanging Wi-Fi is a lost connection too
    }
  });
  document.addEventListener("htmx:beforeRequest", function (evt) {
    var confirm = confirmOf(evt.detail.elt);
    var next = confirm && confirm.form.nextElementSibling;
    if (next && next.classList.contains("outbox-message")) {
      next.remove();
    }
  });
  ["htmx:sendError", "htmx:timeout"].forEach(function (name) {
    document.addEventListener(name, function (evt) {
      var confirm = confirmOf(evt.detail.elt);
      if (confirm) {
        keepForLater(confirm);
      }
    });
  });
  document.addEventListener("htmx:responseError", function (evt) {
    var confirm = confirmOf(evt.detail.elt);
    if (!confirm) {
      return;
    }
    var status = evt.detail.xhr ? evt.detail.xhr.status : 0;
    if (status === 502 || status === 504) {
      keepForLater(confirm); // the app is out of reach behind its proxy
    } else if (!slotOf(confirm)) { // else the record form says it itself
      message(confirm, status >= 500 ? say(T.serverError, { status: status })
        : T.refused + " " + textOf(evt.detail.xhr ? evt.detail.xhr.responseText : ""));
    }
  });

  // ---------------------------------------------------------------- sending
  function csrf() {
    try {
      return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRF-Token"] || "";
    } catch (e) {
      return "";
    }
  }

  function textOf(html) {
    var doc = new DOMParser().parseFromString(html || "", "text/html");
    var errors = doc.querySelectorAll("main .error, main [role=alert]");
    var text = errors.length ? Array.prototype.map.call(errors, function (e) {
      return e.textContent.trim();
    }).join(" ") : (doc.querySelector("main") || doc.body || { textContent: "" }).textContent;
    return text.replace(/\s+/g, " ").trim().slice(0, 300);
  }

  function later(ms) {
    window.clearTimeout(timer);
    timer = window.setTimeout(flush, ms);
  }

  // the session's form token now (the page's may be older than a new sign-in): null when
  // signed out, undefined when the server is out of reach
  function freshToken() {
    return fetch("/session/csrf", { credentials: "same-origin", cache: "no-store" })
      .then(function (r) {
        if (r.status === 401) {
          return null;
        }
        return r.ok ? r.json().then(function (data) {
          var headers = JSON.stringify({ "X-CSRF-Token": data.csrf });
          document.body.setAttribute("hx-headers", headers); // the page's own forms too
          return data.csrf;
        }) : undefined;
      }, function () { return undefined; });
  }

  function signInFirst(entry) {
    entry.signIn = true; // signed out meanwhile: kept until this user signs in again
    return keep(entry).then(function () { return "wait"; });
  }

  // the preview token of the kept fields now (the server's secret may have changed since the
  // preview): the same fields previewed again; undefined when no token comes back
  function freshPreview(entry, token) {
    var body = new URLSearchParams();
    entry.fields.forEach(function (pair) {
      if (pair[0] !== "preview_token") {
        body.append(pair[0], pair[0] === "csrf" ? token : pair[1]);
      }
    });
    return fetch(entry.url.replace(/\/confirm$/, "/preview"), {
      method: "POST", body: body, credentials: "same-origin",
      headers: { "HX-Request": "true", "X-CSRF-Token": token }
    }).then(function (r) {
      return r.ok ? r.text() : "";
    }).then(function (html) {
      var doc = new DOMParser().parseFromString(html, "text/html");
      var field = doc.querySelector("[name=preview_token]");
      return field && field.value ? field.value : undefined;
    }, function () { return undefined; });
  }

  // a kept ruling sent again, as the same form with the same idempotency key. What the
  // server refuses of the form rather than of the ruling is mended once each and the send
  // repeated — never a reason to drop the ruling: a refused form token (csrf.expired: the page
  // is older than a new sign-in, or the server's secret changed) is fetched anew, a preview
  // token no longer valid (preview.changed, for the very fields previewed) is asked for again
  function send(entry, token, mended) {
    var body = new URLSearchParams();
    mended = mended || {};
    token = token || csrf();
    entry.fields.forEach(function (pair) {
      body.append(pair[0], pair[0] === "csrf" && token ? token : pair[1]);
    });
    return fetch(entry.url, {
      method: "POST", body: body, credentials: "same-origin",
      headers: { "HX-Request": "true", "X-CSRF-Token": token }
    }).then(function (r) {
      if (r.redirected && new URL(r.url).pathname === "/login") {
        return signInFirst(entry);
      }
      var code = r.headers.get("Sudya-Code");
      if (r.status === 403 && code === "csrf.expired") {
        if (mended.csrf) {
          return "retry";
        }
        mended.csrf = true;
        return freshToken().then(function (fresh) {
          if (fresh === null) {
            return signInFirst(entry);
          }
          return fresh ? send(entry, fresh, mended) : "retry";
        });
      }
      if (r.status === 422 && code === "preview.changed" && !mended.preview) {
        mended.preview = true;
        return freshPreview(entry, token).then(function (preview) {
          if (!preview) {
            return "retry";
          }
          entry.fields = entry.fields.map(function (pair) {
            return pair[0] === "preview_token" ? [pair[0], preview] : pair;
          });
          return keep(entry).then(function () { return send(entry, token, mended); });
        });
      }
      if (r.ok) {
        var where = r.headers.get("HX-Redirect") || r.url || "";
        var found = /[?&]recorded=([^&#]+)/.exec(where);
        var event = found ? decodeURIComponent(found[1]) : "";
        var tid = CONFIRM.exec(entry.url)[1];
        var html = event ? fetch("/t/" + tid + "/record/answer/" + encodeURIComponent(event), {
          credentials: "same-origin"
        }).then(function (a) { return a.ok ? a.text() : ""; }, function () { return ""; })
          : Promise.resolve("");
        return html.then(function (text) {
          return drop(entry.key).then(function () {
            answered({ key: entry.key, state: "sent", event: event, guess: entry.guess,
                       html: text, preliminary: entry.preliminary || "" });
            return "sent";
          });
        });
      }
      if (r.status >= 500 || r.status === 429 || r.status === 408) {
        var after = parseInt(r.headers.get("Retry-After") || "", 10);
        return after > 0 ? after * 1000 : "retry";
      }
      return r.text().then(function (html) { // refused for good: the server says why
        return drop(entry.key).then(function () {
          answered({ key: entry.key, state: "refused", message: textOf(html),
                     guess: entry.guess });
          return "refused";
        });
      });
    }, function () {
      return "retry"; // still no connection
    });
  }

  function flush() {
    if (sending) {
      return;
    }
    sending = true;
    var work = function () {
      return entries().then(function (all) {
        var mine = all.filter(function (e) { return e.user === me; }); // signed in again
        var wait = 0;
        return mine.reduce(function (chain, entry) {
          return chain.then(function () {
            if (wait) {
              return null;
            }
            return send(entry).then(function (outcome) {
              if (outcome === "retry") {
                wait = retry;
              } else if (typeof outcome === "number") {
                wait = outcome;
              }
            });
          });
        }, Promise.resolve()).then(function () { return wait; });
      });
    };
    var run = navigator.locks ? navigator.locks.request("sudya-outbox", work) : work();
    Promise.resolve(run).then(function (wait) {
      if (wait) {
        retry = Math.min(retry * 2, LAST_RETRY);
        later(wait);
      } else {
        retry = FIRST_RETRY;
      }
    }, function () {
      later(retry);
    }).then(function () {
      sending = false;
      render();
    });
  }

  window.addEventListener("online", function () {
    retry = FIRST_RETRY;
    flush();
  });
  // the offline record form (static/record_offline.js) hands its infraction over: kept, shown,
  // and sent now if the connection allows (a form never previewed is previewed by the server
  // first: the same mend as for a preview signed with a former secret)
  window.sudyaOutbox = {
    queue: function (entry) {
      return keep(entry).then(function () {
        render();
        retry = FIRST_RETRY;
        later(0);
      });
    }
  };
  render().then(function () {
    if (me) {
      flush();
    }
  });
})();
