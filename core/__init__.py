"""What every app uses and no app owns: the staff check and the permission that shows systems
(``permissions``), the request type of views behind them (``signed_in``), and best-effort
messages to the websocket groups of open pages (``live``). It imports no app, so each app may
import it."""
