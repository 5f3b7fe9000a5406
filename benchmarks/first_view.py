"""The demo leaderboard's first and repeat views in headless Chromium, now and at a baseline revision.

``python -m benchmarks.leaderboard_page --browser [--rounds 3] [--baseline REV]`` (this module).
Each tree, the working tree and the baseline (``git archive REV``, by default the last revision
with unversioned static names and the full plotly.js), runs ``python -m genres_site.serve --demo``
on a free port with a var directory of its own (database, embedded Redis, collected static
files), both at once. Signed in as the demo's admin, for each round and tree in turn:

* first view: a new browser context (empty cache) opens the demo-sentences leaderboard;
* repeat view: the same context opens it again (what a browser keeps is reused).

Each view gives the time from navigation to usable (DOMContentLoaded: the page's scripts have
run, the tables sort and the controls answer) and to all plots drawn (every figure has its SVG),
and the bytes transferred (the page's and its files' transfer sizes: 0 for a file from the
cache). Medians over the rounds, with the machine's load average beside each line.
"""

import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

# The last revision before versioned static file names and the partial plotly.js bundle.
BASELINE = "29ff752"
DATASET = "demo-sentences"
STARTUP_TIMEOUT = 900
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
VIEWPORT = {"width": 1280, "height": 900}
ALL_PLOTS_DRAWN = """() => {
  const plots = [...document.querySelectorAll(".plot[data-plot]")];
  return plots.length > 0 && plots.every((plot) => plot.querySelector(".main-svg")) ? performance.now() : false;
}"""
TIMINGS = """() => {
  const navigation = performance.getEntriesByType("navigation")[0];
  const resources = performance.getEntriesByType("resource");
  return {
    usable: navigation.domContentLoadedEventEnd,
    bytes: navigation.transferSize + resources.reduce((sum, entry) => sum + entry.transferSize, 0),
    fetched: resources.filter((entry) => entry.transferSize > 0).length,
    files: resources.length,
    network: resources.filter((entry) => entry.transferSize > 0)
      .map((entry) => new URL(entry.name).pathname + " " + Math.round(entry.transferSize / 1000) + " kB"),
  };
}"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def load() -> str:
    return "load " + " ".join(f"{value:.2f}" for value in os.getloadavg())


@dataclass
class Server:
    """``serve --demo`` of one tree, its output read by a thread (the workers' logs would fill a pipe)."""

    name: str
    tree: Path
    var_dir: Path
    port: int = field(default_factory=free_port)
    lines: list[str] = field(default_factory=list)
    process: subprocess.Popen | None = None

    def start(self) -> None:
        env = {**os.environ, "GENRES_VAR_DIR": str(self.var_dir), "PYTHONUNBUFFERED": "1"}
        for variable in ("DATABASE_URL", "REDIS_URL", "DEBUG"):
            env.pop(variable, None)
        command = [sys.executable, "-m", "genres_site.serve", "--demo", "--port", str(self.port), "--web-workers", "1"]
        self.process = subprocess.Popen(
            command, cwd=self.tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)

    def wait_until_ready(self) -> str:
        """The admin's password, once the app answers and no leaderboard build is under way."""
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while not any("GENRES Arena is running" in line for line in self.lines):
            assert self.process is not None
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"{self.name}: serve did not start:\n{''.join(self.lines[-40:])}")
            time.sleep(0.5)
        # Builds queued at start-up would share the CPU with the views measured.
        while self._builds_under_way() and time.monotonic() < deadline:
            time.sleep(1)
        password = re.search(r"admin\s+password (\S+)", "".join(self.lines))
        assert password, "no admin password in the banner"
        return password.group(1)

    def _builds_under_way(self) -> bool:
        text = "".join(self.lines)
        return text.count(": leaderboard.jobs.build_leaderboards(") > text.count("Successfully completed leaderboard")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()


def signed_in_state(browser, server: Server, password: str) -> dict:
    """The cookies of a signed-in admin, from a context of its own (so the login page warms no cache)."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.goto(f"{server.url}/accounts/login/")
    page.fill("input[name=username]", "admin")
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_load_state()
    state = context.storage_state()
    context.close()
    return state


def view(page, url: str) -> dict:
    page.goto(url, wait_until="domcontentloaded")
    drawn = page.wait_for_function(ALL_PLOTS_DRAWN, polling="raf").json_value()
    return {**page.evaluate(TIMINGS), "drawn": drawn}


def measure_round(browser, server: Server, state: dict) -> dict[str, dict]:
    context = browser.new_context(viewport=VIEWPORT, storage_state=state)
    context.set_default_timeout(180_000)  # a loaded machine (see the load printed) is slow, not broken
    page = context.new_page()
    url = f"{server.url}/leaderboard/{DATASET}/"
    first = view(page, url)
    repeat = view(page, url)
    context.close()
    return {"first": first, "repeat": repeat}


def report(name: str, kind: str, views: list[dict]) -> None:
    def median(key):
        return statistics.median(view[key] for view in views)

    print(
        f"  {name:<8} {kind:<7} usable {median('usable') / 1000:5.2f} s   all plots drawn {median('drawn') / 1000:5.2f} s"
        f"   {median('bytes') / 1e6:6.2f} MB transferred ({median('fetched'):.0f} of {median('files'):.0f} files"
        f" from the network)   {load()}",
        flush=True,
    )
    print(f"{'':13}from the network (first round): {', '.join(views[0]['network']) or 'nothing but the page'}")


def main(baseline: str, rounds: int) -> None:
    from playwright.sync_api import sync_playwright

    from benchmarks.hot_paths import REPOSITORY, export_revision

    print(f"machine {load()} before starting the servers", flush=True)
    work = Path(tempfile.mkdtemp(prefix="genres-first-view-"))
    baseline_tree = export_revision(baseline, Path(__file__))
    servers = [Server("now", REPOSITORY, work / "now"), Server(baseline, baseline_tree, work / "before")]
    try:
        for server in servers:
            server.start()
        passwords = [server.wait_until_ready() for server in servers]
        print(f"both servers up ({load()}); {rounds} rounds, {DATASET} at 1280 px", flush=True)
        results: dict[str, dict[str, list[dict]]] = {server.name: {"first": [], "repeat": []} for server in servers}
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            states = [
                signed_in_state(browser, server, password) for server, password in zip(servers, passwords, strict=True)
            ]
            for _ in range(rounds):
                for server, state in zip(servers, states, strict=True):
                    for kind, measured in measure_round(browser, server, state).items():
                        results[server.name][kind].append(measured)
            browser.close()
        for kind in ("first", "repeat"):
            for server in servers:
                report(server.name, kind, results[server.name][kind])
    finally:
        for server in servers:
            server.stop()
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(baseline_tree, ignore_errors=True)
