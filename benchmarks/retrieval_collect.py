"""Copy the retrieval benchmark's documents into benchmarks/retrieval_docs/ (run once, commit).

    .venv/bin/python benchmarks/retrieval_collect.py

Each document is a real file of this machine: a Debian package's file, or a file of an npm
or PyPI package installed here. Man pages are rendered to text, gzip files unpacked, and
every document cut at a line end to at most MAX_BYTES (said in the manifest). The manifest
`benchmarks/retrieval_docs/manifest.json` records kind, package, version, path and licence.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0:1] = [str(ROOT)]

from benchmarks import _docs  # noqa: E402

OUT = ROOT / "benchmarks" / "retrieval_docs"
MAX_BYTES = 200_000
NM, SP = _docs.NODE_MODULES, _docs.SITE_PACKAGES
PYENV_311 = Path("/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages")
GCLOUD = Path("/usr/lib/google-cloud-sdk")

# key, kind, source path, (package manager, package, licence) -- versions are looked up.
DOCUMENTS = [
    ("rsync-man", "man", Path("/usr/share/man/man1/rsync.1.gz"), ("debian", "rsync", "GPL-3+")),
    ("find-man", "man", Path("/usr/share/man/man1/find.1.gz"), ("debian", "findutils", "GPL-3+")),
    ("zlib-h", "c-header", Path("/usr/include/zlib.h"), ("debian", "zlib1g-dev", "Zlib")),
    ("expat-h", "c-header", Path("/usr/include/expat.h"), ("debian", "libexpat1-dev", "MIT")),
    (
        "commander-dts",
        "typescript",
        NM / "commander/typings/index.d.ts",
        ("npm", "commander", "MIT"),
    ),
    (
        "mcp-server-dts",
        "typescript",
        NM / "@modelcontextprotocol/sdk/dist/esm/server/mcp.d.ts",
        ("npm", "@modelcontextprotocol/sdk", "MIT"),
    ),
    ("jsonschema-py", "python", SP / "jsonschema/validators.py", ("pypi", "jsonschema", "MIT")),
    ("httpx-client-py", "python", SP / "httpx2/_client.py", ("pypi", "httpx2", "BSD-3-Clause")),
    ("commander-js", "javascript", NM / "commander/lib/command.js", ("npm", "commander", "MIT")),
    (
        "express-response-js",
        "javascript",
        NM / "express/lib/response.js",
        ("npm", "express", "MIT"),
    ),
    (
        "dpkg-packages-csv",
        "csv",
        Path("/var/lib/dpkg/status"),
        ("debian", "dpkg", "public domain (package metadata)"),
    ),
    (
        "tz-zones-tsv",
        "csv",
        Path("/usr/share/zoneinfo/zone1970.tab"),
        ("debian", "tzdata", "public domain"),
    ),
    ("dpkg-log", "log", Path("/var/log/dpkg.log"), ("debian", "dpkg", "machine log")),
    ("apt-history-log", "log", Path("/var/log/apt/history.log"), ("debian", "apt", "machine log")),
    (
        "curl-changelog",
        "changelog",
        Path("/usr/share/doc/curl/changelog.Debian.gz"),
        ("debian", "curl", "curl"),
    ),
    (
        "systemd-changelog",
        "changelog",
        Path("/usr/share/doc/systemd/changelog.Debian.gz"),
        ("debian", "systemd", "LGPL-2.1+"),
    ),
    (
        "zlib-how-html",
        "html",
        Path("/usr/share/doc/zlib1g-dev/examples/zlib_how.html"),
        ("debian", "zlib1g-dev", "Zlib"),
    ),
    (
        "python-policy-html",
        "html",
        Path("/usr/share/doc/python3/python-policy.html"),
        ("debian", "python3-dev", "PSF-2.0"),
    ),
    (
        "gcs-discovery-json",
        "json-api",
        GCLOUD / "platform/gsutil/third_party/apitools/samples/storage_sample/storage_v1.json",
        ("debian", "google-cloud-cli", "Apache-2.0"),
    ),
    (
        "openapi30-schema-json",
        "json-api",
        PYENV_311 / "openapi_spec_validator/resources/schemas/v3.0/schema.json",
        ("pypi", "openapi-spec-validator", "Apache-2.0"),
    ),
    ("mime-db-json", "json-data", NM / "mime-db/db.json", ("npm", "mime-db", "MIT")),
    (
        "iso3166-json",
        "json-data",
        Path("/usr/share/iso-codes/json/iso_3166-1.json"),
        ("debian", "iso-codes", "LGPL-2.1+"),
    ),
    (
        "iam-flags-yaml",
        "yaml",
        GCLOUD / "lib/googlecloudsdk/command_lib/iam/flags.yaml",
        ("debian", "google-cloud-cli", "Apache-2.0"),
    ),
    (
        "backup-flags-yaml",
        "yaml",
        GCLOUD / "lib/googlecloudsdk/command_lib/container/backup_restore/flags.yaml",
        ("debian", "google-cloud-cli", "Apache-2.0"),
    ),
    (
        "pg-system-views-sql",
        "sql",
        Path("/usr/share/postgresql/15/system_views.sql"),
        ("debian", "postgresql-15", "PostgreSQL"),
    ),
    (
        "pg-information-schema-sql",
        "sql",
        Path("/usr/share/postgresql/15/information_schema.sql"),
        ("debian", "postgresql-15", "PostgreSQL"),
    ),
    (
        "mysql-system-tables-sql",
        "sql",
        Path("/usr/share/mysql/mysql_system_tables.sql"),
        ("debian", "mariadb-server", "GPL-2"),
    ),
    ("click-core-py", "python", SP / "click/core.py", ("pypi", "click", "BSD-3-Clause")),
]

DPKG_FIELDS = (
    "Package",
    "Version",
    "Architecture",
    "Installed-Size",
    "Section",
    "Priority",
    "Maintainer",
)


def version(manager: str, package: str, path: Path) -> str:
    """The installed version of `package`, which holds `path`."""
    if manager == "debian":
        done = subprocess.run(
            ["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True
        )
        return done.stdout.strip() or "?"
    if manager == "npm":
        for folder in path.parents:
            manifest = folder / "package.json"
            if manifest.exists() and json.loads(manifest.read_text()).get("name") == package:
                return json.loads(manifest.read_text())["version"]
        return "?"
    name = package.replace("-", "_").lower()
    for folder in path.parents:
        for info in folder.glob(f"{name}-*.dist-info"):
            return info.name[len(name) + 1 : -len(".dist-info")]
    return "?"


def dpkg_csv(path: Path) -> str:
    """The package records of dpkg's status file as CSV, one row a package."""
    rows = [",".join(DPKG_FIELDS)]
    for record in path.read_text(encoding="utf-8", errors="replace").split("\n\n"):
        fields = dict(
            line.split(": ", 1)
            for line in record.splitlines()
            if ": " in line and not line[0].isspace()
        )
        if "Package" in fields:
            rows.append(",".join(_csv_cell(fields.get(name, "")) for name in DPKG_FIELDS))
    return "\n".join(rows) + "\n"


