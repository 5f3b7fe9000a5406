"""Django's debug page for an error, shown to staff only (it lists local variables, which can
name the systems behind an annotator's anonymous pair)."""

from django.template import loader
from django.utils.safestring import SafeString, mark_safe
from django.views.debug import ExceptionReporter

PLAIN_TEXT_ERROR = mark_safe("Server Error (500)")


class StaffOnlyExceptionReporter(ExceptionReporter):
    """With DEBUG on, staff see the full report; anyone else the site's own 500 page.

    Django builds every debug 500 response, from a view or a middleware, with this class;
    error e-mails to the admins still get the full report.
    """

    def shows_details(self) -> bool:
        if self.is_email:
            return True
        try:
            return bool(self.request and self.request.user.is_staff)
        except Exception:
            # No user yet (the error came before authentication), or loading the user failed
            # too (the database is down): nobody is known to be staff.
            return False

    def get_traceback_html(self) -> SafeString:
        if self.shows_details():
            return super().get_traceback_html()
        return mark_safe(loader.get_template("500.html").render())

    def get_traceback_text(self) -> SafeString:
        if self.shows_details():
            return super().get_traceback_text()
        return PLAIN_TEXT_ERROR
