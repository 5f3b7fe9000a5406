"""Views of the annotation app: campaign pages for staff (``campaigns``), annotator pages (``annotate``)."""
