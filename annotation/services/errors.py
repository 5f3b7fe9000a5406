"""The refusals of the annotation services: each message says why, in words for the user."""


class AnnotationError(Exception):
    """A request the annotation app refuses; the message says why, in words for the user."""


class CampaignError(AnnotationError):
    pass


class InvalidJudgement(AnnotationError):
    pass


class CompletenessTooEarly(AnnotationError):
    pass


class VersionConflict(AnnotationError):
    pass


class AssignmentClosed(AnnotationError):
    pass


class FirstAspectsLocked(AnnotationError):
    pass
