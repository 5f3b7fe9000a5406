"""python manage.py import_judgments: the command's former spelling, kept so that existing scripts still run."""

from annotation.management.commands.import_judgements import Command as ImportJudgements


class Command(ImportJudgements):
    help = f"The former name of import_judgements. {ImportJudgements.help}"
