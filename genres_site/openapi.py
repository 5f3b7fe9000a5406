"""The OpenAPI 3.1 description of the site's JSON endpoints, served at ``/api/openapi.json``.

Written as Python rather than YAML so that every choice list (levels, formats, outcomes,
statuses) is read from the code that enforces it and the description cannot drift from it.
``tests/test_openapi.py`` validates the document and fuzzes the API against it (schemathesis).
"""

from typing import Any

from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET

from annotation.exports import COLUMNS
from annotation.models import ASPECTS, Assignment, Campaign, Label
from annotation.views.exports import FORMATS
from scoring.genres import formats
from scoring.import_jobs import STAGE_LABELS
from scoring.models import Dataset, RunChunk, ScoringRun, Upload
from scoring.models.catalogue import NAME_PATTERN
from scoring.views.api_pages import MAX_PAGE_SIZE

Schema = dict[str, Any]

# The API's own version: the minor part grows with additions, the major one with changes that break callers.
API_VERSION = "1.2"

NAME_LENGTH = Dataset._meta.get_field("name").max_length


def ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def choices(values: Any) -> Schema:
    return {"type": "string", "enum": [str(value) for value in values]}


def counts(*names: str) -> Schema:
    return {name: {"type": "integer", "minimum": 0} for name in names}


