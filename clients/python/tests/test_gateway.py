"""The client against a running gateway: SALSA_GATEWAY_URL names it, SALSA_API_KEY a key with the
run scope when it asks for credentials. tests/Salsa.Gateway.Tests/ClientTests.cs installs the client
into a virtual environment of Debian's Python (pip install ./clients/python, offline), starts a real
gateway (authentication on) and runs these; by hand, with the client installed:

    SALSA_GATEWAY_URL=http://127.0.0.1:5080 python3 -m unittest discover -s clients/python/tests -v
"""

import os
import tempfile
import unittest

from salsa_client import Gateway, SalsaError, __version__

TOWNS = b"""name,country,lat,lon,population
Paris,FR,48.857,2.352,2161000
Lyon,FR,45.764,4.836,516000
Marseille,FR,43.296,5.370,861000
Berlin,DE,52.520,13.405,3645000
Munich,DE,48.135,11.582,1472000
Hamburg,DE,53.551,9.994,1841000
"""


def gateway(api_key=None) -> Gateway:
    url = os.environ.get("SALSA_GATEWAY_URL")
    if not url:
        raise unittest.SkipTest("SALSA_GATEWAY_URL names no gateway")
    return Gateway(url, api_key=api_key, timeout=120)


class GatewayTests(unittest.TestCase):
    def test_version_is_the_clients_release(self):
        version = gateway().version()

        self.assertEqual(("gateway", __version__, "v1"), (version["service"], version["version"], version["contract"]))

    def test_places_uploaded_clustered_and_mapped(self):
        client = gateway()
        upload = client.upload_places(TOWNS, name="towns.csv")
        dataset = upload["dataset"]["datasetId"]

        run = client.start_run("census-places", {"import.dataset": dataset, "import.file": "", "cluster.maxClusters": 2})
        events = list(client.events(run["id"]))
        ended = client.wait(run["id"], timeout=300)
        page = client.runs(workflow="census-places", limit=10)

        self.assertEqual("succeeded", ended["state"], ended.get("error"))
        self.assertEqual({"run", "step"}, {"run", "step"} & {e.event for e in events})
        self.assertEqual("run", events[-1].event)
        self.assertEqual("succeeded", events[-1].data["state"])
        self.assertIn(run["id"], [r["id"] for r in page["runs"]])
        self.assertGreaterEqual(page["total"], 1)
        svg = client.artifact(run["id"], "map.svg")
        self.assertIn(b"<svg", svg[:500])
        clusters = client.clusters(run["id"])
        self.assertEqual(2, len(clusters))
        table = client.to_dataframe(run["id"])
        self.assertEqual(2, len(table))
        self.assertEqual(set(clusters[0]), set(table.columns))
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "clusters.geojson")
            written = client.download_artifact(run["id"], "clusters.geojson", path)
            self.assertEqual(os.path.getsize(path), written)
            self.assertGreater(written, 100)
        # The upload found again, with the run that used it; renamed.
        listed = client.datasets(kind="census", name="towns")
        entry = next(d for d in listed["datasets"] if d["datasetId"] == dataset)
        self.assertIn(run["id"], [use["runId"] for use in entry["runs"]])
        self.assertEqual("my towns", client.rename_dataset(dataset, "my towns")["name"])
        self.assertEqual([dataset], [d["datasetId"] for d in client.datasets(name="my towns")["datasets"]])
        # Retried from the map, wider: the steps before it reused.
        retried = client.wait(client.retry(run["id"], "map", {"map.width": 640})["id"], timeout=300)
        self.assertEqual(("succeeded", "map", run["id"]), (retried["state"], retried["retriedFrom"], retried["rerunOf"]))
        self.assertEqual(["import", "query", "cluster"], [s["id"] for s in retried["steps"] if s["reused"]])
        # Reproduced by id and from the recorded run: every output and file identical.
        for recorded in (run["id"], client.run(run["id"])):
            again = client.wait(client.reproduce(recorded)["id"], timeout=300)
            self.assertTrue(again["reproduction"]["identical"], again["reproduction"])
            self.assertEqual(run["id"], again["reproduction"]["of"])

    def test_compounds_uploaded_and_refusals_listed(self):
        upload = gateway().upload_compounds(b"CC(=O)Oc1ccccc1C(=O)O aspirin\nCN1C=NC2=C1C(=O)N(C(=O)N2C)C caffeine\nC1CC never-closed\n", name="mine.smi")

        self.assertEqual(2, upload["dataset"]["count"])
        self.assertEqual(1, len(upload["refused"]))

    def test_errors_are_problem_details(self):
        client = gateway()

        with self.assertRaises(SalsaError) as unknown:
            client.start_run("no-such-workflow")
        with self.assertRaises(SalsaError) as invalid:
            client.validate("name: x\nsteps:\n  a: {service: kmeans, operation: nope}\n")
        with self.assertRaises(SalsaError) as missing:
            client.run("00000000-0000-0000-0000-000000000000")

        self.assertTrue(400 <= unknown.exception.status < 500)
        self.assertIn("no-such-workflow", unknown.exception.detail)
        self.assertEqual(400, invalid.exception.status)
        self.assertEqual(404, missing.exception.status)

    def test_a_wrong_key_is_refused(self):
        if not os.environ.get("SALSA_API_KEY"):
            self.skipTest("the gateway asks for no credentials")

        with self.assertRaises(SalsaError) as refused:
            gateway(api_key="salsa_not-a-key").workflows()

        self.assertEqual(401, refused.exception.status)


if __name__ == "__main__":
    unittest.main()
