"""python manage.py import_benchmark: a whole benchmark (datasets and every system's outputs) in one command."""

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from scoring.imports import ImportRefused, ImportSummary
from scoring.manifests import (
    DatasetEntry,
    FileList,
    ManifestError,
    OutputsEntry,
    find_by_pattern,
    import_entry,
    load_manifest,
    read_file_list,
)


class Command(BaseCommand):
    help = (
        "Import a benchmark: datasets and the outputs of many systems (raw replies or parsed triples), listed "
        "by a manifest or found under a folder by naming patterns. Every file goes through the import service: "
        "a bad file is refused whole, and a file imported before is recognised, so running the command again "
        "imports only what is new or changed."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("folder", nargs="?", help="The folder the --datasets and --outputs patterns look in.")
        parser.add_argument("--manifest", help="A manifest of datasets and outputs (docs/formats.md).")
        parser.add_argument(
            "--datasets", help='Pattern of dataset files under the folder, e.g. "datasets/{dataset}_processed.json".'
        )
        parser.add_argument(
            "--outputs",
            help='Pattern of output files, e.g. "processed_results/{dataset}_rand_{size}_{system}_{seed}.json".',
        )
        parser.add_argument(
            "--main-seed",
            help="With {seed}: the run that keeps the system's plain name; the others are named "
            '"<system> (seed <seed>)". All runs of a system form its replicate group.',
        )
        parser.add_argument(
            "--lenient",
            action="store_true",
            help="Drop malformed triples of parsed outputs with a warning (kept for the reference rules) "
            "instead of refusing the file.",
        )
        parser.add_argument(
            "--skip",
            action="append",
            default=[],
            metavar="GLOB",
            help='Leave out the files whose name or path under the folder matches, e.g. "*_rand_100_*" (repeatable).',
        )
        parser.add_argument("--json", action="store_true", help="Print one JSON object instead of a summary.")

    def handle(self, *args: Any, **options: Any) -> None:
        files = self.file_list(options)
        imported: list[tuple[DatasetEntry | OutputsEntry, ImportSummary]] = []
        with tqdm(total=len(files.entries), unit="file", desc="import", file=sys.stderr) as bar:
            for entry in files.entries:
                bar.set_postfix_str(entry.file.name, refresh=False)
                try:
                    imported.append((entry, import_entry(entry)))
                except ImportRefused as refusal:
                    done = sum(1 for _, summary in imported if not summary.unchanged)
                    raise CommandError(
                        f"{refusal}\n{done} file(s) imported before this one stay imported; "
                        "run the command again once the file is mended."
                    ) from None
                bar.update()
        self.report(imported, options["json"])

    @staticmethod
    def file_list(options: dict[str, Any]) -> FileList:
        manifest, folder, outputs = options["manifest"], options["folder"], options["outputs"]
        if bool(manifest) == bool(folder):
            raise CommandError("give either --manifest FILE or a FOLDER with --outputs (and --datasets)")
        try:
            if manifest:
                if options["datasets"] or outputs:
                    raise CommandError("--datasets and --outputs read a folder; a manifest lists its files itself")
                return read_file_list(load_manifest(manifest), manifest)
            if not outputs:
                raise CommandError("a folder needs --outputs, the naming pattern of the output files")
            return find_by_pattern(
                folder,
                datasets=options["datasets"],
                outputs=outputs,
                main_seed=options["main_seed"],
                lenient=options["lenient"],
                skip=options["skip"],
            )
        except ManifestError as error:
            raise CommandError(str(error)) from None

    def report(self, imported: list[tuple[DatasetEntry | OutputsEntry, ImportSummary]], as_json: bool) -> None:
        datasets = [(entry, summary) for entry, summary in imported if isinstance(entry, DatasetEntry)]
        outputs = [(entry, summary) for entry, summary in imported if not isinstance(entry, DatasetEntry)]
        unchanged = sum(summary.unchanged for _, summary in imported)
        if as_json:
            self.stdout.write(
                json.dumps(
                    {
                        "datasets": [entry.report(summary) for entry, summary in datasets],
                        "outputs": [entry.report(summary) for entry, summary in outputs],
                        "unchanged": unchanged,
                    }
                )
            )
            return
        for _, summary in imported:
            if not summary.unchanged:
                self.stdout.write(summary.message)
        self.stdout.write(
            self.style.SUCCESS(
                f"{len(datasets)} dataset file(s), {len(outputs)} output file(s): "
                f"{len(imported) - unchanged} imported, {unchanged} unchanged."
            )
        )
