"""import_benchmark: a folder in the GENRES release layout (our own content) or a manifest, in one command."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from scoring.models import Dataset, Output, System, Upload

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]

TOY = {
    "Marie Curie was born in Warsaw.": [["Marie Curie", "born in", "Warsaw"]],
    "Paris is the capital of France.": [["Paris", "capital of", "France"]],
}
MINI = {"Aspirin relieves headache.": [["Aspirin", "relieves", "headache"]]}
CURIE, PARIS = TOY


def write(path, value):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value), encoding="utf-8")


@pytest.fixture
def release(tmp_path):
    """Datasets and parsed outputs named as the authors name theirs; two seeds of model-a on toy."""
    write(tmp_path / "datasets/processed/toy_processed.json", TOY)
    write(tmp_path / "datasets/processed/mini_processed.json", MINI)
    parsed = tmp_path / "processed_results"
    write(parsed / "toy_rand_2_model-a_1.json", {CURIE: [["Marie Curie", "born in", "Warsaw"]], PARIS: []})
    write(parsed / "toy_rand_2_model-a_54.json", {CURIE: [], PARIS: [["Paris", "capital of", "France"]]})
    # A system name with "_" in it, and a malformed item (an empty object) kept for the reference rules.
    write(parsed / "toy_rand_2_gpt-3.5_closed_1.json", {CURIE: [["Marie Curie", "born in", ""]], PARIS: []})
    write(parsed / "mini_rand_1_model-a_1.json", {"Aspirin relieves headache.": [["Aspirin", "relieves", "pain"]]})
    return tmp_path


def import_release(folder, *extra):
    out = io.StringIO()
    call_command(
        "import_benchmark",
        str(folder),
        "--datasets",
        "datasets/processed/{dataset}_processed.json",
        "--outputs",
        "processed_results/{dataset}_rand_{size}_{system}_{seed}.json",
        "--main-seed",
        "1",
        "--lenient",
        "--json",
        *extra,
        stdout=out,
    )
    return json.loads(out.getvalue())


def test_a_folder_by_naming_pattern(release, capsys):
    result = import_release(release)
    assert "6/6" in capsys.readouterr().err  # the progress bar
    assert sorted(Dataset.objects.values_list("name", flat=True)) == ["mini", "toy"]
    runs = {
        system.name: (system.replicate_group, system.seed) for system in System.objects.exclude(is_ground_truth=True)
    }
    assert runs == {
        "model-a": ("model-a", "1"),
        "model-a (seed 54)": ("model-a", "54"),
        "gpt-3.5_closed": ("gpt-3.5_closed", "1"),
    }
    assert Output.objects.filter(system__name="model-a").count() == 3  # toy and mini
    closed = Output.objects.get(system__name="gpt-3.5_closed", text__content=CURIE)
    assert (closed.triples, closed.malformed) == ([], [["Marie Curie", "born in", ""]])
    assert [entry["unchanged"] for entry in result["datasets"] + result["outputs"]] == [False] * 6
    assert [(entry["dataset"], entry["system"], entry["seed"]) for entry in result["outputs"]] == [
        ("mini", "model-a", "1"),
        ("toy", "gpt-3.5_closed", "1"),
        ("toy", "model-a", "1"),
        ("toy", "model-a (seed 54)", "54"),
    ]


def test_running_again_imports_nothing_twice(release):
    import_release(release)
    before = (Output.objects.count(), System.objects.count(), Dataset.objects.count())
    result = import_release(release)
    assert result["unchanged"] == 6
    assert (Output.objects.count(), System.objects.count(), Dataset.objects.count()) == before
    # A changed file is imported again, the rest recognised.
    write(release / "processed_results/toy_rand_2_model-a_54.json", {CURIE: [["Marie Curie", "born in", "Warsaw"]]})
    result = import_release(release)
    assert result["unchanged"] == 5
    assert Output.objects.get(system__name="model-a (seed 54)", text__content=CURIE).triples == [
        ["Marie Curie", "born in", "Warsaw"]
    ]


def test_a_manifest_with_raw_replies_and_replicates(tmp_path):
    write(tmp_path / "toy.json", TOY)
    write(tmp_path / "raw/run1.json", {CURIE: 'Triples: ["Marie Curie", "born in", "Warsaw"]', PARIS: "none"})
    write(tmp_path / "raw/run2.json", {CURIE: "[]", PARIS: '["Paris", "capital of", "France"]'})
    outputs = [
        {"file": f"raw/run{n}.json", "dataset": "toy", "system": f"llm run {n}", "replicate_of": "llm", "seed": n}
        for n in (1, 2)
    ]
    write(tmp_path / "manifest.json", {"datasets": [{"file": "toy.json", "name": "toy"}], "outputs": outputs})
    call_command("import_benchmark", "--manifest", str(tmp_path / "manifest.json"), stdout=io.StringIO())
    assert Output.objects.get(system__name="llm run 1", text__content=CURIE).raw.startswith("Triples:")
    assert Output.objects.get(system__name="llm run 2", text__content=PARIS).triples == [
        ["Paris", "capital of", "France"]
    ]
    assert sorted(System.objects.filter(replicate_group="llm").values_list("seed", flat=True)) == ["1", "2"]


def test_a_bad_file_stops_the_command_and_names_it(release):
    write(release / "processed_results/toy_rand_2_model-b_1.json", {"A text the dataset lacks.": []})
    with pytest.raises(CommandError, match=r"toy_rand_2_model-b_1\.json: .*not in dataset \"toy\"") as error:
        import_release(release)
    assert "stay imported" in str(error.value)
    assert not System.objects.filter(name="model-b").exists()
    assert Upload.objects.filter(outcome=Upload.Outcome.FAILED, system_name="model-b").exists()


@pytest.mark.parametrize(
    "arguments, message",
    [
        ((), "either --manifest FILE or a FOLDER"),
        (("{folder}",), "a folder needs --outputs"),
        (("{folder}", "--outputs", "processed_results/{system}.json"), r"needs the placeholder\(s\) \{dataset\}"),
        (
            ("{folder}", "--outputs", "processed_results/{dataset}_rand_{size}_{system}_{seed}.json"),
            'dataset "mini" is neither found',
        ),
        (("{folder}/nowhere", "--outputs", "{dataset}_{system}.json"), "there is no folder"),
    ],
)
def test_requests_that_cannot_work_are_refused_before_any_import(release, arguments, message):
    arguments = [argument.replace("{folder}", str(release)) for argument in arguments]
    with pytest.raises(CommandError, match=message):
        call_command("import_benchmark", *arguments, stdout=io.StringIO())
    assert not Upload.objects.exists()


def test_two_files_for_one_system_and_dataset_are_refused_unless_one_is_skipped(release):
    # The release's human-evaluation subset names the same dataset and system as the full sample.
    write(release / "processed_results/toy_rand_1_model-a_1.json", {CURIE: []})
    with pytest.raises(CommandError, match=r"toy_rand_1_model-a_1\.json and .*toy_rand_2_model-a_1\.json both hold"):
        import_release(release)
    assert not Upload.objects.exists()
    result = import_release(release, "--skip", "toy_rand_1_*")
    assert len(result["outputs"]) == 4
