"""Build the leaderboard's plotly.js bundle: ``python -m devtools.plotly_bundle`` (needs node and npm).

The full plotly.js (4.8 MB, 1.5 MB gzipped) holds some fifty trace types; the leaderboard draws
four. This makes a bundle of plotly.js's core with only those (1.2 MB, 0.42 MB gzipped; the
cartesian partial bundle lacks scatterpolar, which the score profile needs) from the plotly.js
release that the installed plotly package ships, so the figures plotly.py writes and the script
that draws them are of one version. It is committed under genres_site/static/vendor/ with
plotly.js's licence: a machine that runs the app has only Python and pip. Run this again after
upgrading plotly, or when a figure uses a new trace type (tests/leaderboard/test_plotly_bundle.py
fails then).
"""

import argparse
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

# The trace types of leaderboard/plots, registered on plotly.js's core.
TRACES = ("bar", "heatmap", "scatter", "scatterpolar")
ESBUILD_VERSION = "0.28.2"
VENDOR_DIR = Path(__file__).resolve().parent.parent / "genres_site" / "static" / "vendor"
BUNDLE = VENDOR_DIR / "plotly-leaderboard.min.js"
LICENSE = VENDOR_DIR / "plotly.js-LICENSE.txt"
# The bundle's first line, which the test reads back: version and trace types.
HEADER = "/*! plotly.js v{version} partial bundle, traces: {traces}. */\n"
HEADER_PATTERN = re.compile(r"/\*! plotly\.js v(?P<version>[\w.-]+) partial bundle, traces: (?P<traces>[\w, ]+)\. \*/")
NOTICE = (
    "/*! Copyright 2012-2026, Plotly, Inc. Licensed under the MIT license (plotly.js-LICENSE.txt beside this file).\n"
    " *  Built by `python -m devtools.plotly_bundle` from the plotly.js npm package with esbuild. */\n"
)


def packaged_plotly_js_version() -> str:
    """The plotly.js version of the installed plotly package (the first lines of its plotly.min.js)."""
    import importlib.util

    spec = importlib.util.find_spec("plotly")
    assert spec is not None and spec.origin is not None, "plotly, a requirement, is not installed"
    head = (Path(spec.origin).parent / "package_data" / "plotly.min.js").read_text(encoding="utf-8")[:200]
    found = re.search(r"plotly\.js v([\w.-]+)", head)
    assert found, "no version in the plotly package's plotly.min.js"
    return found.group(1)


def bundle_contents() -> tuple[str, tuple[str, ...]]:
    """The committed bundle's plotly.js version and trace types, from its header."""
    found = HEADER_PATTERN.match(BUNDLE.read_text(encoding="utf-8")[:300])
    assert found, f"{BUNDLE} has no header"
    return found.group("version"), tuple(found.group("traces").split(", "))


def build(version: str) -> None:
    with tempfile.TemporaryDirectory(prefix="plotly-bundle-") as work:
        directory = Path(work)
        subprocess.run(["npm", "init", "-y"], cwd=directory, check=True, capture_output=True)
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", f"plotly.js@{version}", f"esbuild@{ESBUILD_VERSION}"],
            cwd=directory,
            check=True,
        )
        registrations = "".join(f"  require('plotly.js/lib/{trace}'),\n" for trace in TRACES)
        entry = directory / "entry.js"
        entry.write_text(
            "var Plotly = require('plotly.js/lib/core');\n"
            f"Plotly.register([\n{registrations}]);\nmodule.exports = Plotly;\n",
            encoding="utf-8",
        )
        output = directory / "bundle.js"
        # The options of plotly.js's own esbuild-config.js that apply to these traces.
        subprocess.run(
            [
                "npx", "esbuild", str(entry), "--bundle", "--minify", "--format=iife", "--global-name=Plotly",
                "--define:global=window", "--define:define.amd=false", "--target=es2016", "--legal-comments=none",
                f"--outfile={output}",
            ],
            cwd=directory,
            check=True,
        )  # fmt: skip
        VENDOR_DIR.mkdir(parents=True, exist_ok=True)
        header = HEADER.format(version=version, traces=", ".join(TRACES)) + NOTICE
        BUNDLE.write_text(header + output.read_text(encoding="utf-8"), encoding="utf-8")
        shutil.copy(directory / "node_modules" / "plotly.js" / "LICENSE", LICENSE)
    print(f"wrote {BUNDLE} ({BUNDLE.stat().st_size / 1e6:.2f} MB): plotly.js {version}, traces {', '.join(TRACES)}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", default="", help="plotly.js version (default: the plotly package's)")
    options = parser.parse_args(argv)
    build(options.version or packaged_plotly_js_version())


if __name__ == "__main__":
    main()
