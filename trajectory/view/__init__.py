"""``traj view``: a local, read-only web app over a store (Starlette, Jinja2, uvicorn).

``data`` is the only module here that calls traj's internals; ``pages`` builds what each page
shows as plain dicts; ``app`` serves them as HTML and as JSON under ``/api``; ``static_site``
writes them to a folder. Nothing is imported here, so ``traj`` starts as fast without it.
"""
