"""Queued import files move from MEDIA_ROOT/imports/ into the database (UploadChunk rows), so
that workers on several machines share nothing but the database and Redis."""

import os
from pathlib import Path

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

CHUNK_BYTES = 1024 * 1024


def move_waiting_files_into_the_database(apps, schema_editor):
    """Each file still waiting for its job is read into chunks and deleted; a file that is gone
    fails its upload, as its job would have."""
    Upload = apps.get_model("scoring", "Upload")
    UploadChunk = apps.get_model("scoring", "UploadChunk")
    # Where the files waited before this migration (GENRES_MEDIA_ROOT, by default under the var directory).
    media_root = Path(os.environ.get("GENRES_MEDIA_ROOT") or Path(settings.VAR_DIR) / "media")
    # The database being migrated, which need not be the default (manage.py migrate --database).
    database = schema_editor.connection.alias
    for upload in Upload.objects.using(database).exclude(source=""):
        path = media_root / upload.source.name
        if upload.outcome in ("queued", "running") and path.is_file():
            with path.open("rb") as waiting:
                index = 0
                while data := waiting.read(CHUNK_BYTES):
                    UploadChunk.objects.using(database).create(upload=upload, index=index, data=data)
                    index += 1
        elif upload.outcome in ("queued", "running"):
            upload.outcome = "failed"
            upload.message = "The import stopped before it finished: its file is gone; nothing was imported."
            upload.save(update_fields=["outcome", "message"])
        path.unlink(missing_ok=True)
    if schema_editor.connection.vendor == "postgresql":
        # The chunks' foreign keys are checked at commit; checked now, so that the table can still be altered.
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0006_repro_reference_rules_replicates"),
    ]

    operations = [
        migrations.CreateModel(
            name="UploadChunk",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("index", models.PositiveIntegerField()),
                ("data", models.BinaryField()),
                (
                    "upload",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="chunks", to="scoring.upload"
                    ),
                ),
            ],
            options={
                "constraints": [models.UniqueConstraint(fields=("upload", "index"), name="upload_chunk_unique_index")],
            },
        ),
        migrations.RunPython(move_waiting_files_into_the_database, migrations.RunPython.noop),
        migrations.RemoveField(
            model_name="upload",
            name="source",
        ),
    ]
