"""Triple adjudications: staff's gold label of a sampled triple moves from two bare fields of the
item to a model of its own that records who settled it and when. Labels already recorded in the
admin move with it (their author and time unknown: none, and the time of this migration); a
field left empty there is filled as the gold label was read: the majority of the annotators on
support, the lower median of their fact counts. One with neither (an even split and no support
recorded) had no gold label and gets none."""

import django.core.validators
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.utils import timezone

from annotation.triple_checks.statistics import gold_label


def move_adjudications(apps, schema_editor):
    # The database being migrated, which is not always the default one (copy_database migrates its target).
    database = schema_editor.connection.alias
    item_model = apps.get_model("annotation", "TripleCheckItem")
    label_model = apps.get_model("annotation", "TripleLabel")
    adjudication_model = apps.get_model("annotation", "TripleAdjudication")
    recorded = item_model.objects.using(database).filter(
        models.Q(adjudicated_supported__isnull=False) | models.Q(adjudicated_facts__isnull=False), attention=False
    )
    now = timezone.now()
    for item in recorded:
        answers = list(
            label_model.objects.using(database)
            .filter(item=item, saved_at__isnull=False)
            .values_list("supported", "facts")
        )
        majority, median = gold_label([supported for supported, _ in answers], [facts for _, facts in answers])
        supported = majority if item.adjudicated_supported is None else item.adjudicated_supported
        facts = median if item.adjudicated_facts is None else item.adjudicated_facts
        if supported is not None and facts is not None:
            adjudication_model.objects.using(database).create(
                item=item, supported=supported, facts=facts, adjudicated_at=now
            )


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0005_triple_checks"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="TripleAdjudication",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("supported", models.BooleanField()),
                (
                    "facts",
                    models.PositiveSmallIntegerField(
                        validators=[
                            django.core.validators.MinValueValidator(1),
                            django.core.validators.MaxValueValidator(5),
                        ]
                    ),
                ),
                ("adjudicated_at", models.DateTimeField()),
                (
                    "adjudicated_by",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="triple_adjudications",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "item",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="adjudication",
                        to="annotation.triplecheckitem",
                    ),
                ),
            ],
            options={
                "ordering": ["item"],
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(("facts__gte", 1), ("facts__lte", 5)),
                        name="triple_adjudication_facts_on_the_scale",
                    )
                ],
            },
        ),
        migrations.RunPython(move_adjudications, migrations.RunPython.noop),
        migrations.RemoveField(model_name="triplecheckitem", name="adjudicated_facts"),
        migrations.RemoveField(model_name="triplecheckitem", name="adjudicated_supported"),
    ]
