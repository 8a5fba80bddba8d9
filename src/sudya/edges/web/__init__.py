"""The web app: FastAPI pages (Jinja2 + htmx) and the JSON API over the services."""
