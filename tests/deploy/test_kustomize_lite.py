"""The test resolver must behave like kustomize on the features k8s/ uses, and refuse everything else."""

from __future__ import annotations

import textwrap

import pytest

from tests.deploy.kustomize_lite import KustomizeError, build, split_image, strategic_merge

DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: app
          image: example/app:1.0
          env:
            - {name: A, value: "1"}
            - {name: B, value: "2"}
        - name: sidecar
          image: example/sidecar:2.0
"""


def write(root, files: dict[str, str]):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def test_overlay_patches_images_namespace(tmp_path):
    write(tmp_path, {
        "base/kustomization.yaml": "resources: [deploy.yaml]\nnamespace: shop\n",
        "base/deploy.yaml": DEPLOYMENT,
        "overlay/kustomization.yaml": """
            resources: [../base]
            images:
              - {name: example/app, newName: registry.local/app, newTag: "2.0"}
            patches:
              - path: replicas.yaml
        """,
        "overlay/replicas.yaml": """
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: web}
            spec:
              replicas: 5
              template:
                spec:
                  containers:
                    - name: app
                      env:
                        - {name: B, value: "20"}
                        - {name: C, value: "3"}
        """,
    })
    (deployment,) = build(tmp_path / "overlay")
    assert deployment["metadata"]["namespace"] == "shop"
    assert deployment["spec"]["replicas"] == 5
    app, sidecar = deployment["spec"]["template"]["spec"]["containers"]
    assert app["image"] == "registry.local/app:2.0" and sidecar["image"] == "example/sidecar:2.0"
    assert app["env"] == [{"name": "A", "value": "1"}, {"name": "B", "value": "20"}, {"name": "C", "value": "3"}]


def test_component_deletes_objects(tmp_path):
    write(tmp_path, {
        "base/kustomization.yaml": "resources: [deploy.yaml, svc.yaml]\n",
        "base/deploy.yaml": DEPLOYMENT,
        "base/svc.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {ports: [{port: 80}]}\n",
        "comp/kustomization.yaml": """
            apiVersion: kustomize.config.k8s.io/v1alpha1
            kind: Component
            patches:
              - patch: |-
                  $patch: delete
                  apiVersion: v1
                  kind: Service
                  metadata: {name: web}
        """,
        "overlay/kustomization.yaml": "resources: [../base]\ncomponents: [../comp]\n",
    })
    assert [o["kind"] for o in build(tmp_path / "overlay")] == ["Deployment"]


@pytest.mark.parametrize("kustomization, extra, message", [
    ("resources: [deploy.yaml]\npatches: [{path: p.yaml}]\n",
     {"p.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: other}\n"}, "not found"),
    ("resources: [deploy.yaml]\npatches: [{path: p.yaml}]\n",
     {"p.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n---\n"
                "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"}, "exactly one"),
    ("resources: [deploy.yaml]\npatches: [{path: p.yaml}]\n",
     {"p.yaml": "apiVersion: extensions/v1beta1\nkind: Deployment\nmetadata: {name: web}\n"}, "apiVersion"),
    ("resources: [deploy.yaml]\nnamePrefix: x-\n", {}, "not supported"),
    ("resources: [deploy.yaml, deploy.yaml]\n", {}, "duplicate"),
    ("resources: [missing.yaml]\n", {}, "not found"),
])
def test_refuses_what_kustomize_would_refuse_or_we_do_not_support(tmp_path, kustomization, extra, message):
    write(tmp_path, {"kustomization.yaml": kustomization, "deploy.yaml": DEPLOYMENT, **extra})
    with pytest.raises(KustomizeError, match=message):
        build(tmp_path)


def test_lists_without_merge_key_and_custom_resources_are_replaced():
    assert strategic_merge({"egress": [{"a": 1}, {"b": 2}]}, {"egress": [{"c": 3}]}) == {"egress": [{"c": 3}]}
    target = {"spec": {"containers": [{"name": "x", "image": "a"}]}}
    assert strategic_merge(target, {"spec": {"containers": [{"name": "x", "args": ["y"]}]}}, builtin=False) == \
        {"spec": {"containers": [{"name": "x", "args": ["y"]}]}}
    assert strategic_merge({"a": 1, "b": 2}, {"b": None}) == {"a": 1}


def test_split_image():
    assert split_image("stela:0.1.0") == ("stela", "0.1.0", None)
    assert split_image("localhost:5000/stela") == ("localhost:5000/stela", None, None)
    assert split_image("r.io/stela:1@sha256:ab") == ("r.io/stela", "1", "sha256:ab")
