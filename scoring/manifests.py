"""Lists of files to import: the datasets and outputs of a manifest, or of a folder read by naming pattern.

Shared by ``import_benchmark`` and ``load_demo``. Every entry is checked (its file exists, its
format is known, its dataset is named) before anything is imported; each file then goes through
the import service (``scoring.imports``), which refuses a bad file as a whole and recognises a
file it has already imported, so importing the same list again changes nothing.

A manifest is a JSON object (docs/formats.md)::

    {"datasets": [{"file": "...", "name": "...", "level": "...", "domain": "...", "format": "..."}],
     "outputs": [{"file": "...", "dataset": "...", "system": "...", "family": "...", "format": "...",
                  "lenient": false, "replicate_of": "...", "seed": "..."}]}

A naming pattern is a path under a folder with placeholders: ``{dataset}``, ``{system}``,
``{seed}`` (no "_" or "." inside) and any other ``{name}`` (matched, then ignored), e.g.
``processed_results/{dataset}_rand_{size}_{system}_{seed}.json``.
"""

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.files import File
from django.db import models

from scoring.genres.formats import AUTO, DATASET_FORMATS, OUTPUT_FORMATS
from scoring.imports import ImportRefused, ImportSummary, import_dataset, import_outputs
from scoring.models import Dataset, System


class ManifestError(ValueError):
    """A list of files that cannot be imported as it stands; the message names the entry."""


@dataclass(frozen=True)
class DatasetEntry:
    file: Path
    name: str
    level: str = Dataset.Level.SENTENCE
    domain: str = Dataset.Domain.GENERAL
    description: str = ""
    format: str = AUTO

    def run_import(self, source: File, user: User | None) -> ImportSummary:
        return import_dataset(
            source,
            file_name=self.file.name,
            name=self.name,
            level=self.level,
            domain=self.domain,
            description=self.description,
            format=self.format,
            user=user,
        )

    def report(self, summary: ImportSummary) -> dict[str, Any]:
        return {"name": self.name, **summary.as_dict()}


@dataclass(frozen=True)
class OutputsEntry:
    """One system's outputs on one dataset; ``replicate_of`` and ``seed`` make the system one run
    of a replicate group (``System.join_replicates``)."""

    file: Path
    dataset: str
    system: str
    family: str = ""
    format: str = AUTO
    lenient: bool = False
    replicate_of: str = ""
    seed: str = ""

    def run_import(self, source: File, user: User | None) -> ImportSummary:
        summary = import_outputs(
            source,
            file_name=self.file.name,
            dataset=self.dataset,
            system_name=self.system,
            family=self.family,
            format=self.format,
            lenient=self.lenient,
            user=user,
        )
        if self.replicate_of:
            System.objects.get(name=self.system).join_replicates(self.replicate_of, self.seed)
        return summary

    def report(self, summary: ImportSummary) -> dict[str, Any]:
        report: dict[str, Any] = {"dataset": self.dataset, "system": self.system, **summary.as_dict()}
        if self.replicate_of:
            report.update(replicate_of=self.replicate_of, seed=self.seed)
        return report


@dataclass(frozen=True)
class FileList:
    datasets: list[DatasetEntry] = field(default_factory=list)
    outputs: list[OutputsEntry] = field(default_factory=list)

    @property
    def entries(self) -> list[DatasetEntry | OutputsEntry]:
        return [*self.datasets, *self.outputs]


def import_entry(entry: DatasetEntry | OutputsEntry, user: User | None = None) -> ImportSummary:
    """Import one listed file through the import service; ImportRefused names the file."""
    with entry.file.open("rb") as handle:
        try:
            return entry.run_import(File(handle, name=entry.file.name), user)
        except ImportRefused as refusal:
            raise ImportRefused(f"{entry.file}: {refusal}") from None
        except ValidationError as error:  # the system cannot join its replicate group
            raise ImportRefused(f"{entry.file}: {' '.join(error.messages)}") from None


# Manifests ---------------------------------------------------------------------------------


