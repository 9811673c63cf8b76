/* The room view's script (a TV or a projector at a club night): every few seconds it asks
 * for the room (data-poll carries what the page shows as v=<signature>); 204 means
 * nothing changed, 200 brings the new room, merged into the page with the vendored
 * idiomorph, so the screen never blinks. No answer: the page says so (#net) and keeps
 * asking. An expired room link (403): the page says so and stops asking.
 * Without this script the page is still right when reloaded.
 */
(function () {
  "use strict";
  var timer = null;

  function room() { return document.getElementById("room"); }

  function net(kind) {
    var box = document.getElementById("net");
    if (!box) return;
    if (!kind || !box.dataset[kind]) { box.hidden = true; box.textContent = ""; return; }
    box.textContent = box.dataset[kind];
    box.hidden = false;
  }

  function schedule() {
    var el = room();
    var seconds = el ? Number(el.dataset.pollSeconds) || 3 : 3;
    window.clearTimeout(timer);
    timer = window.setTimeout(poll, seconds * 1000);
  }

  function poll() {
    var el = room();
    if (!el || !el.dataset.poll) return;
    if (document.hidden) { schedule(); return; }
    window.fetch(el.dataset.poll, {
      headers: { "HX-Request": "true" }, credentials: "same-origin", cache: "no-store"
    }).then(function (resp) {
      if (resp.status === 403) {
        var expired = document.getElementById("room-expired");
        if (expired) expired.hidden = false;
        return null;  // stop: the link is no longer good
      }
      if (resp.status === 503) { net("busy"); schedule(); return null; }
      return resp.text().then(function (html) {
        net(null);
        if (resp.status === 200 && html.indexOf('id="room"') !== -1 && room()) {
          window.Idiomorph.morph(room(), html, { morphStyle: "outerHTML" });
          document.documentElement.dataset.roomUpdated = String(Date.now());
        }
        schedule();
      });
    }, function () { net("offline"); schedule(); });
  }

  function start() {
    if (!room() || !window.Idiomorph) return;  // without idiomorph: a reload shows the room
    schedule();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
