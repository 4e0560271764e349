"""The Python client against a real skillsd (a copy of the demo catalog,
analytics on, a token required), started by the tests on a loopback port.

The skillsd binary comes from SKILLSD_BIN_DIR (make passes ./bin), else it is
built with the go command into a temporary folder.
"""

import datetime as dt
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from concurrent import futures
from pathlib import Path

import grpc

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(HERE.parent / "src"))

import skillsd_client as sc  # noqa: E402
from skillsd_client._gen.skills.v1 import catalog_service_pb2_grpc  # noqa: E402

TOKEN = "py-test-s3cret"


def skillsd_binary(tmp):
    bin_dir = os.environ.get("SKILLSD_BIN_DIR")
    if bin_dir:
        return str(Path(bin_dir) / "skillsd")
    out = str(Path(tmp) / "skillsd")
    subprocess.run(["go", "build", "-C", str(ROOT / "services" / "skills"), "-o", out, "./cmd/skillsd"], check=True)
    return out


class Server:
    """skillsd on 127.0.0.1:0; the address is read from its log."""

    def __init__(self, binary, catalog, home, config, env):
        args = [binary, "--grpc", "127.0.0.1:0", "--skills-dir", catalog, "--config", config, "--token-env", "PY_TEST_TOKENS"]
        self.proc = subprocess.Popen(args, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                                     env={**os.environ, "SKILLSD_HOME": home, "PY_TEST_TOKENS": TOKEN, **env})
        self.log = []
        found = threading.Event()
        self.addr = None

        def read():
            for line in self.proc.stderr:
                self.log.append(line)
                m = re.search(r'serving gRPC" addr=(\S+)', line)
                if m and not found.is_set():
                    self.addr = m.group(1)
                    found.set()

        threading.Thread(target=read, daemon=True).start()
        if not found.wait(60):
            self.stop()
            raise RuntimeError("skillsd did not start:\n" + "".join(self.log))

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class ClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="skillsd-py-")
        cls.catalog = os.path.join(cls.tmp, "skills")
        shutil.copytree(ROOT / "examples" / "skills", cls.catalog)
        content = Path(cls.tmp, "content")
        (content / "agents").mkdir(parents=True)
        (content / "docs" / "guides").mkdir(parents=True)
        (content / "agents" / "reviewer.md").write_text("---\nname: reviewer\ndescription: Reviews pull requests.\n---\nYou review code.\n")
        (content / "docs" / "guides" / "setup.md").write_text("---\ntitle: Setup\n---\n# Setup\n")
        config = os.path.join(cls.tmp, "config.yaml")
        Path(config).write_text("analytics:\n  enabled: true\n")
        home = os.path.join(cls.tmp, "home")
        os.mkdir(home)
        cls.server = Server(skillsd_binary(cls.tmp), cls.catalog, home, config,
                            {"AGENTS_DIR": str(content / "agents"), "DOCS_DIR": str(content / "docs")})
        cls.client = sc.Client(cls.server.addr, token=TOKEN)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.server.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_pages(self):
        first = self.client.list_skills(page_size=4)
        self.assertEqual(len(first.skills), 4)
        self.assertTrue(first.next_page_token)
        paths = [s.skill_path for s in self.client.iter_skills(page_size=4)]
        self.assertEqual(len(paths), first.total_size)
        self.assertEqual(paths, sorted(paths))
        self.assertEqual(len(set(paths)), len(paths))
        self.assertIn("backend/go-service", paths)

    def test_get_skill(self):
        got = self.client.get_skill("backend/go-service")
        self.assertEqual(list(got.inheritance_chain), ["_root", "backend/_index", "backend/go-service"])
        self.assertIn("===", got.content)
        self.assertEqual(got.skill.layout, sc.types_pb.LAYOUT_TREE)
        by_name = self.client.get_skill("CHANGELOG")
        self.assertEqual(by_name.skill.skill_path, "changelog")
        self.assertTrue(self.client.skill_tree().skills)

    def test_not_found_has_suggestions(self):
        with self.assertRaises(sc.SkillNotFound) as cm:
            self.client.get_skill("go-servic")
        e = cm.exception
        self.assertIsInstance(e, sc.SkillsError)
        self.assertEqual(e.code, grpc.StatusCode.NOT_FOUND)
        self.assertEqual(e.reason, "SKILL_NOT_FOUND")
        self.assertEqual(e.skill_path, "go-servic")
        self.assertEqual(e.suggestions, ["backend/go-service"])

    def test_every_reason_has_its_exception(self):
        names = {v.name[len("ERROR_REASON_"):] for v in sc.types_pb.ErrorReason.DESCRIPTOR.values if v.number}
        self.assertEqual(names, set(sc.REASONS))

    def test_read_file(self):
        path = Path(self.catalog, "backend/go-service/diagrams/service-layout.png")
        whole = self.client.read_file("backend/go-service", "diagrams/service-layout.png", max_bytes=40)
        self.assertTrue(whole.binary)
        self.assertEqual(whole.content, path.read_bytes())
        self.assertEqual(whole.info.digest, "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest())
        pages = list(self.client.iter_file("backend/go-service", "diagrams/service-layout.png", max_bytes=40))
        self.assertEqual(len(pages), -(-path.stat().st_size // 40))
        text = self.client.read_file("backend/go-service", "templates/main.go.tmpl")
        self.assertEqual(text.content, Path(self.catalog, "backend/go-service/templates/main.go.tmpl").read_text())
        with self.assertRaises(sc.FileNotFound):
            self.client.read_file("backend/go-service", "nope.txt")
        with self.assertRaises(sc.InvalidPath):
            self.client.read_file("backend/go-service", "../../../etc/passwd")

    def test_search_and_match(self):
        hits = self.client.search("write release notes from commits", limit=3)
        self.assertEqual(hits.results[0].skill_path, "changelog")
        self.assertEqual(list(self.client.search("quantum chromodynamics lattice").results), [])
        self.assertEqual(list(self.client.search("get the thing out the door").results), [])
        restated = self.client.search("get the thing out the door", restated=["write release notes and a changelog from the commits"])
        self.assertEqual(restated.results[0].skill_path, "changelog")
        self.assertEqual(restated.results[0].phrasing, 1)
        self.assertEqual(self.client.match("get the thing out the door", restated=["write release notes and a changelog from the commits"]).skill_path, "changelog")
        m = self.client.match("scaffold a new Go HTTP service")
        self.assertEqual(m.outcome, sc.routing_pb.MATCH_OUTCOME_MATCH)
        self.assertEqual(m.skill_path, "backend/go-service")

    def test_scripts_and_commands(self):
        run = self.client.run_script("backend/go-service", "scripts/scaffold-plan.sh", {"name": "orders-api"})
        self.assertTrue(run.success, run.stderr)
        self.assertIn("orders-api", run.stdout)
        with self.assertRaises(sc.MissingArguments) as cm:
            self.client.run_script("backend/go-service", "scripts/scaffold-plan.sh")
        self.assertEqual(cm.exception.missing, ["name"])
        with self.assertRaises(sc.CommandsDisabled):
            self.client.run_command("changelog", "ls")

    def test_usage(self):
        self.assertTrue(self.client.report_usage("changelog", True, "from python").recorded)
        ev = sc.types_pb.UsageEvent(id="py-1", type="no_match", server_id="py")
        ev.timestamp.GetCurrentTime()
        ev.data.update({"context": "fly to the moon"})
        self.assertEqual(self.client.ingest_events([ev]).accepted, 1)
        self.assertEqual(self.client.ingest_events([ev]).duplicates, 1)
        now = dt.datetime.now(dt.timezone.utc)
        stats = self.client.usage_stats(start=now - dt.timedelta(days=1), end=now + dt.timedelta(minutes=1))
        row = {s.skill_path: s for s in stats.skills}["changelog"]
        self.assertEqual(list(row.recent_comments), ["from python"])
        self.assertIn("fly to the moon", [c.context for c in stats.top_no_match])
        with self.assertRaises(ValueError):
            self.client.usage_stats(start=dt.datetime(2026, 1, 1))

    def test_content(self):
        self.assertEqual([a.name for a in self.client.list_agents().agents], ["reviewer"])
        self.assertIn("You review code", self.client.get_agent("reviewer").content)
        with self.assertRaises(sc.AgentNotFound):
            self.client.get_agent("nobody")
        self.assertIn("# Setup", self.client.get_doc("guides", "setup").content)
        self.assertTrue(self.client.list_docs().pages)

    def test_status_diagnostics_refresh(self):
        st = self.client.status()
        self.assertGreaterEqual(st.generation, 1)
        self.assertEqual(st.sources[0].kind, "local")
        self.assertEqual(len(self.client.diagnostics(min_severity=sc.types_pb.SEVERITY_ERROR).diagnostics), 0)
        self.assertTrue(self.client.refresh().success)

    def test_watch(self):
        stream = self.client.watch()
        first = next(stream)
        self.assertTrue(first.initial)
        folder = Path(self.catalog, "from-python")
        folder.mkdir()
        (folder / "SKILL.md").write_text("---\nname: from-python\ndescription: Added while watching.\n---\nBody.\n")
        deadline = time.monotonic() + 20
        for change in stream:
            if "from-python" in change.added:
                self.assertGreater(change.generation, first.generation)
                break
            self.assertLess(time.monotonic(), deadline)
        stream.close()

    def test_token(self):
        with sc.Client(self.server.addr) as anon:
            with self.assertRaises(sc.Unauthenticated) as cm:
                anon.status()
            self.assertEqual(cm.exception.code, grpc.StatusCode.UNAUTHENTICATED)
            with self.assertRaises(sc.Unauthenticated):
                next(anon.watch())
        with sc.Client(self.server.addr, token="wrong") as wrong:
            with self.assertRaises(sc.SkillsError) as cm:
                wrong.status()
            self.assertEqual(cm.exception.code, grpc.StatusCode.UNAUTHENTICATED)

    def test_unreachable(self):
        with sc.Client("127.0.0.1:1", timeout=5) as dead:
            with self.assertRaises(sc.Unavailable):
                dead.status()


class _Status(catalog_service_pb2_grpc.CatalogServiceServicer):
    def GetCatalogStatus(self, request, context):
        md = dict(context.invocation_metadata())
        if md.get("authorization") != "Bearer tls-token":
            context.abort(grpc.StatusCode.UNAUTHENTICATED, "no token")
        return sc.catalog_pb.GetCatalogStatusResponse(generation=7, version="tls-test")


@unittest.skipUnless(shutil.which("openssl"), "openssl is needed to make a test certificate")
class TLSTest(unittest.TestCase):
    """The TLS options against a gRPC server with a certificate made here.
    (skillsd serves plaintext today; this checks the client's side: the
    handshake with a private CA, the server name, and the token over TLS.)"""

    def test_tls_with_private_root_and_token(self):
        with tempfile.TemporaryDirectory() as d:
            key, crt = os.path.join(d, "key.pem"), os.path.join(d, "crt.pem")
            subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", crt, "-days", "1",
                            "-subj", "/CN=skills.test", "-addext", "subjectAltName=DNS:skills.test"], check=True, capture_output=True)
            pem_key, pem_crt = Path(key).read_bytes(), Path(crt).read_bytes()
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        catalog_service_pb2_grpc.add_CatalogServiceServicer_to_server(_Status(), server)
        port = server.add_secure_port("127.0.0.1:0", grpc.ssl_server_credentials([(pem_key, pem_crt)]))
        server.start()
        try:
            with sc.Client(f"127.0.0.1:{port}", root_certificates=pem_crt, server_name="skills.test", token="tls-token") as c:
                self.assertEqual(c.status().generation, 7)
            with sc.Client(f"127.0.0.1:{port}", root_certificates=pem_crt, server_name="skills.test") as c:
                with self.assertRaises(sc.Unauthenticated):
                    c.status()
            with sc.Client(f"127.0.0.1:{port}", tls=True, server_name="skills.test", timeout=5) as c:
                with self.assertRaises(sc.Unavailable):  # the system roots do not trust it
                    c.status()
        finally:
            server.stop(None)


if __name__ == "__main__":
    unittest.main()