def obj(properties: Schema, required: tuple[str, ...] | None = None, **extra: Any) -> Schema:
    """An object schema; every property is required unless ``required`` names fewer."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties if required is None else required),
        **extra,
    }


def json_reply(description: str, schema: Schema) -> Schema:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def error(description: str) -> Schema:
    return json_reply(description, ref("Error"))


def html_reply(description: str) -> Schema:
    return {"description": description, "content": {"text/html": {"schema": {"type": "string"}}}}


def path_parameter(name: str, schema: Schema, description: str, **extra: Any) -> Schema:
    return {"name": name, "in": "path", "required": True, "schema": schema, "description": description, **extra}


def query_parameter(name: str, schema: Schema, description: str) -> Schema:
    return {"name": name, "in": "query", "required": False, "schema": schema, "description": description}


def nullable(schema: Schema) -> Schema:
    widened = {**schema, "type": [schema["type"], "null"]}
    if "enum" in schema:
        widened["enum"] = [*schema["enum"], None]
    return widened


def page_of(key: str, item: Schema) -> Schema:
    """A page of a list (scoring.views.api_pages): its place in the list, links, and its rows under ``key``."""
    return obj(
        {
            **counts("count"),
            "page": {"type": "integer", "minimum": 1},
            "page_size": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE},
            "pages": {"type": "integer", "minimum": 1},
            "next": nullable({"type": "string", "description": "The next page's absolute URL; null on the last."}),
            "previous": nullable({"type": "string"}),
            key: {"type": "array", "items": item},
        }
    )


PAGING = [
    query_parameter("page", {"type": "integer", "minimum": 1}, "The page, from 1 (default 1)."),
    query_parameter(
        "page_size",
        {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE},
        f"Rows per page, at most {MAX_PAGE_SIZE} (default 50).",
    ),
]
PAGING_ERRORS = {
    "400": error("A query parameter that is not what it must be: the message names it."),
    "404": error("A page past the last."),
}


DATASET_NAME = path_parameter(
    "name", {"type": "string", "minLength": 1, "maxLength": NAME_LENGTH}, "The dataset's name.", example="CDR"
)
SIGNED_IN: list[dict[str, list[str]]] = [{"session": []}]
TOKEN: list[dict[str, list[str]]] = [{"token": []}]
TOKEN_ERRORS = {
    "401": {
        **error("No `Authorization: Token <key>` header, or an unknown or revoked key."),
        "headers": {"WWW-Authenticate": {"schema": {"type": "string"}}},
    },
    "403": error("The token's user is not staff."),
}
TOO_LARGE = {"413": error("The file is larger than GENRES_MAX_UPLOAD_BYTES; nothing was imported.")}
IMPORT_REPLIES = {
    "200": json_reply("The same file had already been imported: nothing changed.", ref("ImportSummary")),
    "201": json_reply("Imported in the request (a file below GENRES_IMPORT_JOB_BYTES).", ref("ImportSummary")),
    "202": json_reply("A big file: stored and queued for a worker; poll its status_url.", ref("UploadStatus")),
    "400": error("An invalid field, or a refused file: the message names the record and the reason."),
}
LEADERBOARD_QUERY = [
    query_parameter(
        "setting", {"type": "string"}, "Fingerprint of a finished run's scoring setting; the newest when left out."
    ),
    query_parameter("margin", {"type": "string"}, "Score difference counted as a tie, 0 to 1 (default 0.2)."),
]
LEADERBOARD_ERRORS = {
    "202": json_reply("This setting and margin were never built: a build is queued.", ref("Building")),
    "400": error("A margin that is not a number in [0, 1], or an unknown setting."),
    "401": error("Signed out and the leaderboards not public, or an unknown or revoked token."),
    "403": error("The user annotates, in an open campaign, a system this leaderboard names."),
}

EXPORT_LABELS = {"csv": "CSV", "jsonl": "JSON Lines", "parquet": "Parquet"}


def dataset_upload_form() -> Schema:
    return obj(
        {
            "name": {"type": "string", "minLength": 1, "maxLength": NAME_LENGTH, "pattern": NAME_PATTERN},
            "level": choices(Dataset.Level.values),
            "domain": choices(Dataset.Domain.values),
            "description": {"type": "string", "maxLength": 5000},
            "format": choices((formats.AUTO, *formats.DATASET_FORMATS)),
            "file": {"type": "string", "format": "binary", "description": "Triples JSON or JSON Lines."},
        },
        required=("name", "file"),
    )


def outputs_upload_form() -> Schema:
    return obj(
        {
            "system": {"type": "string", "minLength": 1, "maxLength": NAME_LENGTH, "pattern": NAME_PATTERN},
            "family": {"type": "string", "maxLength": NAME_LENGTH},
            "format": choices((formats.AUTO, *formats.OUTPUT_FORMATS)),
            "lenient": {
                "type": "string",
                "description": "Drop malformed triples with a warning; true unless empty, 0, false, no or off.",
            },
            "file": {
                "type": "string",
                "format": "binary",
                "description": "Triples JSON, raw replies, JSON Lines or CSV.",
            },
        },
        required=("system", "file"),
    )


def chunked_run_progress() -> Schema:
    """What the progress of every chunked run (scoring, generation) holds."""
    return {
        "run": {"type": "integer"},
        "status": choices(ScoringRun.Status.values),
        "status_label": {"type": "string"},
        **counts("chunks_total", "chunks_done"),
        "percent": {"type": "integer", "minimum": 0, "maximum": 100},
        **counts("requests", "cache_hits", "tokens"),
        "cost_usd": {"type": "number", "minimum": 0},
        "error": {"type": "string", "description": "The failure in words; empty when none."},
        "error_detail": {"type": "string"},
        **{flag: {"type": "boolean"} for flag in ("active", "can_resume", "can_cancel", "offer_resume")},
        "stalled": {"type": "boolean"},
        "started_at": {"type": "string", "description": "Local time, or empty when not yet."},
        "finished_at": {"type": "string"},
        "chunks": {
            "type": "array",
            "items": obj(
                {
                    "number": {"type": "integer", "minimum": 1},
                    **counts("texts"),
                    "status": choices(RunChunk.Status.values),
                    "status_label": {"type": "string"},
                    **counts("attempts", "requests", "cache_hits"),
                    "finished_at": {"type": "string"},
                    "error": {"type": "string"},
                }
            ),
        },
    }


def schemas() -> Schema:
    return {
        "Error": obj({"error": {"type": "string"}}),
        "Dataset": obj(
            {
                "name": {"type": "string"},
                "level": choices(Dataset.Level.values),
                "domain": choices(Dataset.Domain.values),
                "description": {"type": "string"},
                **counts("texts", "gold_triples", "systems"),
                "created_at": {"type": "string", "format": "date-time"},
            }
        ),
        "DatasetList": page_of("datasets", ref("Dataset")),
        **study_schemas(),
        "ImportSummary": obj(
            {
                **counts("texts", "triples", "warnings", "upload"),
                "unchanged": {"type": "boolean"},
                "status_url": {"type": "string"},
            }
        ),
        "UploadStatus": obj(
            {
                "upload": {"type": "integer"},
                "kind": choices(Upload.Kind.values),
                "file_name": {"type": "string"},
                "dataset": {"type": "string"},
                "system": {"type": "string", "description": "Empty for a dataset."},
                "outcome": choices(Upload.Outcome.values),
                "outcome_label": {"type": "string"},
                "active": {"type": "boolean", "description": "True while queued or running: poll until false."},
                "stage": choices((*STAGE_LABELS, "done")),
                "stage_label": {"type": "string"},
                **counts("done", "total"),
                "percent": {"type": "integer", "minimum": 0, "maximum": 100},
                **counts("texts", "triples", "warnings"),
                "message": {"type": "string", "description": "A failure names the record and the reason."},
                "status_url": {"type": "string"},
            }
        ),
        "RunProgress": obj(
            {
                **chunked_run_progress(),
                **counts("missing_verdicts"),
                "has_provenance": {"type": "boolean"},
            }
        ),
        "GenerationStatus": obj(
            {
                **chunked_run_progress(),
                "systems": {"type": "array", "items": obj({"name": {"type": "string"}, **counts("outputs")})},
                **counts("unparsed"),
                "parsed": {"type": "boolean", "description": "True once the replies are parsed into the systems."},
                "dataset": {"type": "string"},
                "provenance": {
                    "type": "object",
                    "description": "Endpoint host (never the key), model, template, settings.",
                },
                "status_url": {"type": "string"},
            }
        ),
        "Leaderboard": obj(
            {
                key: {"description": "See docs/leaderboard.md."}
                for key in (
                    "dataset",
                    "aspects",
                    "margin",
                    "settings",
                    "setting",
                    "scores",
                    "unscored",
                    "human",
                    "metric_ratings",
                    "comparison",
                    "significance",
                    "verdict",
                    "triple_checks",
                )
            }
            | {"as_of": {"type": "string", "format": "date-time"}},
            description="The whole leaderboard of one setting and margin; its parts are described in docs/leaderboard.md.",
        ),
        "Sections": obj(
            {
                "sections": {"type": "object", "additionalProperties": {"type": "string"}},
                "as_of": {"type": "string", "format": "date-time"},
                "plots": {"type": "object"},
            }
        ),
        "Building": obj({"building": {"const": True}, "message": {"type": "string"}}),
        "Health": obj(
            {
                "status": choices(("ok", "unavailable")),
                "database": {"type": "string", "description": "ok, or error: the exception's type."},
                "redis": {"type": "string"},
                "workers": {
                    "type": "object",
                    "additionalProperties": {"type": "integer", "minimum": 0},
                    "description": "Per RQ queue, the workers that beat within the last minute; absent without Redis.",
                },
            },
            required=("status", "database", "redis"),
        ),
    }


def paths() -> Schema:
    return {
        "/api/datasets/": {
            "get": {
                "operationId": "listDatasets",
                "summary": "The datasets, with their counts of texts, gold triples and systems",
                "security": TOKEN,
                "description": "Any user's token: the Datasets page shows every signed-in user the same list. By name.",
                "parameters": PAGING,
                "responses": {
                    "200": json_reply("A page of the datasets.", ref("DatasetList")),
                    "401": TOKEN_ERRORS["401"],
                    **PAGING_ERRORS,
                },
            },
            "post": {
                "operationId": "importDataset",
                "summary": "Import a dataset: texts with their gold triples",
                "security": TOKEN,
                "requestBody": {
                    "required": True,
                    "content": {"multipart/form-data": {"schema": dataset_upload_form()}},
                },
                "responses": {**IMPORT_REPLIES, **TOKEN_ERRORS, **TOO_LARGE},
            },
        },
        "/api/datasets/{name}/outputs/": {
            "parameters": [DATASET_NAME],
            "post": {
                "operationId": "importOutputs",
                "summary": "Import one system's outputs for a dataset",
                "security": TOKEN,
                "requestBody": {
                    "required": True,
                    "content": {"multipart/form-data": {"schema": outputs_upload_form()}},
                },
                "responses": {
                    **IMPORT_REPLIES,
                    **TOKEN_ERRORS,
                    "404": error("No dataset of that name."),
                    **TOO_LARGE,
                },
            },
        },
        "/api/uploads/{pk}/": {
            "parameters": [path_parameter("pk", {"type": "integer", "minimum": 1}, "The upload's id.")],
            "get": {
                "operationId": "uploadStatus",
                "summary": "Where an import stands: queued, importing (with progress), imported, unchanged or failed",
                "security": TOKEN,
                "responses": {
                    "200": json_reply("The upload's status.", ref("UploadStatus")),
                    **TOKEN_ERRORS,
                    "404": error("No upload with that id."),
                },
            },
        },
        "/api/datasets/{name}/leaderboard.json": {
            "parameters": [DATASET_NAME],
            "get": {
                "operationId": "datasetLeaderboard",
                "summary": "The dataset's leaderboard as of its last build",
                "security": [*SIGNED_IN, *TOKEN, {}],
                "parameters": LEADERBOARD_QUERY,
                "responses": {
                    "200": json_reply("The leaderboard.", ref("Leaderboard")),
                    **LEADERBOARD_ERRORS,
                    "404": error("No dataset of that name."),
                },
            },
        },
        "/leaderboard/{name}/sections.json": {
            "parameters": [DATASET_NAME],
            "get": {
                "operationId": "leaderboardSections",
                "summary": "The leaderboard page's sections, re-rendered as HTML, and its figures (the live refresh)",
                "security": [*SIGNED_IN, {}],
                "parameters": [
                    *LEADERBOARD_QUERY,
                    {
                        "name": "change",
                        "in": "query",
                        "required": False,
                        "schema": {"type": "array", "items": choices(("judgements", "scores"))},
                        "style": "form",
                        "explode": True,
                        "description": "What changed; the sections that depend on it are sent (all when left out).",
                    },
                ],
                "responses": {
                    "200": json_reply("The sections.", ref("Sections")),
                    **LEADERBOARD_ERRORS,
                    "404": html_reply("No dataset of that name."),
                },
            },
        },
        "/runs/{pk}/progress.json": {
            "parameters": [path_parameter("pk", {"type": "integer", "minimum": 1}, "The scoring run's id.")],
            "get": {
                "operationId": "runProgress",
                "summary": "A scoring run's progress: what its page's websocket sends",
                "security": SIGNED_IN,
                "responses": {
                    "200": json_reply("The run's state.", ref("RunProgress")),
                    "302": {"description": "Signed out: to the sign-in page."},
                    "403": html_reply("The user may not see system outputs."),
                    "404": html_reply("No run with that id."),
                },
            },
        },
        "/uploads/{pk}/progress.json": {
            "parameters": [path_parameter("pk", {"type": "integer", "minimum": 1}, "The upload's id.")],
            "get": {
                "operationId": "uploadProgress",
                "summary": "An upload's status for the upload page (staff): the same reply as /api/uploads/{pk}/",
                "security": SIGNED_IN,
                "responses": {
                    "200": json_reply("The upload's status.", ref("UploadStatus")),
                    "302": {"description": "Signed out, or not staff: to the sign-in page."},
                    "404": html_reply("No upload with that id."),
                },
            },
        },
        **campaign_exports(),
        **study_paths(),
        "/api/openapi.json": {
            "get": {
                "operationId": "openapi",
                "summary": "This description",
                "security": [{}],
                "responses": {"200": json_reply("The OpenAPI 3.1 document.", {"type": "object"})},
            },
        },
        "/healthz": {
            "get": {
                "operationId": "health",
                "summary": "For load balancers: does this process reach the database and Redis?",
                "security": [{}],
                "responses": {
                    "200": json_reply("Database and Redis answer.", ref("Health")),
                    "503": json_reply("The database or Redis does not answer.", ref("Health")),
                },
            },
        },
    }


def campaign_exports() -> Schema:
    """One path per export format of a campaign's judgements (annotation.views.exports)."""
    return {
        f"/api/campaigns/{{pk}}/judgements.{suffix}": {
            "parameters": [path_parameter("pk", {"type": "integer", "minimum": 1}, "The campaign's id.")],
            "get": {
                "operationId": f"campaignJudgements{suffix.capitalize()}",
                "summary": f"A campaign's judgements as {EXPORT_LABELS[suffix]}: one row per item, aspect and annotator",
                "security": TOKEN,
                "description": (
                    "Staff: any campaign, annotators by user name. Researchers: a closed campaign, "
                    "annotators pseudonymised (annotator-1, annotator-2… in order of first judgement). See docs/api.md."
                ),
                "responses": {
                    "200": {
                        "description": "The export, as an attachment.",
                        "content": {content_type.partition(";")[0]: {}},
                    },
                    "401": TOKEN_ERRORS["401"],
                    "403": error("An annotator's token, or a researcher's while the campaign is open."),
                    "404": error("No campaign with that id."),
                },
            },
        }
        for suffix, (_, content_type) in FORMATS.items()
    }


