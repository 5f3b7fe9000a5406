"""What a page says went wrong: its uncaught errors and the console's error messages."""


def console_errors(page, ignored=lambda message: False):
    """A list that fills with the page's errors, but for the console messages ``ignored(message)`` passes over."""
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "console",
        lambda message: errors.append(message.text) if message.type == "error" and not ignored(message) else None,
    )
    return errors
