"""``rulecraft serve``: any compiled game played in the browser (the optional extra
``rulecraft[serve]``: Starlette, uvicorn, WebSockets).

- :mod:`.store`: the games in SQLite, as saves whose decisions are committed one by one;
- :mod:`.frames`: what a seat is sent, made from its view alone (standard library only);
- :mod:`.rooms`: the games in play, deciding through ``Game.apply``, undo, bots;
- :mod:`.pages` and ``static/``: the HTML pages and the play page's script and style;
- :mod:`.app`: the ASGI application (:func:`~.app.create_app`). See docs/serve.md.
"""