# The study API (scoring.views.api_catalogue, annotation.views.api, leaderboard.views.dataset_ratings).
READERS_ERRORS = {
    "401": TOKEN_ERRORS["401"],
    "403": error("An annotator's token; a researcher's for an open campaign (the message says why)."),
}
OUTPUT_READERS_ERRORS = {
    "401": TOKEN_ERRORS["401"],
    "403": error("The token's user may not read system outputs, or annotates a system of this dataset blind."),
}
CAMPAIGN_PK = path_parameter("pk", {"type": "integer", "minimum": 1}, "The campaign's id.")
FORM_ERROR = json_reply("An invalid field: `fields` names each one with its reasons.", ref("FormError"))
JUDGEMENT_TYPES: dict[str, Schema] = {
    "aspect": choices(ASPECTS),
    "winner": choices(Label.values),
    "system_a_side": nullable(choices(("left", "right"))),
    "system_b_side": nullable(choices(("left", "right"))),
    "text_id": {"type": "integer"},
    "text_position": {"type": "integer", "minimum": 1},
    "judged_at": {"type": "string", "format": "date-time"},
    "first_judged_at": {"type": "string", "format": "date-time"},
    "item_started_at": nullable({"type": "string", "format": "date-time"}),
    "item_completed_at": nullable({"type": "string", "format": "date-time"}),
    "item_seconds_spent": {"type": "number", "minimum": 0},
    "item_status": choices(Assignment.Status.values),
    "attention_check": {"type": "boolean"},
    "attention_aspect": nullable(choices(ASPECTS)),
    "attention_passed": nullable({"type": "boolean"}),
    "comment": nullable({"type": "string"}),
    "annotator_excluded": {"type": "boolean"},
    "adjudicated": nullable(choices(Label.values)),
    "adjudication_note": nullable({"type": "string"}),
    "adjudicated_by": nullable({"type": "string"}),
    "adjudicated_at": nullable({"type": "string", "format": "date-time"}),
}


