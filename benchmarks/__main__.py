"""Run every benchmark module of this package, in name order: ``python -m benchmarks``."""

import importlib
import pkgutil

import benchmarks


def main():
    names = sorted(info.name for info in pkgutil.iter_modules(benchmarks.__path__) if info.name != "__main__")
    for name in names:
        module = importlib.import_module(f"benchmarks.{name}")
        if hasattr(module, "main"):
            print(f"== {name}", flush=True)
            module.main()


if __name__ == "__main__":
    main()
