/* Leaderboard page: sortable tables, the Elo / Bradley–Terry toggle, plotly figures, and live
   refresh over a websocket. Also runs inside the static export, where there is no server. */
(function () {
  "use strict";

  var root = document.getElementById("leaderboard");
  if (!root) return;
  var plots = JSON.parse(document.getElementById("leaderboard-plots").textContent);
  // Builds are debounced on the server: this only folds messages that arrive together.
  var REFRESH_DELAY_MS = 200;

  function currentMethod() {
    var checked = root.querySelector('input[name="method"]:checked');
    return checked ? checked.value : "elo";
  }

  /* Sorting: every table.sortable, by the data-sort value of the clicked column. */
  function sortValue(row, column, numeric) {
    var cell = row.children[column];
    var raw = cell ? cell.getAttribute("data-sort") : null;
    if (raw === null || raw === "") return null;
    return numeric ? parseFloat(raw) : raw.toLowerCase();
  }

  function sortTable(table, header, direction) {
    var column = Array.prototype.indexOf.call(header.parentNode.children, header);
    var numeric = header.querySelector("button").getAttribute("data-type") === "number";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (first, second) {
      var a = sortValue(first, column, numeric);
      var b = sortValue(second, column, numeric);
      if (a === null && b === null) return 0;
      if (a === null) return 1; // missing values stay last either way
      if (b === null) return -1;
      var order = a < b ? -1 : a > b ? 1 : 0;
      return direction === "ascending" ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    table.querySelectorAll("th[aria-sort]").forEach(function (other) { other.setAttribute("aria-sort", "none"); });
    header.setAttribute("aria-sort", direction);
    showRanksBy(table, column);
  }

  /* The scores table's rank column follows the column it is sorted by, when that column ranks
     (each of its cells carries the system's rank by it, computed with the snapshot). */
  function showRanksBy(table, column) {
    var body = table.tBodies[0];
    if (!table.querySelector("[data-rank-by]") || !body.querySelector("td:nth-child(" + (column + 1) + ")[data-rank]")) return;
    Array.prototype.forEach.call(body.rows, function (row) {
      var rank = row.children[column].getAttribute("data-rank");
      var rankCell = row.children[0];
      rankCell.textContent = rank || "—";
      rankCell.classList.toggle("tied", Boolean(rank) && rank.indexOf("–") > 0);
    });
  }

  function enableSorting(container) {
    container.querySelectorAll("table.sortable th[aria-sort] button.sort").forEach(function (button) {
      button.addEventListener("click", function () {
        var header = button.closest("th");
        var numeric = button.getAttribute("data-type") === "number";
        var current = header.getAttribute("aria-sort");
        // Numbers start high-to-low (best scores first), text A to Z.
        var direction = current === "none" ? (numeric ? "descending" : "ascending")
          : current === "ascending" ? "descending" : "ascending";
        sortTable(header.closest("table"), header, direction);
      });
    });
  }

  /* Elo / Bradley–Terry: tables of both are on the page; figures come in both versions. */
  function showMethod(method) {
    root.querySelectorAll("[data-method]").forEach(function (element) {
      element.hidden = element.getAttribute("data-method") !== method;
    });
  }

  /* One plot per task: between two, the page answers clicks and its websocket opens (drawing
     all five at once held the page for seconds on a loaded machine). Each draw reads the
     figures and the method when its turn comes, so a later call never leaves stale plots. */
  function drawPlots(onlyByMethod) {
    if (!window.Plotly) return;
    var elements = Array.prototype.filter.call(root.querySelectorAll(".plot[data-plot]"), function (element) {
      return !onlyByMethod || element.hasAttribute("data-by-method");
    });
    (function drawFrom(index) {
      if (index >= elements.length) return;
      drawPlot(elements[index]);
      window.setTimeout(function () { drawFrom(index + 1); }, 0);
    })(0);
  }

  function drawPlot(element) {
    var method = currentMethod();
    var byMethod = element.hasAttribute("data-by-method");
    var name = element.getAttribute("data-plot");
    var figure = byMethod ? plots[name][method] : plots[name];
    var layout = narrow.matches ? forPhone(figure.layout) : figure.layout;
    var data = narrow.matches ? figure.data.map(withoutColourBar) : figure.data;
    var config = {
      responsive: true,
      displaylogo: false,
      modeBarButtonsToRemove: ["select2d", "lasso2d", "autoScale2d"],
      toImageButtonOptions: { format: "png", filename: "leaderboard-" + name + "-" + (byMethod ? method : "all"), scale: 2 }
    };
    window.Plotly.react(element, data, layout, config);
  }

  /* On a phone the small multiples (one subplot per aspect side by side) are stacked, one under
     the other, each with its title above it; the other figures keep their layout. */
  var narrow = window.matchMedia("(max-width: 700px)");
  var STACKED_HEIGHT = 230;
  var STACK_GAP = 70;

  function forPhone(layout) {
    var axes = Object.keys(layout).filter(function (key) { return /^xaxis\d*$/.test(key); }).sort();
    if (axes.length < 2) return layout;
    var phone = JSON.parse(JSON.stringify(layout));
    var count = axes.length;
    var height = count * STACKED_HEIGHT + (count - 1) * STACK_GAP + 80;
    phone.height = height;
    phone.margin = { l: 56, r: 36, t: 36, b: 44 };
    var plotHeight = height - phone.margin.t - phone.margin.b;
    axes.forEach(function (xKey, index) {
      var yKey = "y" + xKey.slice(1);
      var top = 1 - index * (STACKED_HEIGHT + STACK_GAP) / plotHeight;
      var bottom = top - STACKED_HEIGHT / plotHeight;
      phone[xKey].domain = [0, 1];
      phone[yKey].domain = [Math.max(0, bottom), top];
      phone[yKey].title = { text: phone.yaxis.title ? phone.yaxis.title.text : "" };
      if (phone.annotations && phone.annotations[index]) {
        phone.annotations[index].x = 0.5;
        phone.annotations[index].y = top;
        phone.annotations[index].yanchor = "bottom";
      }
    });
    return phone;
  }
  narrow.addEventListener("change", function () { drawPlots(false); });

  /* A phone has no room beside a heatmap for its colour bar: the numbers in the cells say it. */
  function withoutColourBar(trace) {
    return trace.type === "heatmap" ? Object.assign({}, trace, { showscale: false }) : trace;
  }

  root.querySelectorAll('input[name="method"]').forEach(function (input) {
    input.addEventListener("change", function () {
      showMethod(currentMethod());
      drawPlots(true);
    });
  });
  var asked = new URLSearchParams(window.location.search).get("method");
  var askedInput = asked && root.querySelector('input[name="method"][value="' + asked.replace(/[^a-z]/g, "") + '"]');
  if (askedInput) askedInput.checked = true;

  enableSorting(root);
  showMethod(currentMethod());
  drawPlots(false);

  /* Live refresh: when a build lands, the server says what it changed and as of when; the page
     fetches the affected sections of its own setting and margin. */
  var wsPath = root.getAttribute("data-websocket-path");
  var sectionsUrl = root.getAttribute("data-sections-url");
  var status = document.getElementById("live-status");
  if (!wsPath || !sectionsUrl || !window.WebSocket) return;

  var pending = {};
  var timer = null;
  var retryDelay = 1000;

  function setStatus(text, state) {
    if (!status) return;
    status.textContent = text;
    status.setAttribute("data-state", state);
  }

  function refresh() {
    timer = null;
    var changes = Object.keys(pending);
    pending = {};
    var query = new URLSearchParams(window.location.search);
    query.delete("method");
    changes.forEach(function (change) { query.append("change", change); });
    setStatus("updating…", "busy");
    fetch(sectionsUrl + "?" + query.toString(), { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.json();
      })
      .then(function (payload) {
        showAsOf(payload.as_of);
        Object.keys(payload.sections).forEach(function (name) {
          var target = root.querySelector('[data-section="' + name + '"]');
          if (!target) return;
          target.innerHTML = payload.sections[name]; // rendered and escaped by the server's templates
          enableSorting(target);
        });
        plots = payload.plots;
        showMethod(currentMethod());
        drawPlots(false);
        root.setAttribute("data-refreshed", String(Date.now()));
        setStatus("live · updated " + new Date().toLocaleTimeString(), "live");
      })
      .catch(function () { setStatus("update failed; reload the page", "error"); });
  }

  function showAsOf(asOf) {
    root.setAttribute("data-as-of", asOf);
    var shown = document.getElementById("as-of");
    if (!shown) return;
    shown.setAttribute("datetime", asOf);
    shown.textContent = new Date(asOf).toISOString().replace("T", " ").slice(0, 19) + " UTC";
  }

  function schedule(changes) {
    changes.forEach(function (change) { pending[change] = true; });
    if (timer) window.clearTimeout(timer);
    timer = window.setTimeout(refresh, REFRESH_DELAY_MS);
  }

  var connectedBefore = false;
  function connect() {
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + window.location.host + wsPath);
    socket.addEventListener("open", function () {
      retryDelay = 1000;
      setStatus("live", "live");
      root.setAttribute("data-live", "true");
      // Whatever changed while the connection was down was not announced: refresh it all.
      if (connectedBefore) schedule(["judgements", "scores"]);
      connectedBefore = true;
    });
    socket.addEventListener("message", function (event) {
      var built = JSON.parse(event.data);
      if (new Date(built.as_of) <= new Date(root.getAttribute("data-as-of"))) return; // already shown
      if (built.changes.length) schedule(built.changes);
    });
    socket.addEventListener("close", function () {
      root.removeAttribute("data-live");
      setStatus("offline · reconnecting", "offline");
      window.setTimeout(connect, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 30000);
    });
  }
  connect();
})();