def campaign_properties() -> Schema:
    return {
        "id": {"type": "integer", "minimum": 1},
        "name": {"type": "string"},
        "dataset": {"type": "string"},
        "open": {"type": "boolean"},
        "imported": {"type": "boolean"},
        "created_at": {"type": "string", "format": "date-time"},
        "pair_order": choices(Campaign.PairOrder.values),
        "rating_labels": choices(Campaign.RatingLabels.values),
        "overlap_share": {"type": "number", "minimum": 0, "maximum": 1},
        "attention_share": {"type": "number", "minimum": 0, "maximum": 1},
        **counts("items", "assignments", "assignments_done", "judgements", "annotators"),
        "url": {"type": "string"},
    }


def campaign_detail_properties() -> Schema:
    return {
        **campaign_properties(),
        "systems": {"type": "array", "items": {"type": "string"}},
        **counts("texts"),
        "progress": {"type": "array", "items": ref("AnnotatorProgress")},
        "agreement_url": {"type": "string"},
        "judgements_url": {"type": "string"},
        "exports": obj({suffix: {"type": "string"} for suffix in FORMATS}),
    }


def matrix_of(cell: Schema) -> Schema:
    return {"type": "array", "items": {"type": "array", "items": cell}}


def study_schemas() -> Schema:
    figure = nullable({"type": "number"})
    return {
        "FormError": obj(
            {
                "error": {"type": "string"},
                "fields": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}},
            }
        ),
        "System": obj(
            {
                "name": {"type": "string"},
                "family": {"type": "string"},
                "ground_truth": {"type": "boolean"},
                "replicate_group": {"type": "string"},
                "seed": {"type": "string"},
                **counts("outputs", "triples", "empty_outputs", "parse_warnings"),
                "last_upload_at": nullable({"type": "string", "format": "date-time"}),
                "provenance": nullable(
                    {"type": "object", "description": "What generated a system made from an endpoint."}
                ),
            }
        ),
        "SystemList": page_of("systems", ref("System")),
        "RunStatus": {
            "allOf": [ref("RunProgress"), obj({"dataset": {"type": "string"}, "status_url": {"type": "string"}})]
        },
        "Campaign": obj(campaign_properties()),
        "CampaignList": page_of("campaigns", ref("Campaign")),
        "AnnotatorProgress": obj(
            {
                "annotator": {"type": "string", "description": "The user name for staff; annotator-N for anyone else."},
                "active": {"type": "boolean"},
                "excluded": {"type": "boolean", "description": "Left out of ratings and agreement."},
                **counts("pairs", "pairs_judged", "judgements", "judgements_asked"),
            }
        ),
        "CampaignDetail": obj(campaign_detail_properties()),
        "CampaignCreated": obj({**campaign_detail_properties(), **counts("texts_left_out")}),
        "Agreement": obj(
            {
                "campaign": {"type": "integer"},
                "aspects": obj(
                    {
                        aspect: obj(
                            {
                                "accuracy": figure,
                                "kappa": figure,
                                "fleiss": figure,
                                "alpha": figure,
                                **counts("items", "pairs"),
                            }
                        )
                        for aspect in ASPECTS
                    }
                ),
                "annotators": {"type": "array", "items": {"type": "string"}},
                "matrix": obj(
                    {
                        "accuracy": matrix_of(figure),
                        "kappa": matrix_of(figure),
                        "pairs": matrix_of({"type": "integer", "minimum": 0}),
                    }
                ),
            }
        ),
        "Judgement": obj(
            {
                "id": {"type": "integer"},
                "campaign_id": {"type": "integer"},
                **{column: JUDGEMENT_TYPES.get(column, {"type": "string"}) for column in COLUMNS},
            }
        ),
        "JudgementList": page_of("judgements", ref("Judgement")),
        "Ratings": obj(
            {
                "dataset": {"type": "string"},
                "as_of": {"type": "string", "format": "date-time"},
                "margin": {"type": "number"},
                "setting": nullable({"type": "string"}),
                "bootstrap_rounds": {"type": "object"},
                **counts("judgements"),
                "systems": {"type": "array", "items": {"type": "string"}},
                **{
                    key: {"type": ["object", "null"] if key == "metric" else "object", "description": description}
                    for key, description in (
                        ("human", '{"elo"|"bt": {ASPECT: {SYSTEM: RATING}}}, as in leaderboard.json.'),
                        ("single_pass", "{ASPECT: {SYSTEM: {rating, battles}}}: online Elo in import order."),
                        ("metric", "The metric battles' ratings, like human; null without scores."),
                    )
                },
            }
        ),
    }


