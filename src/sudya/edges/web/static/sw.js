// The service worker (served at /sw.js, scope /): the pages a judge opened, the app's CSS and
// scripts, the rulebook and the tournament's people keep working when the hall's Wi-Fi drops.
// Network first — what the server says now wins — with the last copy as the fallback when the
// network fails or is slower than NETWORK_WAIT. Only GETs of this origin that answered 200;
// never the event stream, never a write (a confirmed infraction goes to the page's outbox,
// static/outbox.js), never the login, the session's token or the other API answers.
"use strict";

var CACHE = "sudya-v1";
var NETWORK_WAIT = 4000; // ms: a hanging network is given up for the copy
var KEPT_API = /^\/api\/v1\/tournaments\/\d+\/(people|pairings)(\?|$)/;

self.addEventListener("install", function () {
  self.skipWaiting();
});

self.addEventListener("activate", function (evt) {
  evt.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (n) { return n !== CACHE; })
      .map(function (n) { return caches.delete(n); }));
  }).then(function () { return self.clients.claim(); }));
});

function kept(url) {
  if (url.origin !== self.location.origin) {
    return false;
  }
  var path = url.pathname;
  if (path.indexOf("/api/") === 0) {
    return KEPT_API.test(path + url.search);
  }
  // a record form opened on an infraction carries its preview and a fresh idempotency key: an
  // old copy confirmed offline would send an old key, answered as the ruling it first recorded
  if (/^\/t\/\d+\/record/.test(path) && url.searchParams.has("infraction")) {
    return false;
  }
  return path !== "/sw.js" && path !== "/login" && path !== "/logout" &&
    path !== "/session/csrf";
}

// an htmx request for a part of a page is kept apart from the whole page at the same URL
function cacheKey(request) {
  if (request.headers.get("HX-Request") !== "true") {
    return request.url;
  }
  var url = new URL(request.url);
  url.searchParams.set("__hx", "1");
  return url.toString();
}

function store(key, response) {
  if (response && response.status === 200 && response.type === "basic") {
    var copy = response.clone();
    caches.open(CACHE).then(function (cache) { return cache.put(key, copy); });
  }
  return response;
}

function networkFirst(request) {
  var key = cacheKey(request);
  return new Promise(function (resolve) {
    var done = false;
    function finish(response) {
      if (!done && response) {
        done = true;
        resolve(response);
      }
    }
    function copy() {
      return caches.match(key).then(function (kept) {
        finish(kept);
        return kept;
      }, function () { return null; });
    }
    fetch(request).then(function (response) {
      finish(store(key, response));
    }, function () {
      copy().then(function (kept) {
        if (!kept) { // no copy either: the app's own page for it, never the browser's
          stand(request).then(function (page) { finish(page || Response.error()); });
        }
      });
    });
    setTimeout(copy, NETWORK_WAIT); // the network hangs: the copy, if there is one
  });
}

// what stands in for a page the phone has no copy of, with no network: a record link (the
// dashboard's, a table's, the record form's own) opens the record form kept for offline use
// (templates/record_offline.html reads the link's ?player, ?table, ?infraction); any other
// page the app's offline page (/offline). Null for what is not a page (a script, a fragment).
function stand(request) {
  if (request.mode !== "navigate") {
    return Promise.resolve(null);
  }
  var url = new URL(request.url);
  var record = /^\/t\/(\d+)\/record(\/confirm)?$/.exec(url.pathname);
  var page = record ? "/t/" + record[1] + "/record/offline" : "/offline";
  return caches.match(new URL(page, self.location.origin).toString()).then(function (copy) {
    return copy || (record ? caches.match(new URL("/offline", self.location.origin)
      .toString()) : null);
  }).catch(function () { return null; });
}

self.addEventListener("fetch", function (evt) {
  var request = evt.request;
  if (request.method !== "GET") {
    return; // writes go to the network (or to the page's outbox)
  }
  var url = new URL(request.url);
  if ((request.headers.get("Accept") || "").indexOf("text/event-stream") >= 0) {
    return;
  }
  if (!kept(url)) {
    if (request.mode === "navigate" && url.origin === self.location.origin) {
      // never kept (a record link with its infraction, the login…): the network, else the
      // app's own page for it
      evt.respondWith(fetch(request).catch(function () {
        return stand(request).then(function (page) { return page || Response.error(); });
      }));
    }
    return;
  }
  evt.respondWith(networkFirst(request));
});

// the page asks for what it will need offline: itself, its CSS and scripts, the rulebook, the
// people; and, on signing out, that nothing of the last user stays on the phone
self.addEventListener("message", function (evt) {
  var data = evt.data || {};
  if (data.type === "keep" && Array.isArray(data.urls)) {
    evt.waitUntil(caches.open(CACHE).then(function (cache) {
      return Promise.all(data.urls.map(function (u) {
        var url = new URL(u, self.location.origin);
        if (!kept(url)) {
          return null;
        }
        return cache.match(url.toString()).then(function (have) {
          if (have && !data.fresh) {
            return null;
          }
          return fetch(url.toString(), { credentials: "same-origin" }).then(function (r) {
            return store(url.toString(), r);
          }).catch(function () { return null; });
        });
      }));
    }));
  } else if (data.type === "forget") {
    evt.waitUntil(caches.delete(CACHE));
  }
});
