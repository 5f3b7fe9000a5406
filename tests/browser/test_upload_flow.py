import json

import pytest
from django.core.files.base import ContentFile
from playwright.sync_api import expect

from scoring.imports import import_dataset

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def jsonl(*records):
    return "\n".join(json.dumps(record) for record in records)


@pytest.fixture
def demo_dataset():
    content = jsonl(
        {"id": "s1", "text": "Marie Curie was born in Warsaw.", "triples": [["Marie Curie", "born in", "Warsaw"]]},
        {"id": "s2", "text": "Aspirin relieves headache.", "triples": [["Aspirin", "treats", "headache"]]},
    )
    import_dataset(ContentFile(content.encode()), file_name="demo.jsonl", name="Demo")


@pytest.fixture
def outputs_file(tmp_path):
    path = tmp_path / "mistral.jsonl"
    path.write_text(
        jsonl(
            {"id": "s1", "triples": [["Marie Curie", "birthplace", "Warsaw"], ["Curie", "is", "physicist"]]},
            {"id": "s2", "raw": 'Answer: [["Aspirin", "relieves", "headache"]]'},
        )
    )
    return path


def test_admin_signs_in_uploads_outputs_and_sees_the_system(page, live_server, admin_user, demo_dataset, outputs_file):
    page.goto(f"{live_server.url}/")
    expect(page).to_have_url(f"{live_server.url}/accounts/login/?next=/")
    page.get_by_label("User name").fill("admin")
    page.get_by_label("Password").fill("admin-pass-123")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Datasets")).to_be_visible()

    page.get_by_role("link", name="Upload").click()
    outputs_form = page.locator("#system-outputs form")
    outputs_form.get_by_label("Dataset").select_option("Demo")
    outputs_form.get_by_label("System").fill("Mistral-7B")
    outputs_form.get_by_label("Family").fill("Mistral")
    outputs_form.get_by_label("File").set_input_files(outputs_file)
    outputs_form.get_by_role("button", name="Import outputs").click()

    expect(page.locator(".message.success")).to_contain_text('Imported 2 outputs of "Mistral-7B"')
    expect(page.locator("table.uploads tbody tr").first).to_contain_text("mistral.jsonl")

    page.get_by_role("link", name="Datasets").click()
    page.get_by_role("link", name="Demo").click()
    system_row = page.locator("table.data").first.locator("tr", has_text="Mistral-7B")
    expect(system_row).to_contain_text("Mistral")
    expect(system_row.locator("td.num").nth(0)).to_have_text("2")  # outputs
    expect(system_row.locator("td.num").nth(1)).to_have_text("3")  # triples