def campaign_form() -> Schema:
    """The campaign form's fields (annotation.forms.CampaignApiForm): things named by name."""
    name = {"type": "string", "minLength": 1, "maxLength": NAME_LENGTH}
    percent = {"type": "integer", "minimum": 0, "maximum": 100}
    return obj(
        {
            "name": name | {"pattern": NAME_PATTERN},
            "dataset": name | {"description": "The dataset's name."},
            "systems": {"type": "array", "items": name, "description": "Systems with outputs in the dataset."},
            "include_ground_truth": {"type": "string", "description": "Add the gold triples as a system: true or on."},
            "sample_size": {"type": "integer", "minimum": 1},
            "text_references": {"type": "string", "description": "Or the texts: external ids, #N, or ids."},
            "seed": {"type": "integer", "minimum": 0, "maximum": 2**31 - 1},
            "annotators": {"type": "array", "items": {"type": "string"}, "description": "Usernames."},
            "overlap_percent": percent,
            "pair_order": choices(Campaign.PairOrder.values),
            "instructions": {"type": "string"},
            "practice_file": {"type": "string", "format": "binary"},
            "practice_pass_percent": percent,
            "attention_percent": {"type": "integer", "minimum": 0, "maximum": 20},
        },
        required=("name", "dataset", "seed", "annotators", "overlap_percent"),
    )


