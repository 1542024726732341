"""Build Terraform provider schemas from the cdktf prebuilt-provider packages (decision 0032).

`cdktf-cdktf-provider-google` and `-google-beta` 16.12.1 are generated from hashicorp/google 6.50.0
and `cdktf-cdktf-provider-archive` 11.0.1 from hashicorp/archive 2.7.1. Each wheel carries a jsii
assembly (every resource, data source and nested block with its properties and their types) and the
compiled JavaScript, whose generated comments say for every attribute whether it is required,
optional or computed (`// name - computed: true, optional: false, required: false`) and whose
`new XxxList(this, "name", wrapsSet)` calls say which nested collections are sets.

From both this module writes, per provider, the serialized `GetProviderSchema.Response` of
Terraform's plugin protocol (tfplugin5) that `devtools.tfprovider.server` answers with. Run with
`python -m devtools.tfprovider.schema` (or `make terraform-schemas`); it downloads the three wheels
from PyPI with pip (no install) into a temporary directory.
"""

from __future__ import annotations

import base64
import io
import json
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from devtools.tfprovider import tfplugin5_pb2 as pb

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_DIR = ROOT / ".local" / "terraform" / "schemas"

# provider name -> (PyPI package, version). The version pins the provider release the schema is of.
PACKAGES: dict[str, tuple[str, str]] = {
    "google": ("cdktf-cdktf-provider-google", "16.12.1"),
    "google-beta": ("cdktf-cdktf-provider-google-beta", "16.12.1"),
    "archive": ("cdktf-cdktf-provider-archive", "11.0.1"),
}

# Properties cdktf adds to every resource or provider config that are Terraform meta-arguments.
META = {"connection", "count", "dependsOn", "forEach", "lifecycle", "provider", "provisioners"}
PROVIDER_META = {"alias"}

COMMENT_RE = re.compile(
    r"// (\w+) - computed: (true|false), optional: (true|false), required: (true|false)"
)
LIST_RE = re.compile(r'new (\w+)List\(this, "(\w+)", (true|false)\)')
SET_GETTER_RE = re.compile(r"return cdktf\.Fn\.tolist\(this\.get\w*ListAttribute\('(\w+)'\)\)")
SEGMENT_RE = re.compile(r"^(?:export )?(?:class|function|interface) (\w+)", re.M)
SOURCE_MAP_RE = re.compile(r"sourceMappingURL=data:application/json;base64,(\S+)")
LINK_RE = re.compile(r"docs/(?:resources|data-sources)/\S+ (\w+)\}")
ANCHOR_RE = re.compile(r"#(\w+) \w+#\w+\}")
PRIMITIVES = {"string": "string", "number": "number", "boolean": "bool", "any": "dynamic"}
MAPS = {
    "cdktf.StringMap": ["map", "string"],
    "cdktf.NumberMap": ["map", "number"],
    "cdktf.BooleanMap": ["map", "bool"],
    "cdktf.AnyMap": ["map", "dynamic"],
    "cdktf.StringMapList": ["list", ["map", "string"]],
    "cdktf.NumberMapList": ["list", ["map", "number"]],
    "cdktf.BooleanMapList": ["list", ["map", "bool"]],
    "cdktf.AnyMapList": ["list", ["map", "dynamic"]],
}


def norm(name: str) -> str:
    return name.replace("_", "").lower()


@dataclass
class JsClass:
    """What the compiled JavaScript says about one generated class."""

    flags: dict[str, tuple[bool, bool, bool]] = field(default_factory=dict)  # computed, opt, req
    lists: dict[str, bool] = field(default_factory=dict)  # tf name -> wraps a set
    set_attrs: set[str] = field(default_factory=set)


