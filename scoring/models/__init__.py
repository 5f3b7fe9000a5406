"""The scoring app's models, one module each for the catalogue (datasets, texts, systems,
outputs, uploads, recorded verdicts, API tokens), scoring runs, generation runs, the scores they store, and the
request cache that judges and embedders share. Importing them here registers them all."""

from scoring.models.cache import CachedResponse
from scoring.models.catalogue import (
    ApiToken,
    Dataset,
    ImportedVerdict,
    Output,
    System,
    Text,
    Upload,
    UploadChunk,
    name_validator,
    text_hash,
    validate_triple_list,
)
from scoring.models.generation import GenerationChunk, GenerationReply, GenerationRun, GenerationTemplate
from scoring.models.runs import RunChunk, ScoringRun
from scoring.models.scores import SystemScore, TextScore

__all__ = [
    "ApiToken",
    "CachedResponse",
    "Dataset",
    "GenerationChunk",
    "GenerationReply",
    "GenerationRun",
    "GenerationTemplate",
    "ImportedVerdict",
    "Output",
    "RunChunk",
    "ScoringRun",
    "System",
    "SystemScore",
    "Text",
    "TextScore",
    "Upload",
    "UploadChunk",
    "name_validator",
    "text_hash",
    "validate_triple_list",
]