def run_form() -> Schema:
    """The run form's fields (scoring.forms.RunApiForm); each left out takes the page's default."""
    return obj(
        {
            "systems": {"type": "array", "items": {"type": "string"}, "description": "Names; default: all."},
            "metrics": {"type": "array", "items": {"type": "string"}, "description": "Default: all."},
            "embedder": {"type": "string"},
            "judge": {"type": "string"},
            "verdict_source": {"type": "string"},
            "rules": {"type": "string"},
            "chunk_texts": {"type": "integer", "minimum": 1},
            "fs_prompt": {"type": "string"},
            "gs_prompt": {"type": "string"},
        },
        required=(),
    )


def generation_form() -> Schema:
    """The generation form's fields (scoring.generation_forms.GenerationForm)."""
    return obj(
        {
            "base_url": {"type": "string", "description": "The OpenAI-compatible endpoint, …/v1."},
            "model": {"type": "string"},
            "api": choices(["auto", "chat", "completions"]),
            "template": {"type": "integer", "description": "A stored template's id; default: the app's."},
            "new_template_name": {"type": "string"},
            "new_template": {"type": "string", "description": "A new template (version), with $TEXT$."},
            "temperature": {"type": "number", "minimum": 0, "maximum": 2},
            "max_tokens": {"type": "integer", "minimum": 1, "maximum": 32768},
            "seeds": {"type": "string", "description": "Comma-separated integers, one system each."},
            "group": {"type": "string"},
            "chunk_texts": {"type": "integer", "minimum": 1},
            "score_when_done": {"type": "string", "description": "true or on: score the systems when done."},
        },
        required=("base_url", "model", "api", "temperature", "max_tokens", "seeds", "chunk_texts"),
    )