def load_manifest(path: str | Path) -> dict[str, Any]:
    """The manifest's JSON object, with its lists present (``datasets`` and ``outputs`` required)."""
    try:
        manifest = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ManifestError(f"cannot read the manifest {path}: {error}") from None
    except RecursionError:
        raise ManifestError(f"cannot read the manifest {path}: the JSON is nested too deeply") from None
    if (
        not isinstance(manifest, dict)
        or not isinstance(manifest.get("datasets"), list)
        or not isinstance(manifest.get("outputs"), list)
    ):
        raise ManifestError(f'{path}: expected an object with the lists "datasets" and "outputs"')
    return manifest


def read_file_list(manifest: dict[str, Any], path: str | Path) -> FileList:
    """The datasets and outputs entries of a loaded manifest, files relative to the manifest's folder."""
    base = Path(path).parent
    datasets = [
        DatasetEntry(
            file=existing_file(base, entry, where),
            name=entry["name"],
            level=known_choice(entry, "level", Dataset.Level, where),
            domain=known_choice(entry, "domain", Dataset.Domain, where),
            description=str(entry.get("description", "")),
            format=known_format(entry, DATASET_FORMATS, where),
        )
        for where, entry in entries(manifest, "datasets", ("file", "name"), path)
    ]
    dataset_names = {dataset.name for dataset in datasets}
    outputs = [
        OutputsEntry(
            file=existing_file(base, entry, where),
            dataset=known_dataset(entry, dataset_names, where),
            system=entry["system"],
            family=str(entry.get("family", "")),
            format=known_format(entry, OUTPUT_FORMATS, where),
            lenient=flag(entry, "lenient", where),
            **replicate_fields(entry, where),
        )
        for where, entry in entries(manifest, "outputs", ("file", "dataset", "system"), path)
    ]
    check_one_file_per_output(outputs)
    return FileList(datasets, outputs)


def check_one_file_per_output(outputs: list[OutputsEntry]) -> None:
    """Refuse two files for one system on one dataset: each import would replace the other's
    outputs, so the list would never import as unchanged."""
    first_file: dict[tuple[str, str], Path] = {}
    for entry in outputs:
        key = (entry.dataset, entry.system)
        if key in first_file:
            raise ManifestError(
                f'{first_file[key]} and {entry.file} both hold the outputs of "{entry.system}" on dataset '
                f'"{entry.dataset}"; list one of them (or leave one out with --skip)'
            )
        first_file[key] = entry.file


def entries(
    manifest: dict[str, Any], key: str, required: tuple[str, ...], path: str | Path
) -> Iterator[tuple[str, dict[str, Any]]]:
    for number, entry in enumerate(manifest[key], start=1):
        where = f"{path}: {key} entry {number}"
        if not isinstance(entry, dict):
            raise ManifestError(f"{where}: expected an object")
        missing = [name for name in required if not isinstance(entry.get(name), str) or not entry[name].strip()]
        if missing:
            raise ManifestError(f"{where}: missing {', '.join(missing)}")
        yield where, entry


def known_format(entry: dict[str, Any], formats: Iterable[str], where: str) -> str:
    format = entry.get("format", AUTO)
    if format not in (AUTO, *formats):
        raise ManifestError(f'{where}: unknown format "{format}"; use one of: {", ".join((AUTO, *formats))}')
    return format


def known_choice(entry: dict[str, Any], key: str, choices: type[models.TextChoices], where: str) -> str:
    value = entry.get(key, choices.values[0])
    if value not in choices.values:
        raise ManifestError(f'{where}: unknown {key} "{value}"; use one of: {", ".join(choices.values)}')
    return value


def known_dataset(entry: dict[str, Any], dataset_names: set[str], where: str) -> str:
    if entry["dataset"] not in dataset_names:
        raise ManifestError(f'{where}: dataset "{entry["dataset"]}" is not among the manifest\'s datasets')
    return entry["dataset"]


def existing_file(base: Path, entry: dict[str, Any], where: str) -> Path:
    file = base / entry["file"]
    if not file.is_file():
        raise ManifestError(f"{where}: there is no file {file}")
    return file


def flag(entry: dict[str, Any], key: str, where: str) -> bool:
    value = entry.get(key, False)
    if not isinstance(value, bool):
        raise ManifestError(f'{where}: "{key}" must be true or false')
    return value


