// Live progress of the imports running in the background on the upload page: each import's
// websocket pushes its state as it reads and stores; while a socket is down the page polls
// that import's JSON status instead. When an import ends the page reloads to show its outcome.
(function () {
  "use strict";
  var POLL_MS = 2000;
  var RECONNECT_MS = 5000;

  function follow(job) {
    var pollTimer = null;
    var ended = false;

    function render(state) {
      var bar = job.querySelector(".progress");
      bar.setAttribute("aria-valuenow", state.percent);
      bar.querySelector("span").style.width = state.percent + "%";
      job.querySelector('[data-field="stage_label"]').textContent = state.stage_label;  // text only, never HTML
      job.querySelector('[data-field="percent"]').textContent = state.percent;
      if (!state.active && !ended) {
        ended = true;
        if (pollTimer !== null) { window.clearInterval(pollTimer); }
        window.location.reload();
      }
    }

    function poll() {
      fetch(job.dataset.progressUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (state) { if (state) { render(state); } })
        .catch(function () { /* offline for a moment: the next poll tries again */ });
    }

    function connect() {
      var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
      var socket = new WebSocket(scheme + window.location.host + "/ws/uploads/" + job.dataset.upload + "/");
      socket.onopen = function () {
        if (pollTimer !== null) { window.clearInterval(pollTimer); pollTimer = null; }
      };
      socket.onmessage = function (event) { render(JSON.parse(event.data)); };
      socket.onclose = function () {
        if (ended) { return; }
        if (pollTimer === null) { pollTimer = window.setInterval(poll, POLL_MS); }
        window.setTimeout(connect, RECONNECT_MS);
      };
    }

    if (window.WebSocket) { connect(); } else { pollTimer = window.setInterval(poll, POLL_MS); }
  }

  document.querySelectorAll(".upload-job[data-upload]").forEach(follow);
})();
