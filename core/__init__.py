"""What every app uses and no app owns: the staff check and the permission that shows systems
(``permissions``), the request type of views behind them (``signed_in``), best-effort messages
to the websocket groups of open pages (``live``), and a PostgreSQL database created on first use
(``databases``). It imports no app, so each app may import it."""
