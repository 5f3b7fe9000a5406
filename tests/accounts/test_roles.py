"""The three roles: what each grants, reading them back one by one or for a whole list, and the demo's researcher."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from accounts.roles import Role, role_of, set_role, with_roles
from core.permissions import VIEW_OUTPUTS
from tests.accounts.conftest import make_user

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]


@pytest.mark.parametrize("role", Role.values)
def test_a_role_set_reads_back_the_same(role):
    user = make_user(role)
    fresh = get_user_model().objects.get(pk=user.pk)
    assert role_of(user) == role_of(fresh) == role
    assert fresh.is_staff == (role == Role.STAFF)
    assert fresh.has_perm(VIEW_OUTPUTS) == (role != Role.ANNOTATOR)


def test_changing_a_role_takes_away_what_the_old_one_gave():
    user = make_user(Role.STAFF)
    user.is_superuser = True
    user.save()
    set_role(user, Role.ANNOTATOR)
    fresh = get_user_model().objects.get(pk=user.pk)
    assert not fresh.is_staff and not fresh.is_superuser and not fresh.has_perm(VIEW_OUTPUTS)
    assert role_of(user) == Role.ANNOTATOR  # the permission cache of the object itself is fresh too


def test_with_roles_agrees_with_role_of_in_one_query(django_assert_num_queries):
    for role in Role.values:
        make_user(role)
    get_user_model().objects.create_superuser("root", "root@example.org", "x")
    via_group = make_user(Role.ANNOTATOR, "grouped")
    group = Group.objects.create(name="readers")
    group.permissions.add(*get_user_model().objects.get(username="researcher").user_permissions.all())
    via_group.groups.add(group)

    with django_assert_num_queries(1):
        listed = {user.username: user.role for user in with_roles(get_user_model().objects.all())}

    assert listed == {user.username: role_of(user) for user in get_user_model().objects.all()}
    assert listed["root"] == Role.STAFF and listed["grouped"] == Role.RESEARCHER
