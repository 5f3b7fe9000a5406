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

  /* Figures are drawn one per task, so that between two the page answers clicks and its websocket
     opens (drawing all at once held the page for seconds on a loaded machine): those in or near
     the view first, the others when the browser is idle. plotly.js loads without holding the page
     (async): the tables sort and the controls work before it arrives, and the figures are drawn
     when it does. Each draw reads the figures and the method when its turn comes, so a later
     call never leaves stale plots. */
  var stale = [];
  var inView = new Set();
  var drawQueued = false;
  var observer = window.IntersectionObserver ? new IntersectionObserver(function (entries) {
    entries.forEach(function (entry) {
      if (entry.isIntersecting) inView.add(entry.target);
      else inView.delete(entry.target);
    });
    queueDraw();
  }, { rootMargin: "300px 0px" }) : null;

  function drawPlots(onlyByMethod) {
    root.querySelectorAll(".plot[data-plot]").forEach(function (element) {
      if (observer) observer.observe(element); // again after a refresh replaced the section: harmless
      if ((!onlyByMethod || element.hasAttribute("data-by-method")) && stale.indexOf(element) < 0) stale.push(element);
    });
    queueDraw();
  }

  function connected(element) { return element.isConnected; }

  function queueDraw() {
    stale = stale.filter(connected);
    if (drawQueued || !window.Plotly || !stale.length) return;
    drawQueued = true;
    var soon = stale.some(function (element) { return inView.has(element); });
    if (soon || !window.requestIdleCallback) window.setTimeout(drawNext, 0);
    else window.requestIdleCallback(drawNext, { timeout: 1000 });
  }

  function drawNext() {
    drawQueued = false;
    stale = stale.filter(connected);
    if (!stale.length) return;
    var visible = stale.filter(function (element) { return inView.has(element); });
    var element = visible.length ? visible[0] : stale[0];
    stale.splice(stale.indexOf(element), 1);
    drawPlot(element);
    queueDraw();
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
    window.Plotly.react(element, data, layout, config).then(function () {
      if (!element.hasAttribute("data-drawn") && element.on) element.on("plotly_afterplot", function () { placeLabels(element); });
      placeLabels(element);
      element.setAttribute("data-drawn", "true");
    });
  }

  /* Point labels (the human-vs-score scatter, whose traces carry the names as customdata): each
     name goes above, below, right or left of its point, the first of these where it overlaps no
     other name or point and stays inside its panel; a name with no such place is left to the
     hover. Placed in pixels after every draw (a resize too), so at the width shown. */
  var LABEL_SIDES = ["top center", "bottom center", "middle right", "middle left", "top right", "top left", "bottom right", "bottom left"];
  var LABEL_GAP = 6; // from the point's centre: its radius and a little air
  var textMeasure = document.createElement("canvas").getContext("2d");

  function labelBox(x, y, width, height, side) {
    var vertical = side.split(" ")[0];
    var horizontal = side.split(" ")[1];
    var gap = vertical === "middle" ? LABEL_GAP : 2; // a name above or below a point clears it already
    var left = horizontal === "center" ? x - width / 2 : horizontal === "right" ? x + gap : x - gap - width;
    var top = vertical === "top" ? y - LABEL_GAP - height : vertical === "bottom" ? y + LABEL_GAP : y - height / 2;
    return { left: left, right: left + width, top: top, bottom: top + height };
  }

  function overlaps(a, b) { return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom; }

  function labelledPoints(element) {
    var layout = element._fullLayout;
    var points = [];
    element.data.forEach(function (trace, traceIndex) {
      if (trace.type !== "scatter" || String(trace.mode).indexOf("text") < 0 || !trace.customdata) return;
      var xaxis = layout["xaxis" + (trace.xaxis || "x").slice(1)];
      var yaxis = layout["yaxis" + (trace.yaxis || "y").slice(1)];
      var font = trace.textfont && trace.textfont.size ? trace.textfont.size : 10;
      textMeasure.font = font + "px " + layout.font.family;
      trace.customdata.forEach(function (name, index) {
        points.push({
          trace: traceIndex, index: index, name: name, height: font * 1.25,
          // Its panel's plot area: a name outside it would cover the axes' numbers or a neighbour.
          panel: { left: xaxis._offset, right: xaxis._offset + xaxis._length, top: yaxis._offset - 2, bottom: yaxis._offset + yaxis._length },
          width: textMeasure.measureText(name).width + 2,
          x: xaxis._offset + xaxis.l2p(trace.x[index]), y: yaxis._offset + yaxis.l2p(trace.y[index])
        });
      });
    });
    return points;
  }

  function placeLabels(element) {
    if (!element._fullLayout || !element.data) return;
    var points = labelledPoints(element);
    if (!points.length) return;
    var taken = points.map(function (point) {
      return { left: point.x - 5, right: point.x + 5, top: point.y - 5, bottom: point.y + 5 };
    });
    var update = { text: [], textposition: [] };
    var traces = [];
    points.forEach(function (point) {
      var at = traces.indexOf(point.trace);
      if (at < 0) {
        at = traces.push(point.trace) - 1;
        update.text.push([]);
        update.textposition.push([]);
      }
      var side = LABEL_SIDES.filter(function (candidate) {
        var box = labelBox(point.x, point.y, point.width, point.height, candidate);
        var panel = point.panel;
        var inside = box.left >= panel.left && box.right <= panel.right && box.top >= panel.top && box.bottom <= panel.bottom;
        return inside && !taken.some(function (other) { return overlaps(box, other); });
      })[0];
      if (side) taken.push(labelBox(point.x, point.y, point.width, point.height, side));
      update.text[at].push(side ? point.name : "");
      update.textposition[at].push(side || "top center");
    });
    var unchanged = traces.every(function (traceIndex, at) {
      var trace = element.data[traceIndex];
      return JSON.stringify(trace.text) === JSON.stringify(update.text[at]) &&
        JSON.stringify(trace.textposition) === JSON.stringify(update.textposition[at]);
    });
    if (!unchanged) window.Plotly.restyle(element, update, traces);
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
  // plotly.js still loading (the page's script element), or missing (the export inlines it before this).
  var plotlyScript = document.getElementById("plotly-js");
  if (!window.Plotly && plotlyScript) {
    plotlyScript.addEventListener("load", queueDraw);
    plotlyScript.addEventListener("error", function () {
      root.querySelectorAll(".plot[data-plot]").forEach(function (element) {
        element.setAttribute("data-failed", "true");
      });
    });
  }

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
      if (!built.changes) return; // a step of a variant's build, for pages waiting for it
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
