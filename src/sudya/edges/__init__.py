"""The edges: web pages and API, the CLI, paper reports. Each decodes, calls the
application, renders."""
