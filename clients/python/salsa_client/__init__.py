"""Python client of the Salsa.Services workflow gateway's REST API (contract v1).

    from salsa_client import Gateway

    gateway = Gateway("http://127.0.0.1:5080", api_key=None)
    places = gateway.upload_places("towns.csv")
    run = gateway.start_run("census-places", {"import.dataset": places["dataset"]["datasetId"], "import.file": ""})
    run = gateway.wait(run["id"])
    gateway.download_artifact(run["id"], "map.svg", "map.svg")

Errors are ``SalsaError`` with the ProblemDetails the gateway answered (status, title, detail).
It needs only requests (Debian: python3-requests); pandas, where installed, for to_dataframe().
"""

from ._client import Gateway, RunEvent, SalsaError, __version__, to_dataframe

__all__ = ["Gateway", "RunEvent", "SalsaError", "__version__", "to_dataframe"]
