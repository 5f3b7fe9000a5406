"""python -m scoring.genres.calibration [--embedder NAME] [--mode sum|concat] [--dry-run]"""

import argparse
import json
from collections.abc import Sequence

from scoring.genres.calibration import RESULTS_FILE, calibrate
from scoring.genres.embedders import EMBEDDERS, get_embedder
from scoring.genres.similarity import EMBEDDING_MODES


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description="Choose the cosine threshold φ that best separates paraphrase pairs from different facts."
    )
    parser.add_argument("--embedder", default="hashing", choices=sorted(EMBEDDERS))
    parser.add_argument("--mode", default="sum", choices=EMBEDDING_MODES)
    parser.add_argument("--dry-run", action="store_true", help=f"print only; leave {RESULTS_FILE.name} as it is")
    arguments = parser.parse_args(argv)

    result = calibrate(get_embedder(arguments.embedder), arguments.mode)
    print(
        f"{result['embedder']} ({result['model']}), mode {result['mode']}: "
        f"{result['pairs']['same']} paraphrase pairs, {result['pairs']['different']} different-fact pairs"
    )
    print(f"{'cosine':>10} " + " ".join(f"{name:>7}" for name in result["cosine_quantiles"]["same"]))
    for group, values in result["cosine_quantiles"].items():
        print(f"{group:>10} " + " ".join(f"{value:7.3f}" for value in values.values()))
    print(
        f"φ = {result['threshold']}: balanced accuracy {result['balanced_accuracy']:.3f}, "
        f"F1 {result['f1']:.3f} (paraphrases kept {result['recall_same']:.0%}, "
        f"different facts told apart {result['specificity_different']:.0%})"
    )

    if not arguments.dry_run:
        results = json.loads(RESULTS_FILE.read_text()) if RESULTS_FILE.exists() else {}
        results[f"{result['embedder']}/{result['mode']}"] = result
        RESULTS_FILE.write_text(json.dumps(dict(sorted(results.items())), indent=2) + "\n")
        print(f"written to {RESULTS_FILE}")


if __name__ == "__main__":
    main()
