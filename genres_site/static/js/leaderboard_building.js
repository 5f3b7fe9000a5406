/* A leaderboard page waiting for its first build: reload when the build lands, told by the
   websocket, or found by polling when the websocket cannot connect. */
(function () {
  "use strict";

  var root = document.getElementById("leaderboard-building");
  if (!root) return;
  var POLL_MS = 3000;
  var sectionsUrl = root.getAttribute("data-sections-url");
  var wsPath = root.getAttribute("data-websocket-path");

  function poll() {
    fetch(sectionsUrl, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) {
        if (response.status === 202) window.setTimeout(poll, POLL_MS);
        else window.location.reload(); // built, or an error the page itself will explain
      })
      .catch(function () { window.setTimeout(poll, POLL_MS); });
  }

  if (window.WebSocket) {
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + window.location.host + wsPath);
    socket.addEventListener("message", function () { window.location.reload(); });
  }
  window.setTimeout(poll, POLL_MS);
})();