def study_paths() -> Schema:
    return {
        "/api/datasets/{name}/": {
            "parameters": [DATASET_NAME],
            "get": {
                "operationId": "readDataset",
                "summary": "One dataset with its counts, as in the list",
                "security": TOKEN,
                "responses": {
                    "200": json_reply("The dataset.", ref("Dataset")),
                    "401": TOKEN_ERRORS["401"],
                    "404": error("No dataset of that name."),
                },
            },
        },
        "/api/datasets/{name}/systems/": {
            "parameters": [DATASET_NAME],
            "get": {
                "operationId": "listSystems",
                "summary": "The systems with outputs on a dataset, Ground truth first, then by name",
                "security": TOKEN,
                "parameters": PAGING,
                "responses": {
                    "200": json_reply("A page of the systems.", ref("SystemList")),
                    **OUTPUT_READERS_ERRORS,
                    **PAGING_ERRORS,
                    "404": error("No dataset of that name, or a page past the last."),
                },
            },
        },
        "/api/datasets/{name}/runs/": {
            "parameters": [DATASET_NAME],
            "post": {
                "operationId": "startRun",
                "summary": "Start a scoring run of the dataset (staff), as the run form does",
                "security": TOKEN,
                "requestBody": {
                    "required": False,
                    "content": {"multipart/form-data": {"schema": run_form()}},
                },
                "responses": {
                    "202": json_reply("Queued: poll its status_url.", ref("RunStatus")),
                    "400": FORM_ERROR,
                    **TOKEN_ERRORS,
                    "404": error("No dataset of that name."),
                },
            },
        },
        "/api/runs/{pk}/": {
            "parameters": [path_parameter("pk", {"type": "integer", "minimum": 1}, "The scoring run's id.")],
            "get": {
                "operationId": "runStatus",
                "summary": "A scoring run's status: what its page shows",
                "security": TOKEN,
                "responses": {
                    "200": json_reply("The run's state.", ref("RunStatus")),
                    **OUTPUT_READERS_ERRORS,
                    "404": error("No run with that id."),
                },
            },
        },
        "/api/datasets/{name}/generations/": {
            "parameters": [DATASET_NAME],
            "post": {
                "operationId": "startGeneration",
                "summary": "Start a generation run on the dataset (staff), as the generation form does",
                "security": TOKEN,
                "requestBody": {
                    "required": True,
                    "content": {"multipart/form-data": {"schema": generation_form()}},
                },
                "responses": {
                    "202": json_reply("Queued: poll its status_url.", ref("GenerationStatus")),
                    "400": FORM_ERROR,
                    **TOKEN_ERRORS,
                    "404": error("No dataset of that name."),
                },
            },
        },
        "/api/generations/{pk}/": {
            "parameters": [path_parameter("pk", {"type": "integer", "minimum": 1}, "The generation run's id.")],
            "get": {
                "operationId": "generationStatus",
                "summary": "A generation run's status and provenance: what its page shows",
                "security": TOKEN,
                "responses": {
                    "200": json_reply("The run's state.", ref("GenerationStatus")),
                    **OUTPUT_READERS_ERRORS,
                    "404": error("No generation run with that id."),
                },
            },
        },
        "/api/datasets/{name}/ratings/": {
            "parameters": [DATASET_NAME],
            "get": {
                "operationId": "datasetRatings",
                "summary": "Elo and Bradley–Terry ratings of the dataset's systems, as its leaderboard built them",
                "security": [*SIGNED_IN, *TOKEN, {}],
                "parameters": LEADERBOARD_QUERY,
                "responses": {
                    "200": json_reply("The ratings.", ref("Ratings")),
                    **LEADERBOARD_ERRORS,
                    "404": error("No dataset of that name."),
                },
            },
        },
        "/api/campaigns/": {
            "get": {
                "operationId": "listCampaigns",
                "summary": "The campaigns the token's user may read, oldest first, with their progress",
                "security": TOKEN,
                "description": "Staff: every campaign. Researchers: closed campaigns. Annotators: 403.",
                "parameters": PAGING,
                "responses": {
                    "200": json_reply("A page of the campaigns.", ref("CampaignList")),
                    **READERS_ERRORS,
                    **PAGING_ERRORS,
                },
            },
            "post": {
                "operationId": "createCampaign",
                "summary": "Create a campaign (staff), with the campaign form's fields and checks",
                "security": TOKEN,
                "requestBody": {
                    "required": True,
                    "content": {"multipart/form-data": {"schema": campaign_form()}},
                },
                "responses": {
                    "201": json_reply("Created.", ref("CampaignCreated")),
                    "400": FORM_ERROR,
                    **TOKEN_ERRORS,
                    **TOO_LARGE,
                },
            },
        },
        "/api/campaigns/{pk}/": {
            "parameters": [CAMPAIGN_PK],
            "get": {
                "operationId": "readCampaign",
                "summary": "A campaign and each annotator's progress (pseudonymised unless staff)",
                "security": TOKEN,
                "responses": {
                    "200": json_reply("The campaign.", ref("CampaignDetail")),
                    **READERS_ERRORS,
                    "404": error("No campaign with that id."),
                },
            },
        },
        "/api/campaigns/{pk}/agreement/": {
            "parameters": [CAMPAIGN_PK],
            "get": {
                "operationId": "campaignAgreement",
                "summary": "Agreement per aspect and annotator × annotator, as the quality page shows it",
                "security": TOKEN,
                "responses": {
                    "200": json_reply("The figures; null where undefined.", ref("Agreement")),
                    **READERS_ERRORS,
                    "404": error("No campaign with that id."),
                },
            },
        },
        "/api/judgements/": {
            "get": {
                "operationId": "listJudgements",
                "summary": "Judgements of the campaigns the token's user may read, in judgement order: the export's rows",
                "security": TOKEN,
                "parameters": [
                    query_parameter("campaign", {"type": "integer", "minimum": 1}, "Only this campaign's."),
                    query_parameter("aspect", choices(ASPECTS), "Only this aspect's."),
                    *PAGING,
                ],
                "responses": {
                    "200": json_reply("A page of judgements.", ref("JudgementList")),
                    **READERS_ERRORS,
                    "400": PAGING_ERRORS["400"],
                    "404": error("No campaign with that id, or a page past the last."),
                },
            },
        },
    }