def _csv_cell(value: str) -> str:
    return f'"{value.replace(chr(34), chr(34) * 2)}"' if any(c in value for c in ',"') else value


def text_of(key: str, path: Path) -> str:
    if key == "dpkg-packages-csv":
        return dpkg_csv(path)
    if path.name.endswith((".1.gz", ".1")):
        return _docs.render_man(path)
    return _docs.read_text(path)


def cut(text: str, kind: str) -> tuple[str, bool]:
    """Cut at a line end to MAX_BYTES; JSON is kept whole (cut, it would not parse)."""
    data = text.encode("utf-8")
    if len(data) <= MAX_BYTES or kind.startswith("json"):
        return text, False
    end = data.rfind(b"\n", 0, MAX_BYTES) + 1
    return data[:end].decode("utf-8"), True


def main() -> None:
    OUT.mkdir(exist_ok=True)
    manifest = []
    for key, kind, path, (manager, package, licence) in DOCUMENTS:
        text, was_cut = cut(text_of(key, path), kind)
        suffix = {"man": ".txt", "csv": ".csv" if "csv" in key else ".tsv"}.get(kind, path.suffix)
        if path.suffix == ".gz":
            suffix = ".txt"
        name = key + suffix
        (OUT / name).write_text(text, encoding="utf-8")
        manifest.append(
            {
                "key": key,
                "kind": kind,
                "file": name,
                "source": f"{manager} {package} {version(manager, package, path)}",
                "path": str(path).replace(str(ROOT) + "/", ""),
                "licence": licence,
                "note": f"cut to its first {len(text.encode())} bytes" if was_cut else "",
            }
        )
        print(f"{name:36} {len(text.encode()):>8} {'cut' if was_cut else ''}")
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
