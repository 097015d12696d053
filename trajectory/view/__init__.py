"""``traj view``: a local, read-only web app over a store (Starlette, Jinja2, uvicorn).

``data`` (with its neighbours ``runs_sql``, the run list's SQL derived from the event
declaration, and ``values``) is the only part here that calls traj's internals; ``pages``
builds what each page shows as plain dicts; ``app`` serves them as HTML and as JSON under
``/api``; ``server`` runs it on an address; ``static_site`` writes the pages to a folder.
Nothing is imported here, so ``traj`` starts as fast without it.
"""
