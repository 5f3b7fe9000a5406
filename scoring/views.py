from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.shortcuts import render

from scoring.models import Dataset


@login_required
def home(request):
    datasets = Dataset.objects.annotate(text_count=Count("texts", distinct=True))
    return render(request, "scoring/home.html", {"datasets": datasets})
