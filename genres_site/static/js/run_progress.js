// Live progress of a scoring or generation run (its socket's path in data-socket): the run's websocket pushes its state after every chunk; when
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
      // Text only: nothing from the server is parsed as HTML.
      element.textContent = value === "" && element.dataset.empty ? element.dataset.empty : value;
    });
  }

  var CHUNK_CELLS = [
    ["number", ""], ["texts", "num"], ["status_label", ""], ["attempts", "num"],
    ["requests", "num"], ["cache_hits", "num"], ["finished_at", ""], ["error", "error"]
  ];

  function renderChunks(chunks) {
    var body = document.querySelector("[data-chunk-rows]");
    if (!body || !chunks) { return; }
    var rows = chunks.map(function (chunk) {
      var row = document.createElement("tr");
      CHUNK_CELLS.forEach(function (cell) {
        var td = document.createElement("td");
        if (cell[1]) { td.className = cell[1]; }
        var value = chunk[cell[0]];
        if (cell[0] === "status_label") {
          var badge = document.createElement("span");
          badge.className = "badge chunk-status " + chunk.status;
          badge.textContent = value;
          td.appendChild(badge);
        } else {
          td.textContent = value === "" && cell[0] === "finished_at" ? "—" : value;
        }
        row.appendChild(td);
      });
      return row;
    });
    body.replaceChildren.apply(body, rows);
  }

  function render(state) {
    var bar = panel.querySelector(".progress");
    bar.setAttribute("aria-valuenow", state.percent);
    bar.querySelector("span").style.width = state.percent + "%";
    ["chunks_done", "chunks_total", "percent", "requests", "cache_hits", "tokens", "status_label", "error",
      "error_detail", "started_at", "finished_at"].forEach(
      function (name) { setField(name, state[name]); }
    );
    setField("cost_usd", Number(state.cost_usd).toFixed(4));
    document.querySelectorAll(".run-status").forEach(function (badge) { badge.className = "badge run-status " + state.status; });
    document.querySelectorAll("[data-shown-when]").forEach(function (element) {
      element.hidden = !state[element.dataset.shownWhen];
    });
    renderChunks(state.chunks);
    var provenance = document.querySelector("[data-provenance]");
    // The provenance arrives once, when a worker prepares the run: the page is rendered again with it.
    if (provenance && provenance.dataset.provenance === "false" && state.has_provenance) {
      stopPolling();
      window.location.reload();
      return;
    }
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
    socket = new WebSocket(scheme + window.location.host + (panel.dataset.socket || "/ws/runs/" + runId + "/"));
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
