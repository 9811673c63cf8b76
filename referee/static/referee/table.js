/* The table page's script: every tap ends entered, refused (with the reason) or not
 * sent (kept, with a way to send it); live updates never destroy what is being entered.
 *
 * Taps. Each write form (form[data-tap]) carries a fresh idempotency key and the
 * version the page showed. A tap goes into an outbox kept in localStorage (it
 * survives a reload and a dropped Wi-Fi) and is sent, one at a time and in order,
 * with the same body and key until the referee answers: an answer with the table
 * (2xx entered, 4xx refused with its message) takes it out of the outbox; no answer,
 * a 5xx, a 503 or a 429 keeps it and sends it again with growing pauses (Retry-After when
 * given) and at once when the browser comes back online. The referee counts a key
 * once, so a tap whose answer was lost is never entered twice.
 *
 * Live updates. Every few seconds the page asks for the table (data-poll carries
 * the version shown and the mode the page is in; a reveal's ticked tiles and typed
 * pip sum go with it). A newer table is merged into the page with idiomorph, so
 * what is open stays open when it still applies, and the server says when it was
 * cancelled and why. When a live update changes what a tap in the entry would mean
 * (data-entry), taps are held for GUARD_MS and the page says why.
 *
 * Banners. The hint, the outbox and the network banner sit in one dock over the bottom
 * of the screen; while one shows, the page keeps its end and its own scrolls clear of it
 * and brings the tiles above it ("reserve"), so no tile button stays under a banner.
 *
 * Without this script the forms and links still work as plain HTML.
 */
