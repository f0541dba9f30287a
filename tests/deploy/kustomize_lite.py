"""A tiny, offline stand-in for `kustomize build`, enough for the manifests in k8s/.

Supported (and nothing else, so an unsupported field fails loudly instead of being ignored):
- `resources`: files (multi-document YAML) and directories holding a kustomization.yaml;
- `components`: directories holding a `kind: Component` kustomization, applied to the resources
  accumulated so far (the kustomize semantics);
- `patches`: strategic-merge patches from `path` (exactly one document, as kustomize requires) or an
  inline `patch`, matched by kind + name (apiVersion must agree), including `$patch: delete` of a whole
  object; lists merge by `name` (or `mountPath`) for the built-in fields that have that merge key,
  other lists and every list in a custom resource are replaced; `null` removes a field;
- `images`: newName / newTag / digest for containers and initContainers;
- `namespace`: set on every namespaced object; Namespace objects are renamed (kustomize does that too).
Applied in kustomize's order: resources, components, patches, images, namespace.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

SUPPORTED_FIELDS = {"apiVersion", "kind", "resources", "components", "patches", "images", "namespace"}
CLUSTER_SCOPED = {"Namespace", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "PriorityClass",
                  "StorageClass", "IngressClass", "PersistentVolume"}
# strategic-merge keys of the built-in list fields used in these manifests
MERGE_KEYS = {"containers": "name", "initContainers": "name", "env": "name", "envFrom": None, "volumes": "name",
              "volumeMounts": "mountPath", "imagePullSecrets": "name"}


class KustomizeError(Exception):
    pass


def load_documents(path: Path) -> list[dict]:
    with path.open() as f:
        docs = [d for d in yaml.safe_load_all(f) if d is not None]
    for d in docs:
        if not isinstance(d, dict) or "kind" not in d or "metadata" not in d:
            raise KustomizeError(f"{path}: not a Kubernetes object: {d!r}")
    return docs


def key(obj: dict) -> tuple[str, str]:
    return obj["kind"], obj["metadata"]["name"]


def is_builtin(api_version: str) -> bool:
    group = api_version.rpartition("/")[0]
    return "." not in group or group.endswith(".k8s.io")


def build(directory: str | Path) -> list[dict]:
    """Objects of the kustomization in `directory`, like `kustomize build directory`."""
    objects = _run(Path(directory), [], expect_kind="Kustomization")
    seen: set[tuple[str, str]] = set()
    for obj in objects:
        if key(obj) in seen:
            raise KustomizeError(f"duplicate object {key(obj)} in {directory}")
        seen.add(key(obj))
    return objects


def _load_kustomization(directory: Path, expect_kind: str) -> dict:
    path = directory / "kustomization.yaml"
    if not path.is_file():
        raise KustomizeError(f"no kustomization.yaml in {directory}")
    k = yaml.safe_load(path.read_text())
    unsupported = set(k) - SUPPORTED_FIELDS
    if unsupported:
        raise KustomizeError(f"{path}: fields not supported by the test resolver: {sorted(unsupported)}")
    if k.get("kind", "Kustomization") != expect_kind:
        raise KustomizeError(f"{path}: expected kind {expect_kind}, found {k.get('kind')}")
    return k


def _run(directory: Path, objects: list[dict], expect_kind: str) -> list[dict]:
    k = _load_kustomization(directory, expect_kind)
    objects = list(objects)
    for entry in k.get("resources", []):
        target = (directory / entry).resolve()
        if target.is_dir():
            objects += build(target)
        elif target.is_file():
            objects += load_documents(target)
        else:
            raise KustomizeError(f"{directory}: resource {entry} not found")
    for entry in k.get("components", []):
        objects = _run((directory / entry).resolve(), objects, expect_kind="Component")
    for entry in k.get("patches", []):
        objects = _apply_patch_entry(directory, entry, objects)
    for image in k.get("images", []):
        for obj in objects:
            _set_image(obj, image)
    if "namespace" in k:
        for obj in objects:
            if obj["kind"] == "Namespace":
                obj["metadata"]["name"] = k["namespace"]
            elif obj["kind"] not in CLUSTER_SCOPED:
                obj["metadata"]["namespace"] = k["namespace"]
    return objects


def _apply_patch_entry(directory: Path, entry: dict, objects: list[dict]) -> list[dict]:
    if set(entry) - {"path", "patch"} or len(entry) != 1:
        raise KustomizeError(f"{directory}: only `path` or inline `patch` entries are supported: {entry}")
    if "path" in entry:
        docs = load_documents(directory / entry["path"])
    else:
        docs = [d for d in yaml.safe_load_all(entry["patch"]) if d is not None]
    if len(docs) != 1:
        raise KustomizeError(f"{directory}: a patch entry must hold exactly one object: {entry}")
    patch = docs[0]
    matches = [i for i, obj in enumerate(objects) if key(obj) == key(patch)]
    if not matches:
        raise KustomizeError(f"{directory}: patch target {key(patch)} not found")
    result = list(objects)
    for i in reversed(matches):
        target = objects[i]
        if target["apiVersion"] != patch["apiVersion"]:
            raise KustomizeError(f"patch {key(patch)} has apiVersion {patch['apiVersion']}, "
                                 f"target has {target['apiVersion']}")
        if patch.get("$patch") == "delete":
            del result[i]
        else:
            result[i] = strategic_merge(target, patch, builtin=is_builtin(target["apiVersion"]))
    return result


def strategic_merge(target: Any, patch: Any, *, builtin: bool = True, field: str | None = None) -> Any:
    if isinstance(patch, dict):
        directive = patch.get("$patch")
        if directive not in (None, "replace"):
            raise KustomizeError(f"unsupported directive $patch: {directive}")
        clean = {k: v for k, v in patch.items() if k != "$patch"}
        if directive == "replace" or not isinstance(target, dict):
            return _strip_nulls(clean)
        out = copy.deepcopy(target)
        for k, v in clean.items():
            if v is None:
                out.pop(k, None)
            elif k in out:
                out[k] = strategic_merge(out[k], v, builtin=builtin, field=k)
            else:
                out[k] = _strip_nulls(copy.deepcopy(v))
        return out
    if isinstance(patch, list):
        merge_key = MERGE_KEYS.get(field or "") if builtin else None
        if merge_key and isinstance(target, list):
            out = copy.deepcopy(target)
            for item in patch:
                for j, existing in enumerate(out):
                    if existing.get(merge_key) == item.get(merge_key):
                        out[j] = strategic_merge(existing, item, builtin=builtin)
                        break
                else:
                    out.append(_strip_nulls(copy.deepcopy(item)))
            return out
        return copy.deepcopy(patch)
    return patch


def _strip_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_nulls(v) for k, v in value.items() if v is not None and k != "$patch"}
    if isinstance(value, list):
        return [_strip_nulls(v) for v in value]
    return value


def split_image(image: str) -> tuple[str, str | None, str | None]:
    """name, tag, digest of an image reference."""
    digest = None
    if "@" in image:
        image, digest = image.split("@", 1)
    name, tag = image, None
    if ":" in image.rsplit("/", 1)[-1]:
        name, tag = image.rsplit(":", 1)
    return name, tag, digest


def _containers(obj: Any):
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k in ("containers", "initContainers") and isinstance(v, list):
                yield from (c for c in v if isinstance(c, dict))
            else:
                yield from _containers(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _containers(v)


def _set_image(obj: dict, image: dict) -> None:
    for container in _containers(obj.get("spec", {})):
        name, tag, digest = split_image(container.get("image", ""))
        if name != image["name"]:
            continue
        new_name = image.get("newName", name)
        if "digest" in image:
            container["image"] = f"{new_name}@{image['digest']}"
            continue
        new_tag = str(image["newTag"]) if "newTag" in image else tag
        reference = new_name + (f":{new_tag}" if new_tag else "")
        if digest and "newTag" not in image:
            reference += f"@{digest}"
        container["image"] = reference
