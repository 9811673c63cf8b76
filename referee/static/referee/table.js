/* The table page's only script: re-send a tap that got no answer, and say so.
 *
 * Every write form carries a fresh idempotency key rendered with it, so sending
 * the same form again can never count twice: the referee answers a repeated key
 * with its first answer. A request that times out (htmx.config.timeout) or never
 * reaches the server is re-sent a few times with growing pauses.
 */
(function () {
  "use strict";
  var MAX_TRIES = 5;

  function net(kind) {
    var box = document.getElementById("net");
    if (!box) return;
    if (!kind) { box.hidden = true; box.textContent = ""; return; }
    box.textContent = box.dataset[kind] || "";
    box.hidden = false;
  }

  function retry(event) {
    var elt = event.detail && event.detail.elt;
    if (!elt || !elt.matches || !elt.matches("form[data-retry]")) {
      net("offline");  // a poll failed: the next one tries again by itself
      return;
    }
    if (!document.body.contains(elt)) return;
    var tries = Number(elt.dataset.tries || "0") + 1;
    if (tries > MAX_TRIES) { net("offline"); return; }
    elt.dataset.tries = String(tries);
    net("retrying");
    window.setTimeout(function () {
      if (document.body.contains(elt)) window.htmx.trigger(elt, "submit");
    }, 500 * tries);
  }

  document.addEventListener("htmx:timeout", retry);
  document.addEventListener("htmx:sendError", retry);
  document.addEventListener("htmx:afterRequest", function (event) {
    if (event.detail && event.detail.xhr && event.detail.xhr.status) net(null);
  });
})();