def replicate_fields(entry: dict[str, Any], where: str) -> dict[str, str]:
    group, seed = entry.get("replicate_of", ""), entry.get("seed", "")
    if isinstance(seed, int) and not isinstance(seed, bool):
        seed = str(seed)
    if not isinstance(group, str) or not isinstance(seed, str) or bool(group.strip()) != bool(seed.strip()):
        raise ManifestError(f'{where}: give "replicate_of" and "seed" together, as names, or neither')
    return {"replicate_of": group.strip(), "seed": seed.strip()}


# Naming patterns ---------------------------------------------------------------------------

PLACEHOLDER = re.compile(r"\{(\w+)\}")
# A seed is the last, short part of a name: "gpt-3.5_closed_1" is system "gpt-3.5_closed", seed "1".
PLACEHOLDER_PATTERNS = {"seed": r"[^/_.]+"}
ANY_PART = r"[^/]+?"


def pattern_regex(pattern: str) -> re.Pattern[str]:
    """The compiled regex of a naming pattern, one named group per placeholder (repeats must agree)."""
    parts: list[str] = []
    seen: set[str] = set()
    position = 0
    for match in PLACEHOLDER.finditer(pattern):
        parts.append(re.escape(pattern[position : match.start()]))
        name = match.group(1)
        if name in seen:
            parts.append(f"(?P={name})")
        else:
            seen.add(name)
            parts.append(f"(?P<{name}>{PLACEHOLDER_PATTERNS.get(name, ANY_PART)})")
        position = match.end()
    parts.append(re.escape(pattern[position:]))
    return re.compile("".join(parts) + r"\Z")


def matching_files(
    folder: str | Path, pattern: str, required: list[str], skip: Sequence[str] = ()
) -> list[tuple[Path, dict[str, str]]]:
    """``[(path, {placeholder: value})]`` of the files under ``folder`` the pattern names, sorted by
    path, less those whose name or path under the folder matches a ``skip`` glob."""
    names = set(PLACEHOLDER.findall(pattern))
    missing = [name for name in required if name not in names]
    if missing:
        raise ManifestError(
            f'the pattern "{pattern}" needs the placeholder(s) {", ".join("{" + n + "}" for n in missing)}'
        )
    regex = pattern_regex(pattern)
    found = []
    for path in sorted(Path(folder).glob(PLACEHOLDER.sub("*", pattern))):
        relative = path.relative_to(folder).as_posix()
        match = regex.match(relative)
        skipped = any(fnmatch(relative, glob) or fnmatch(path.name, glob) for glob in skip)
        if path.is_file() and match and not skipped:
            found.append((path, match.groupdict()))
    return found


def find_by_pattern(
    folder: str | Path,
    *,
    outputs: str,
    datasets: str | None = None,
    main_seed: str | None = None,
    lenient: bool = False,
    skip: Sequence[str] = (),
) -> FileList:
    """The datasets and outputs under ``folder`` named by the patterns.

    ``outputs`` needs ``{dataset}`` and ``{system}``; with ``{seed}`` each run of a system is a
    system of its own, named "<system> (seed <seed>)" in the replicate group "<system>", except
    the run of ``main_seed``, which keeps the plain name (the paper's main tables use one seed).
    The datasets are those ``datasets`` names (``{dataset}``) or already stored. Files whose name
    or path under the folder matches a ``skip`` glob are left out.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise ManifestError(f"there is no folder {folder}")
    found_datasets = [
        DatasetEntry(file=path, name=values["dataset"])
        for path, values in (matching_files(folder, datasets, ["dataset"], skip) if datasets else [])
    ]
    known = {entry.name for entry in found_datasets}
    output_entries = []
    for path, values in matching_files(folder, outputs, ["dataset", "system"], skip):
        system, seed = values["system"], values.get("seed", "")
        if values["dataset"] not in known and not Dataset.objects.filter(name=values["dataset"]).exists():
            raise ManifestError(f'{path}: dataset "{values["dataset"]}" is neither found by the pattern nor stored')
        name = system if not seed or seed == main_seed else f"{system} (seed {seed})"
        output_entries.append(
            OutputsEntry(
                file=path,
                dataset=values["dataset"],
                system=name,
                lenient=lenient,
                replicate_of=system if seed else "",
                seed=seed,
            )
        )
    if not found_datasets and not output_entries:
        raise ManifestError(f"no file under {folder} matches the patterns")
    check_one_file_per_output(output_entries)
    return FileList(found_datasets, output_entries)