def document() -> Schema:
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "GENRES Arena API",
            "version": API_VERSION,
            "description": (
                "Run a study from scripts: import datasets and system outputs, start scoring runs and follow "
                "them, create campaigns, list datasets, systems and campaigns with their progress, read "
                "judgements, agreement, ratings and leaderboards, and download a campaign's judgements. The API "
                "(every path under /api/ but this description) takes the header "
                "`Authorization: Token <key>` (each user makes theirs on /accounts/tokens/) and ignores "
                "the session; a token reads what its user reads in the pages, and only a staff user's "
                "imports, starts runs or creates campaigns. Lists are paged (`page`, `page_size`, `next`). "
                'Every error under /api/, unexpected ones included, is `{"error": "…"}`; '
                "another method than the ones described is a 405 naming the allowed ones in `Allow`. "
                "See docs/api.md."
            ),
            "license": {"name": "MIT", "identifier": "MIT"},
        },
        "paths": paths(),
        "components": {
            "schemas": schemas(),
            "securitySchemes": {
                "token": {
                    "type": "apiKey",
                    "in": "header",
                    "name": "Authorization",
                    "description": "`Token <key>`, made on /accounts/tokens/ or by `manage.py create_api_token USER`.",
                },
                "session": {
                    "type": "apiKey",
                    "in": "cookie",
                    "name": "sessionid",
                    "description": "The session cookie of a user signed in at /accounts/login/.",
                },
            },
        },
    }


@require_GET
def openapi_json(request: HttpRequest) -> JsonResponse:
    return JsonResponse(document())