(function () {
  "use strict";
  var OUTBOX_KEY = "domeng-outbox";
  var TIMEOUT_MS = 8000;       // a request without an answer by then is retried
  var GUARD_MS = 900;          // taps held after a live update changed the entry
  var MAX_PAUSE_MS = 10000;    // the longest pause between two sends of a kept tap
  var SENDING_MS = 1000;       // "Sending…" shows only for a tap not answered by then

  var inFlight = null;         // the outbox entry being sent
  var sentAt = 0;              // when it was sent
  var sendingTimer = null;
  var retryTimer = null;
  var pollTimer = null;
  var swaps = 0;               // bumped by every redraw: a poll answer older than one is dropped
  var edits = 0;               // bumped by every edit of a form: same, for the reveal's ticks
  var guardUntil = 0;
  var reason = null;           // why the outbox's first tap is not sent yet

  function live() { return document.getElementById("live"); }
  function game() { var el = live(); return el ? el.dataset.game : null; }

  // -- the outbox (localStorage) ----------------------------------------------------

  function load() {
    try { return JSON.parse(window.localStorage.getItem(OUTBOX_KEY) || "[]"); } catch (e) { return []; }
  }
  function save(list) {
    try { window.localStorage.setItem(OUTBOX_KEY, JSON.stringify(list)); } catch (e) { /* full or off */ }
  }
  function mine() { var g = game(); return load().filter(function (e) { return e.game === g; }); }
  function drop(key) { save(load().filter(function (e) { return e.key !== key; })); }

  // -- requests ---------------------------------------------------------------------

  function request(method, url, body) {
    var ctrl = new AbortController();
    var timer = window.setTimeout(function () { ctrl.abort(); }, TIMEOUT_MS);
    var headers = { "HX-Request": "true" };
    if (body != null) headers["Content-Type"] = "application/x-www-form-urlencoded";
    return window.fetch(url, {
      method: method, body: body, headers: headers, credentials: "same-origin",
      cache: "no-store", redirect: "follow", signal: ctrl.signal
    }).then(function (resp) {
      return resp.text().then(function (text) {
        return {
          status: resp.status,
          text: text,
          redirect: resp.headers.get("HX-Redirect"),
          retryAfter: Number(resp.headers.get("Retry-After")) || 0,
          partial: text.indexOf('id="live"') !== -1
        };
      });
    }).finally(function () { window.clearTimeout(timer); });
  }

  // -- redrawing ----------------------------------------------------------------------

  function swap(html, fromPoll) {
    var el = live();
    if (!el) return;
    var before = el.dataset.entry;
    swaps += 1;
    window.Idiomorph.morph(el, html, { morphStyle: "outerHTML", ignoreActiveValue: fromPoll });
    el = live();
    if (fromPoll && el && el.dataset.entry !== before) hold();
    hint(null);
    render();
    toMyTurn();
  }

  // A seat's phone, on its own turn, brings PASS and the picker into view once per turn
  // (issue 28: the picker started below the fold, 1–3 of its 6 rows in view).
  var turnShown = null;
  function toMyTurn() {
    var el = live();
    var turn = el && el.dataset.myTurn;
    if (!turn || turn === turnShown) return;
    turnShown = turn;
    var entry = el.querySelector("#entry .picker");
    if (!entry) return;
    var pass = el.querySelector("#entry form.pass");
    entry.scrollIntoView({ block: "end" });
    if (pass && pass.getBoundingClientRect().top < 0) pass.scrollIntoView({ block: "start" });
  }

  // Taps on the entry are held for GUARD_MS (html[data-held] meanwhile, for the tests).
  function hold() {
    guardUntil = Date.now() + GUARD_MS;
    document.documentElement.dataset.held = "1";
    window.setTimeout(function () {
      if (Date.now() >= guardUntil) delete document.documentElement.dataset.held;
    }, GUARD_MS + 10);
  }

  function net(kind) {
    var box = document.getElementById("net");
    if (!box) return;
    if (!kind || !box.dataset[kind]) { box.hidden = true; box.textContent = ""; }
    else { box.textContent = box.dataset[kind]; box.hidden = false; }
    reserve();
  }

  function hint(text) {
    var box = document.getElementById("why");
    if (!box) return;
    box.textContent = text || "";
    box.hidden = !text;
    reserve();
  }

  // -- the banners at the bottom never cover a tile (issue 28) ---------------------------
  // The hint, the outbox and the network banner sit in one dock fixed over the bottom of
  // the screen. While one shows, html[data-dock] carries the dock's height (--dock): the
  // page's own scrolls (the seat's turn, a focused tile) end above it (scroll-padding), and
  // the page's end stays as free as the tallest dock yet (--dock-reserve; never shrunk, so
  // the page does not jump back when a banner goes). When the dock grows over the tiles,
  // they are brought above it.
  var docked = 0;              // the dock's height now, with its margins (0: no banner)
  var reserved = 0;            // the tallest dock yet

  function reserve() {
    var dock = document.getElementById("dock");
    if (!dock) return;
    var shown = Array.prototype.some.call(dock.children, function (c) { return !c.hidden; });
    var height = shown ? Math.ceil(dock.getBoundingClientRect().height) + 16 : 0;
    var root = document.documentElement;
    if (height > reserved) {
      reserved = height;
      document.body.style.setProperty("--dock-reserve", reserved + "px");
    }
    if (height) { root.style.setProperty("--dock", height + "px"); root.dataset.dock = "1"; }
    else { root.style.removeProperty("--dock"); delete root.dataset.dock; }
    var grew = height > docked;
    docked = height;
    if (grew) clearTiles(dock);
  }

  // Tiles (the picker, the end or seat choices) under the dock: their end just above it.
  function clearTiles(dock) {
    document.querySelectorAll("#live .picker, #live .choices").forEach(function (el) {
      var over = dock.getBoundingClientRect();
      var box = el.getBoundingClientRect();
      if (box.height && box.top < over.bottom && box.bottom > over.top) {
        window.scrollBy(0, Math.ceil(box.bottom - over.top) + 8);
      }
    });
  }

  // The outbox on screen: what is not sent yet, why, and the buttons to send or remove it.
  function render() {
    var box = document.getElementById("outbox");
    if (!box) return;
    var g = game();
    var list = load();
    var taps = box.querySelector(".taps");
    taps.textContent = "";
    list.forEach(function (e) {
      var li = document.createElement("li");
      li.textContent = e.label + (e.game !== g ? " — " + box.dataset.other : "");
      li.dataset.key = e.key;
      taps.appendChild(li);
    });
    // A tap answered at once never shows "Sending…": the page stays still under the finger.
    var quick = inFlight && !reason && Date.now() - sentAt < SENDING_MS;
    box.hidden = list.length === 0 || quick;
    box.dataset.state = reason || "sending";
    box.querySelector(".state").textContent = box.dataset[reason || "sending"];
    if (list.length) net(null);
    reserve();
  }

  // -- sending taps, in order, until the referee answers ------------------------------

  function pump() {
    if (inFlight) return;
    window.clearTimeout(retryTimer);
    var list = mine();
    if (!list.length) { reason = null; render(); return; }
    var entry = list[0];
    sending(entry);
    swaps += 1;  // a poll already on its way must not redraw over this tap's answer
    render();
    request("POST", entry.url, entry.body).then(function (r) {
      sending(null);
      if (r.status === 429 || r.status >= 500) {
        keep(entry, r.status === 503 ? "busy" : r.status === 429 ? "throttled" : "error",
             r.retryAfter);
        return;
      }
      drop(entry.key);
      reason = null;
      if (r.redirect) { window.location.href = r.redirect; return; }
      if (r.partial) {
        swap(r.text, false);
      } else {  // an answer without the table (e.g. a CSRF refusal): say it was refused
        hint((document.getElementById("outbox").dataset.refused || "") + " " + entry.label +
             " (HTTP " + r.status + ")");
      }
      render();
      pump();
    }, function () {
      sending(null);
      keep(entry, "offline", 0);
    });
  }

  // The tap on its way (html[data-sending] meanwhile, for the tests' screenshots).
  function sending(entry) {
    inFlight = entry;
    window.clearTimeout(sendingTimer);
    if (entry) {
      document.documentElement.dataset.sending = "1";
      sentAt = Date.now();
      sendingTimer = window.setTimeout(render, SENDING_MS + 20);
    } else {
      delete document.documentElement.dataset.sending;
    }
  }

  function keep(entry, why, retryAfter) {
    var list = load();
    var tries = 1;
    list.forEach(function (e) { if (e.key === entry.key) { e.tries = (e.tries || 0) + 1; tries = e.tries; } });
    save(list);
    reason = why;
    render();
    var pause = retryAfter ? retryAfter * 1000 : Math.min(500 * Math.pow(2, tries), MAX_PAUSE_MS);
    retryTimer = window.setTimeout(pump, pause);
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches || !form.matches("#live form[data-tap]") || !window.Idiomorph) return;
    event.preventDefault();
    var data = new FormData(form);
    var key = String(data.get("key"));
    var list = load();
    if (list.some(function (e) { return e.key === key; })) return;  // the same tap twice: once
    list.push({
      key: key, game: game(), url: form.action, body: new URLSearchParams(data).toString(),
      label: form.dataset.label || "", at: Date.now(), tries: 0
    });
    save(list);
    form.classList.add("sending");
    pump();
  });

  // -- links that open a mode (a tile's end, the undo, a seat's reveal) ---------------

  function open(url) {
    var seen = swaps;
    request("GET", url, null).then(function (r) {
      if (r.redirect) { window.location.href = r.redirect; return; }
      if (r.partial && seen === swaps) {
        swap(r.text, false);
        var entry = document.getElementById("entry");  // the choice it opened, in view
        if (entry) entry.scrollIntoView({ block: "nearest" });
      }
      net(null);
    }, function () { net("offline"); });
  }

  document.addEventListener("click", function (event) {
    var target = event.target.closest ? event.target.closest("#live a, #live button, #live label") : null;
    if (!target) return;
    if (Date.now() < guardUntil) {  // the table just changed under the finger
      event.preventDefault();
      event.stopPropagation();
      hint(document.getElementById("why").dataset.changed);
      return;
    }
    if (target.getAttribute("aria-disabled") === "true") {
      event.preventDefault();
      hint(target.dataset.why || "");
      return;
    }
    if (target.matches("a[data-live]")) {
      event.preventDefault();
      open(target.dataset.live);
    }
  }, true);

  document.addEventListener("input", function (event) {
    if (event.target.closest && event.target.closest("#live form")) edits += 1;
  });

  // -- live updates ---------------------------------------------------------------------

  function pollUrl() {
    var el = live();
    if (!el || !el.dataset.poll) return null;
    var url = el.dataset.poll;
    var form = el.querySelector("form.reveal");
    if (form) {
      form.querySelectorAll("input[name=tiles]:checked").forEach(function (input) {
        url += "&tiles=" + encodeURIComponent(input.value);
      });
      var pips = form.querySelector("input[name=pips]");
      if (pips && pips.value) url += "&pips=" + encodeURIComponent(pips.value);
    }
    return url;
  }

  function schedule() {
    var el = live();
    var seconds = el ? Number(el.dataset.pollSeconds) || 2 : 2;
    window.clearTimeout(pollTimer);
    pollTimer = window.setTimeout(poll, seconds * 1000);
  }

  function poll() {
    schedule();
    if (inFlight || document.hidden) return;  // a tap's answer redraws the table itself
    var url = pollUrl();
    if (!url) return;
    var seenSwaps = swaps;
    var seenEdits = edits;
    request("GET", url, null).then(function (r) {
      if (r.redirect) { window.location.href = r.redirect; return; }
      if (r.status === 503) { net("busy"); return; }
      if (!mine().length) net(null);
      if (r.status !== 200 || !r.partial) return;
      if (seenSwaps !== swaps || seenEdits !== edits || inFlight) return;  // overtaken
      swap(r.text, true);
    }, function () { if (!mine().length) net("offline"); });
  }

  function start() {
    if (!live()) return;
    if (!window.Idiomorph) return;  // the vendored script is missing: plain forms then
    render();
    pump();
    schedule();
    toMyTurn();
    if (window.ResizeObserver) new window.ResizeObserver(reserve).observe(document.getElementById("dock"));
    window.addEventListener("resize", reserve);
    document.getElementById("outbox").addEventListener("click", function (event) {
      var button = event.target.closest("button");
      if (!button) return;
      if (button.hasAttribute("data-send-now")) { window.clearTimeout(retryTimer); pump(); }
      if (button.hasAttribute("data-discard")) {
        window.clearTimeout(retryTimer);
        var removed = load().map(function (e) { return e.label; }).join(", ");
        save(inFlight ? load().filter(function (e) { return e.key === inFlight.key; }) : []);
        reason = null;
        render();
        hint(document.getElementById("outbox").dataset.discarded + " " + removed);
      }
    });
  }

  window.addEventListener("online", function () { window.clearTimeout(retryTimer); pump(); poll(); });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