class Assembly:
    def __init__(self, jsii: dict[str, Any], js_files: dict[str, str]) -> None:
        self.types: dict[str, Any] = jsii["types"]
        self.js_files = js_files
        self._js: dict[str, dict[str, JsClass]] = {}

    def js_class(self, fqn: str) -> JsClass:
        t = self.types.get(fqn)
        if t is None:
            return JsClass()
        filename = t["locationInModule"]["filename"]  # src/<dir>/index.ts
        js_name = "lib/" + filename.removeprefix("src/").removesuffix(".ts") + ".js"
        if js_name not in self._js:
            self._js[js_name] = parse_js(self.js_files.get(js_name, ""))
        return self._js[js_name].get(t["name"], JsClass())

    def block(self, struct_fqn: str | None, class_fqn: str, skip: set[str]) -> pb.Schema.Block:
        """The schema block of a config struct plus the computed getters of its class."""
        js = self.js_class(class_fqn)
        by_norm = {norm(n): n for n in js.flags}
        block = pb.Schema.Block()
        seen: set[str] = set()
        props = self.types[struct_fqn].get("properties", []) if struct_fqn else []
        for prop in props:
            if prop["name"] in skip:
                continue
            tf_name = tf_name_of(prop, by_norm)
            seen.add(norm(tf_name))
            computed, optional, required = js.flags.get(
                tf_name, (False, bool(prop.get("optional")), not prop.get("optional"))
            )
            ref = strip(prop["type"])
            nested = self.struct_of(ref)
            if nested is not None:
                fqn, many = nested
                nb = block.block_types.add(type_name=tf_name)
                nb.block.CopyFrom(self.block(fqn, fqn + "OutputReference", set()))
                if not many and ref.get("fqn") and not prop.get("optional"):
                    nb.nesting = pb.Schema.NestedBlock.LIST
                    nb.min_items, nb.max_items = 1, 1
                elif not many:
                    nb.nesting = pb.Schema.NestedBlock.LIST
                    nb.max_items = 1
                    if tf_name == "timeouts":
                        nb.nesting = pb.Schema.NestedBlock.SINGLE
                        nb.max_items = 0
                else:
                    nb.nesting = (
                        pb.Schema.NestedBlock.SET
                        if js.lists.get(tf_name)
                        else pb.Schema.NestedBlock.LIST
                    )
                    if not prop.get("optional"):
                        nb.min_items = 1
                continue
            cty = self.cty(ref, tf_name in js.set_attrs)
            block.attributes.add(
                name=tf_name,
                type=json.dumps(cty).encode(),
                required=required,
                optional=not required and (optional or not computed),
                computed=computed and not required,
            )
        # Computed-only attributes: getters of the class that are not in the config struct.
        for prop in self.types.get(class_fqn, {}).get("properties", []):
            name = prop["name"]
            if (
                name.endswith("Input")
                or name in {"internalValue", "tfResourceType", "fqn", "friendlyUniqueId"}
                or prop.get("static")
                or norm(name) in seen
                or norm(name) not in by_norm
            ):
                continue
            tf_name = by_norm[norm(name)]
            seen.add(norm(name))
            ref = strip(prop["type"])
            cty = self.computed_cty(ref, js, tf_name)
            if cty is None:
                continue
            block.attributes.add(name=tf_name, type=json.dumps(cty).encode(), computed=True)
        return block

    def struct_of(self, ref: dict[str, Any]) -> tuple[str, bool] | None:
        if "fqn" in ref and self.types.get(ref["fqn"], {}).get("datatype"):
            return ref["fqn"], False
        coll = ref.get("collection")
        if coll and coll["kind"] == "array":
            el = strip(coll["elementtype"])
            if "fqn" in el and self.types.get(el["fqn"], {}).get("datatype"):
                return el["fqn"], True
        return None

    def cty(self, ref: dict[str, Any], is_set: bool = False) -> Any:
        if "primitive" in ref:
            return PRIMITIVES.get(ref["primitive"], "dynamic")
        if "collection" in ref:
            coll = ref["collection"]
            el = self.cty(strip(coll["elementtype"]))
            kind = "map" if coll["kind"] == "map" else ("set" if is_set else "list")
            return [kind, el]
        if "fqn" in ref:
            if ref["fqn"] in MAPS:
                return MAPS[ref["fqn"]]
            if self.types.get(ref["fqn"], {}).get("datatype"):
                return ["object", self.object_attrs(ref["fqn"])]
        return "dynamic"

    def object_attrs(self, struct_fqn: str) -> dict[str, Any]:
        js = self.js_class(struct_fqn + "OutputReference")
        by_norm = {norm(n): n for n in js.flags}
        out = {}
        for prop in self.types[struct_fqn].get("properties", []):
            out[tf_name_of(prop, by_norm)] = self.cty(strip(prop["type"]))
        return out

    def computed_cty(self, ref: dict[str, Any], js: JsClass, tf_name: str) -> Any:
        if "primitive" in ref or "collection" in ref:
            return self.cty(ref, tf_name in js.set_attrs)
        fqn = ref.get("fqn", "")
        if fqn in MAPS:
            return MAPS[fqn]
        t = self.types.get(fqn)
        if t is None:
            return None
        if t.get("base") == "cdktf.ComplexList" and fqn.endswith("List"):
            element = fqn.removesuffix("List") + "OutputReference"
            if element not in self.types:
                return None
            kind = "set" if js.lists.get(tf_name) else "list"
            return [kind, ["object", self.computed_object(element)]]
        if t.get("base") == "cdktf.ComplexObject":
            return ["list", ["object", self.computed_object(fqn)]]
        return None

    def computed_object(self, class_fqn: str) -> dict[str, Any]:
        js = self.js_class(class_fqn)
        by_norm = {norm(n): n for n in js.flags}
        out: dict[str, Any] = {}
        for prop in self.types[class_fqn].get("properties", []):
            name = prop["name"]
            if name.endswith("Input") or name == "internalValue" or norm(name) not in by_norm:
                continue
            tf_name = by_norm[norm(name)]
            cty = self.computed_cty(strip(prop["type"]), js, tf_name)
            if cty is not None:
                out[tf_name] = cty
        return out


