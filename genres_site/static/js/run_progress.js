// Live progress of a scoring run: the run's websocket pushes its state after every chunk; when
// the socket is down the page polls the JSON endpoint instead. A run that finishes reloads the
// page, which then renders its scores.
(function () {
  "use strict";
  var panel = document.getElementById("run-progress");
  if (!panel) { return; }
  var POLL_MS = 2000;
  var RECONNECT_MS = 5000;
  var runId = panel.dataset.run;
  var wasActive = panel.dataset.active === "true";
  var pollTimer = null;
  var socket = null;

  function setField(name, value) {
    document.querySelectorAll('[data-field="' + name + '"]').forEach(function (element) {
      element.textContent = value;  // text only: nothing from the server is parsed as HTML
      if (name === "error") { element.hidden = !value; }
    });
  }

  function render(state) {
    var bar = panel.querySelector(".progress");
    bar.setAttribute("aria-valuenow", state.percent);
    bar.querySelector("span").style.width = state.percent + "%";
    ["chunks_done", "chunks_total", "percent", "requests", "cache_hits", "tokens", "status_label", "error"].forEach(
      function (name) { setField(name, state[name]); }
    );
    setField("cost_usd", Number(state.cost_usd).toFixed(4));
    document.querySelectorAll(".run-status").forEach(function (badge) { badge.className = "badge run-status " + state.status; });
    document.querySelectorAll('[data-shown-when="can_resume"]').forEach(function (element) { element.hidden = !state.can_resume; });
    if (wasActive && !state.active) {
      stopPolling();
      window.location.reload();
    }
    wasActive = state.active;
  }

  function poll() {
    fetch(panel.dataset.progressUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (state) { if (state) { render(state); } })
      .catch(function () { /* offline for a moment: the next poll tries again */ });
  }

  function startPolling() {
    if (pollTimer === null) { pollTimer = window.setInterval(poll, POLL_MS); }
  }

  function stopPolling() {
    if (pollTimer !== null) { window.clearInterval(pollTimer); pollTimer = null; }
  }

  function connect() {
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    socket = new WebSocket(scheme + window.location.host + "/ws/runs/" + runId + "/");
    socket.onopen = stopPolling;
    socket.onmessage = function (event) { render(JSON.parse(event.data)); };
    socket.onclose = function () {
      if (!wasActive) { return; }
      startPolling();
      window.setTimeout(connect, RECONNECT_MS);
    };
  }

  if (wasActive) {
    connect();
  }
})();
