"""The gateway's REST API, one method per operation (openapi/gateway.json)."""

from __future__ import annotations

import json
import os
import time
import urllib.parse
from dataclasses import dataclass
from typing import Any, BinaryIO, Dict, Iterator, List, Mapping, Optional, Union

import requests

__version__ = "1.0.0"

# What a run's state is once it will not change again.
FINISHED_STATES = frozenset({"succeeded", "failed", "cancelled", "interrupted"})


class SalsaError(Exception):
    """An answer that was not a success: the gateway's ProblemDetails (RFC 9457)."""

    def __init__(self, status: int, problem: Mapping[str, Any]):
        self.status = status
        self.problem = dict(problem)
        self.title: str = str(self.problem.get("title") or "")
        self.detail: str = str(self.problem.get("detail") or "")
        super().__init__(f"{status} {self.title}: {self.detail}" if self.detail else f"{status} {self.title}")


@dataclass(frozen=True)
class RunEvent:
    """One server-sent event of a run: its name (run, step, progress, hop-start, hop) and its JSON."""

    event: str
    data: Any


Body = Union[bytes, BinaryIO, str, "os.PathLike[str]"]


class Gateway:
    """A client of one gateway. ``api_key`` is needed when the gateway listens beyond loopback."""

    def __init__(self, base_url: str = "http://127.0.0.1:5080", api_key: Optional[str] = None, timeout: float = 60.0,
                 session: Optional[requests.Session] = None):
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key if api_key is not None else os.environ.get("SALSA_API_KEY")
        self.timeout = timeout
        self.session = session or requests.Session()
        self.session.headers.update({"Accept": "application/json", "User-Agent": f"salsa-client-python/{__version__}"})
        if self.api_key:
            self.session.headers["X-Api-Key"] = self.api_key

    # ── the release and the catalog ───────────────────────────────────────────────────────────
    def version(self) -> Dict[str, Any]:
        """The release that answers: service, version, commit, contract, runtime."""
        return self._json("GET", "/api/version")

    def workflows(self) -> list:
        return self._json("GET", "/api/workflows")

    def workflow(self, name: str) -> Dict[str, Any]:
        return self._json("GET", f"/api/workflows/{_segment(name)}")

    def validate(self, yaml: str, parameters: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
        """Checks a workflow text; a SalsaError (400) lists every problem with its line."""
        return self._json("POST", "/api/workflows/validate", {"yaml": yaml, "parameters": dict(parameters or {})})

    def operations(self) -> Any:
        return self._json("GET", "/api/operations")

    # ── your data ─────────────────────────────────────────────────────────────────────────────
    def upload_places(self, file: Body, name: Optional[str] = None, content_type: str = "text/csv") -> Dict[str, Any]:
        """Uploads places (CSV or GeoJSON, plain or gzip) as a census dataset: the created dataset."""
        return self._upload("/api/uploads/places", file, name, content_type)

    def upload_compounds(self, file: Body, name: Optional[str] = None, content_type: str = "text/plain") -> Dict[str, Any]:
        """Uploads compounds (SMILES, CSV or SDF, plain or gzip): the dataset and the molecules RDKit refused."""
        return self._upload("/api/uploads/compounds", file, name, content_type)

    # ── runs ──────────────────────────────────────────────────────────────────────────────────
    def datasets(self, kind: Optional[str] = None, name: Optional[str] = None, offset: int = 0, limit: int = 50) -> Dict[str, Any]:
        """A page of the caller's datasets (uploads, imports, what runs made), newest first, each with
        the runs that used it: {"datasets": [...], "total": how many the filters select}."""
        query = {"kind": kind, "name": name, "offset": offset, "limit": limit}
        with self._send("GET", "/api/datasets", query=query) as response:
            return {"datasets": response.json(), "total": int(response.headers.get("X-Total-Count", "0"))}

    def rename_dataset(self, dataset_id: str, name: str) -> Dict[str, Any]:
        return self._json("PATCH", f"/api/datasets/{_segment(dataset_id)}", {"name": name})

    def delete_dataset(self, dataset_id: str) -> None:
        """Deletes a dataset; a SalsaError 409 naming the run or job while one in flight uses it."""
        self._json("DELETE", f"/api/datasets/{_segment(dataset_id)}")

    def start_run(self, workflow: Optional[str] = None, parameters: Optional[Mapping[str, Any]] = None, yaml: Optional[str] = None) -> Dict[str, Any]:
        """Starts a run of a workflow by name (or of inline YAML): the run, accepted (202)."""
        if (workflow is None) == (yaml is None):
            raise ValueError("give either workflow (a name) or yaml (a workflow's text)")
        body: Dict[str, Any] = {"parameters": dict(parameters or {})}
        body["workflow" if workflow is not None else "yaml"] = workflow if workflow is not None else yaml
        return self._json("POST", "/api/runs", body)

    def run(self, run_id: str) -> Dict[str, Any]:
        return self._json("GET", f"/api/runs/{_segment(run_id)}")

    def runs(self, workflow: Optional[str] = None, state: Optional[str] = None, offset: int = 0, limit: int = 50) -> Dict[str, Any]:
        """A page of the caller's runs, newest first: {"runs": [...], "total": how many match}."""
        query = {"offset": offset, "limit": limit, "workflow": workflow, "state": state}
        with self._send("GET", "/api/runs", query=query) as response:
            return {"runs": response.json(), "total": int(response.headers.get("X-Total-Count", "0"))}

    def events(self, run_id: str) -> Iterator[RunEvent]:
        """The run's server-sent events until it ends: run, step, progress, hop-start, hop."""
        with self._send("GET", f"/api/runs/{_segment(run_id)}/events", headers={"Accept": "text/event-stream"}, timeout=None, stream=True) as response:
            yield from _server_sent_events(_lines(response.iter_content(chunk_size=None)))

    def wait(self, run_id: str, timeout: float = 600.0) -> Dict[str, Any]:
        """Follows the run's events until it ends (or ``timeout`` seconds pass); the run as it ended."""
        deadline = time.monotonic() + timeout
        while True:
            for event in self.events(run_id):
                if event.event == "run" and isinstance(event.data, dict) and event.data.get("state") in FINISHED_STATES:
                    return self.run(run_id)
                if time.monotonic() > deadline:
                    raise TimeoutError(f"run {run_id} did not end within {timeout} s")
            # The stream closed (the gateway restarted, a proxy cut it): ask, then watch again.
            run = self.run(run_id)
            if run.get("state") in FINISHED_STATES:
                return run
            if time.monotonic() > deadline:
                raise TimeoutError(f"run {run_id} did not end within {timeout} s")
            time.sleep(0.5)

    def cancel(self, run_id: str) -> Dict[str, Any]:
        return self._json("POST", f"/api/runs/{_segment(run_id)}/cancel")

    def rerun(self, run_id: str, parameters: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
        """Runs the run's workflow text again with its parameters and these changes (None drops one)."""
        return self._json("POST", f"/api/runs/{_segment(run_id)}/rerun", {"parameters": dict(parameters or {})})

    def retry(self, run_id: str, step: str, parameters: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
        """Runs an ended run again from one of its steps: that step and everything downstream run anew
        (with these changes for them; None drops an override), the other steps are reused. The new run's
        ["retriedFrom"] is the step and ["rerunOf"] the old run."""
        return self._json("POST", f"/api/runs/{_segment(run_id)}/steps/{_segment(step)}/retry", {"parameters": dict(parameters or {})})

    def reproduce(self, recorded: Union[str, Mapping[str, Any]]) -> Dict[str, Any]:
        """Runs a succeeded run again exactly as it ran: by its id, or from its result.json (a run as
        run() returns it, recorded on any gateway). Once it ends, the new run's ["reproduction"] says
        ["identical"] and the ["firstDifference"] step, output by output."""
        if isinstance(recorded, str):
            return self._json("POST", f"/api/runs/{_segment(recorded)}/reproduce")
        return self._json("POST", "/api/runs/reproduce", dict(recorded))

    def step_log(self, run_id: str, step: str) -> str:
        with self._send("GET", f"/api/runs/{_segment(run_id)}/steps/{_segment(step)}/log") as response:
            return response.content.decode("utf-8")

    def artifact(self, run_id: str, name: str) -> bytes:
        """A file the run kept (map.svg, map.png, clusters.geojson, …), in memory."""
        with self._send("GET", f"/api/runs/{_segment(run_id)}/artifacts/{_segment(name)}") as response:
            return response.content

    def download_artifact(self, run_id: str, name: str, path: "Union[str, os.PathLike[str]]") -> int:
        """Writes a file the run kept to ``path``, streamed; the number of bytes written."""
        written = 0
        with self._send("GET", f"/api/runs/{_segment(run_id)}/artifacts/{_segment(name)}", stream=True) as response, open(path, "wb") as out:
            for chunk in response.iter_content(1 << 16):
                out.write(chunk)
                written += len(chunk)
        return written

    # ── results as tables ─────────────────────────────────────────────────────────────────────
    def clusters(self, run_id: str, artifact: str = "clusters.geojson") -> List[Dict[str, Any]]:
        """The run's clusters, one dict per cluster: the properties of each feature of its GeoJSON."""
        features = json.loads(self.artifact(run_id, artifact)).get("features", [])
        return [dict(feature.get("properties") or {}) for feature in features]

    def to_dataframe(self, run_id: str, artifact: str = "clusters.geojson"):
        """The run's clusters as a pandas DataFrame, one row per cluster (pandas must be installed)."""
        return to_dataframe(self.clusters(run_id, artifact))

    # ── the wire ──────────────────────────────────────────────────────────────────────────────
    def _upload(self, path: str, file: Body, name: Optional[str], content_type: str) -> Dict[str, Any]:
        """``file`` is a path, the file's bytes, or a binary stream (sent as it is read)."""
        if isinstance(file, (bytes, bytearray)) or hasattr(file, "read"):
            return self._json("POST", path, raw=file, query={"name": name or "upload"}, content_type=content_type)
        with open(file, "rb") as stream:
            return self._json("POST", path, raw=stream, query={"name": name or os.path.basename(os.fspath(file))}, content_type=content_type)

    def _json(self, method: str, path: str, body: Any = None, *, raw: Any = None, query: Optional[Mapping[str, Any]] = None, content_type: Optional[str] = None) -> Any:
        with self._send(method, path, body=body, raw=raw, query=query, content_type=content_type) as response:
            return response.json() if response.content else None

    def _send(self, method: str, path: str, *, body: Any = None, raw: Any = None, query: Optional[Mapping[str, Any]] = None,
              content_type: Optional[str] = None, headers: Optional[Mapping[str, str]] = None, timeout: Any = "default",
              stream: bool = False) -> requests.Response:
        request_headers = dict(headers or {})
        if content_type:
            request_headers["Content-Type"] = content_type
        params = {k: v for k, v in (query or {}).items() if v is not None}
        try:
            response = self.session.request(
                method, self.base_url + path, params=params, json=body, data=raw, headers=request_headers,
                timeout=self.timeout if timeout == "default" else timeout, stream=stream)
        except requests.ConnectionError as error:
            raise SalsaError(0, {"title": "The gateway could not be reached", "detail": f"{self.base_url}: {error.__class__.__name__}"}) from None
        if response.status_code >= 400:
            with response:
                raise _problem(response)
        return response


def _segment(value: str) -> str:
    return urllib.parse.quote(str(value), safe="")


def _problem(response: requests.Response) -> SalsaError:
    try:
        problem = response.json()
        if not isinstance(problem, dict):
            problem = {"detail": str(problem)[:500]}
    except ValueError:
        problem = {"detail": response.text[:500]}
    problem.setdefault("status", response.status_code)
    problem.setdefault("title", response.reason or "")
    return SalsaError(response.status_code, problem)


def to_dataframe(rows: List[Mapping[str, Any]]):
    """Rows (dicts) as a pandas DataFrame; pandas is optional, asked for only here."""
    try:
        import pandas
    except ImportError:
        raise ImportError("to_dataframe needs pandas: pip install pandas (or apt-get install python3-pandas)") from None
    return pandas.DataFrame.from_records(list(rows))


def _lines(chunks) -> Iterator[bytes]:
    """Lines as they arrive (iter_content(None) gives each chunk when it comes; iter_lines waits for 512 bytes)."""
    pending = b""
    for chunk in chunks:
        pending += chunk
        *complete, pending = pending.split(b"\n")
        yield from complete
    if pending:
        yield pending


def _server_sent_events(lines) -> Iterator[RunEvent]:
    """Parses text/event-stream (WHATWG HTML, server-sent events): event and data lines, blank line ends one."""
    event, data = "message", []
    for raw_line in lines:
        line = raw_line.decode("utf-8").rstrip("\r\n")
        if not line:
            if data:
                text = "\n".join(data)
                try:
                    payload: Any = json.loads(text)
                except ValueError:
                    payload = text
                yield RunEvent(event, payload)
            event, data = "message", []
        elif line.startswith(":"):
            continue
        else:
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                event = value
            elif field == "data":
                data.append(value)
