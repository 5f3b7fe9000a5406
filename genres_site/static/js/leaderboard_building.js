/* A leaderboard page waiting for a build: reload when the build lands, told by the websocket, or
   found by polling when the websocket cannot connect. A variant's build (another margin) tells
   each of its steps on the way, shown in the progress bar. */
(function () {
  "use strict";

  var root = document.getElementById("leaderboard-building");
  if (!root) return;
  var POLL_MS = 3000;
  var sectionsUrl = root.getAttribute("data-sections-url");
  var wsPath = root.getAttribute("data-websocket-path");
  var setting = root.getAttribute("data-setting");
  var margin = parseFloat(root.getAttribute("data-margin"));
  var box = root.querySelector(".build-progress");
  var bar = document.getElementById("build-progress");
  var stepText = document.getElementById("build-step");

  function showProgress(progress) {
    if (!progress || !box) return;
    box.hidden = false;
    bar.max = progress.total;
    bar.value = progress.done;
    stepText.textContent = "Step " + (progress.done + 1) + " of " + progress.total + ": " + progress.step + "…";
  }

  function poll() {
    fetch(sectionsUrl, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) {
        if (response.status !== 202) {
          window.location.reload(); // built, or an error the page itself will explain
          return null;
        }
        window.setTimeout(poll, POLL_MS);
        return response.json();
      })
      .then(function (payload) { if (payload) showProgress(payload.progress); })
      .catch(function () { window.setTimeout(poll, POLL_MS); });
  }

  if (window.WebSocket) {
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + window.location.host + wsPath);
    socket.addEventListener("message", function (event) {
      var message = JSON.parse(event.data);
      if (!message.progress) {
        window.location.reload(); // a build landed
        return;
      }
      // Steps of another page's variant are not this page's.
      if (message.progress.setting === setting && message.progress.margin === margin) showProgress(message.progress);
    });
  }
  window.setTimeout(poll, POLL_MS);
})();
