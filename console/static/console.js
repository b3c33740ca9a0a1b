// razorpay-erpnext console: the only script. While an event is pending or processing, its page
// asks for the event's status every 1.5 s and reloads when a worker has changed it.
(function () {
  "use strict";
  var el = document.getElementById("event-status");
  if (!el || !el.getAttribute("data-poll")) {
    return;
  }
  var url = el.getAttribute("data-poll");
  var shown = el.getAttribute("data-status");
  function tick() {
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (j) {
        if (j && j.status && j.status !== shown) {
          window.location.reload();
        } else {
          window.setTimeout(tick, 1500);
        }
      })
      .catch(function () { window.setTimeout(tick, 5000); });
  }
  window.setTimeout(tick, 1500);
})();