def strip(ref: dict[str, Any]) -> dict[str, Any]:
    """Drop cdktf's `IResolvable` alternative from a union type."""
    if "union" in ref:
        types = [t for t in ref["union"]["types"] if t.get("fqn") != "cdktf.IResolvable"]
        if len(types) == 1:
            return strip(types[0])
        return types[0] if types else {"primitive": "any"}
    return ref


def tf_name_of(prop: dict[str, Any], by_norm: dict[str, str]) -> str:
    docs = prop.get("docs", {})
    found = ANCHOR_RE.search(docs.get("remarks", "") + " " + docs.get("summary", ""))
    if found:
        return found.group(1)
    if norm(prop["name"]) in by_norm:
        return by_norm[norm(prop["name"])]
    return re.sub(r"(?<!^)(?=[A-Z])", "_", prop["name"]).lower()


def parse_js(text: str) -> dict[str, JsClass]:
    """Read the TypeScript source embedded in the compiled file's source map (the compiled code
    lost the comments of the fields it dropped), or the compiled code when there is none."""
    source_map = SOURCE_MAP_RE.search(text)
    if source_map:
        sources = json.loads(base64.b64decode(source_map.group(1))).get("sourcesContent")
        if sources and sources[0]:
            text = sources[0]
    out: dict[str, JsClass] = {}
    marks = list(SEGMENT_RE.finditer(text))
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        segment = text[mark.start() : end]
        cls = JsClass()
        for m in COMMENT_RE.finditer(segment):
            cls.flags[m.group(1)] = (
                m.group(2) == "true",
                m.group(3) == "true",
                m.group(4) == "true",
            )
        for m in LIST_RE.finditer(segment):
            cls.lists[m.group(2)] = m.group(3) == "true"
        cls.set_attrs = set(SET_GETTER_RE.findall(segment))
        out[mark.group(1)] = cls
    return out


def read_wheel(wheel: Path) -> Assembly:
    with zipfile.ZipFile(wheel) as zf:
        inner = next(n for n in zf.namelist() if n.endswith(".jsii.tgz"))
        data = zf.read(inner)
    jsii: dict[str, Any] = {}
    js_files: dict[str, str] = {}
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar:
            name = member.name.removeprefix("package/")
            if name == ".jsii" or (name.startswith("lib/") and name.endswith("/index.js")):
                f = tar.extractfile(member)
                if f is None:
                    continue
                content = f.read()
                if name == ".jsii":
                    jsii = json.loads(content)
                else:
                    js_files[name] = content.decode()
    if jsii.get("schema") == "jsii/file-redirect":  # a compressed assembly
        raise SystemExit(f"{wheel.name}: compressed jsii assemblies are not supported")
    return Assembly(jsii, js_files)


def provider_schema(asm: Assembly) -> pb.GetProviderSchema.Response:
    resp = pb.GetProviderSchema.Response()
    # Lets Terraform reuse the schema it already has instead of asking each new provider instance.
    resp.server_capabilities.get_provider_schema_optional = True
    for fqn, t in asm.types.items():
        base = t.get("base")
        if t.get("kind") != "class" or base not in {
            "cdktf.TerraformResource",
            "cdktf.TerraformDataSource",
            "cdktf.TerraformProvider",
        }:
            continue
        config = t["initializer"]["parameters"][-1]["type"]["fqn"]
        if base == "cdktf.TerraformProvider":
            resp.provider.block.CopyFrom(asm.block(config, fqn, META | PROVIDER_META))
            continue
        found = LINK_RE.search(t["docs"]["summary"])
        if not found:
            continue
        target = (
            resp.resource_schemas
            if base == "cdktf.TerraformResource"
            else (resp.data_source_schemas)
        )
        target[found.group(1)].block.CopyFrom(asm.block(config, fqn, META))
    return resp


def download(dest: Path) -> dict[str, Path]:
    specs = [f"{pkg}=={ver}" for pkg, ver in PACKAGES.values()]
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "-d", str(dest), *specs],
        check=True,
    )
    wheels = {}
    for name, (pkg, ver) in PACKAGES.items():
        stem = pkg.replace("-", "_")
        wheels[name] = next(dest.glob(f"{stem}-{ver}-*.whl"))
    return wheels


def generate(out_dir: Path = SCHEMA_DIR) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    versions = out_dir / "versions.json"
    versions.unlink(missing_ok=True)  # written last: marks a complete set
    with tempfile.TemporaryDirectory() as tmp:
        for name, wheel in download(Path(tmp)).items():
            resp = provider_schema(read_wheel(wheel))
            (out_dir / f"{name}.pb").write_bytes(resp.SerializeToString())
            print(
                f"{name}: {len(resp.resource_schemas)} resources, "
                f"{len(resp.data_source_schemas)} data sources"
            )
    versions.write_text(json.dumps(PACKAGES, indent=2) + "\n")


if __name__ == "__main__":
    generate(Path(sys.argv[1]) if len(sys.argv) > 1 else SCHEMA_DIR)
