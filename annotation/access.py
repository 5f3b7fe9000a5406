"""Who may annotate a dataset blind, and which datasets an annotator may not read while they do.

Systems are anonymous to annotators only if nothing else shows them what each system writes. So
no one who may read outputs or leaderboards by their role (staff, superusers, researchers with
the view-output permission) annotates: they are not offered, and creating or joining a campaign
refuses them. And an annotator of an open campaign may not read the outputs (dataset and text
pages, scoring runs) or the leaderboards of any dataset that names one of that campaign's
systems: systems are shared by datasets, and another dataset's pages would still tell the
verbose or repetitive system apart, and its rank would colour the judgements still to come. A
dataset names a system when it has outputs of it (hence any scores) or a campaign judging it
(hence ratings). Removed annotators count too, since they may be added back.

``blind_dataset_ids`` is that one rule, for the leaderboards (``leaderboard.access``) and for
scoring's pages, which ask it through ``core.permissions`` (scoring imports no app above it).
"""

from collections.abc import Sequence

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, Permission, User
from django.db.models import Exists, OuterRef, Q

from annotation.models import Campaign, CampaignAnnotator, TripleCheck
from core.permissions import VIEW_OUTPUTS
from scoring.models import Dataset, Output, System

APP_LABEL, CODENAME = VIEW_OUTPUTS.split(".")


def reads_outputs(user: User) -> bool:
    """Whether ``user`` may read outputs or leaderboards by their role, and so cannot judge blind."""
    return bool(getattr(user, "is_staff", False) or getattr(user, "is_superuser", False) or user.has_perm(VIEW_OUTPUTS))


def reader_refusal(readers: Sequence[AbstractBaseUser], where: str = "") -> str:
    """Why ``readers`` (``reads_outputs``) may not annotate ``where`` (a dataset's name, or anywhere), naming them."""
    names = ", ".join(reader.get_username() for reader in readers)
    return (
        f"{names} may read system outputs and leaderboards{f' of {where}' if where else ''} (staff, superuser or "
        "the view-output permission) and so cannot judge systems blind: choose annotators who cannot."
    )


def output_readers() -> Q:
    """A filter on users for those ``reads_outputs`` holds for, the permission given directly or through a group."""
    granted = Permission.objects.filter(
        Q(user=OuterRef("pk")) | Q(group__user=OuterRef("pk")), content_type__app_label=APP_LABEL, codename=CODENAME
    )
    return Q(is_staff=True) | Q(is_superuser=True) | Q(Exists(granted))


def blind_dataset_ids(user: AbstractBaseUser | AnonymousUser) -> set[int]:
    """Ids of the datasets that name a system of an open campaign ``user`` annotates (pairwise or triple check)."""
    if not user.is_authenticated:
        return set()
    pairwise = CampaignAnnotator.objects.filter(annotator_id=user.pk, campaign__is_open=True).values(
        "campaign__systems"
    )
    # Labelling single triples is judging them blind too: anyone holding labels of an open triple
    # check (removed annotators keep their saved ones).
    triples = TripleCheck.objects.filter(items__labels__annotator=user.pk, is_open=True).values("systems")
    blind = System.objects.filter(Q(pk__in=pairwise) | Q(pk__in=triples))
    if not blind.exists():
        return set()
    named = Dataset.objects.filter(
        Exists(Output.objects.filter(text__dataset=OuterRef("pk"), system__in=blind))
        | Exists(Campaign.objects.filter(dataset=OuterRef("pk"), systems__in=blind))
    )
    return set(named.values_list("pk", flat=True))
