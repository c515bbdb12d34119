#!/usr/bin/env bash
# check-compose.sh [--publish] [--kafka]: check docker-compose.yml and the files it uses, on
# machines without a Docker engine (the compose stack cannot be started here or in CI).
#
#   (always)   static checks: YAML, referenced files, ports, volumes, depends_on, healthchecks,
#              the ingest service's settings against what the server reads, the Dockerfile's COPY
#              list against .dockerignore and the project graph, and the OTel collector, Grafana
#              and Kafka settings against each other. With a Docker daemon, also
#              `docker compose config -q`.
#   --publish  emulate the Dockerfile's build stage in a temporary directory (only what it COPYs,
#              minus .dockerignore), run its `dotnet publish`, then start the published server with
#              the compose environment and probe the healthcheck URL. About a minute.
#   --kafka    render the kafka service's KAFKA_* environment into server.properties (service
#              names and ports mapped to free loopback ports), start that broker from $KAFKA_HOME,
#              and run the healthcheck command and a client over each advertised listener.
#
# Ends with "N passed, N failed"; exits 1 if any check failed.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

# PyYAML is a Debian package (python3-yaml); install it when we can, as the other scripts do.
# Debian's python3 is tried too: a python3 earlier on PATH (pyenv, a venv) may lack it.
find_python() {
  local py
  for py in python3 /usr/bin/python3; do
    if command -v "$py" >/dev/null && "$py" -c 'import yaml' 2>/dev/null; then echo "$py"; return; fi
  done
}
python="$(find_python)"
if [[ -z "$python" ]]; then
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    echo "check-compose.sh: installing python3 and python3-yaml"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq python3 python3-yaml >/dev/null
    python="$(find_python)"
  fi
  if [[ -z "$python" ]]; then
    echo "check-compose.sh: needs python3 with PyYAML (apt-get install python3-yaml)" >&2
    exit 1
  fi
fi

exec "$python" - "$@" <<'PY'
import base64, glob, json, os, re, shlex, shutil, signal, socket, subprocess, sys, tempfile, time
import urllib.error, urllib.request
import yaml

ROOT = os.getcwd()
COMPOSE = "docker-compose.yml"
ARGS = set(sys.argv[1:])
unknown = ARGS - {"--publish", "--kafka"}
if unknown:
    print(f"check-compose.sh: unknown argument(s) {' '.join(sorted(unknown))}", file=sys.stderr)
    sys.exit(2)

passed = failed = 0

# Ctrl-C or a time-out's SIGTERM still runs the finally blocks that stop what --publish and
# --kafka started.
def _interrupted(signum, _frame):
    raise SystemExit(128 + signum)
signal.signal(signal.SIGTERM, _interrupted)

def ok(msg):
    global passed
    passed += 1
    print(f"  ok    {msg}")

def fail(msg):
    global failed
    failed += 1
    print(f"  FAIL  {msg}")

def warn(msg):
    print(f"  warn  {msg}")

def skip(msg):
    print(f"  skip  {msg}")

def check(cond, good, bad):
    (ok if cond else fail)(good if cond else bad)
    return cond

def section(title):
    print(f"\n{title}")

# ---------------------------------------------------------------- YAML loading
class StrictLoader(yaml.SafeLoader):
    """Rejects duplicate keys, which PyYAML silently merges and docker compose refuses."""

def _mapping(loader, node, deep=False):
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)

StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)

def load_yaml(path):
    with open(path, encoding="utf-8") as f:
        return yaml.load(f, Loader=StrictLoader)

# Compose interpolation: ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?err}, $VAR, and $$.
INTERP = re.compile(r"\$(?:(\$)|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))")
unset_vars = set()

def interpolate(value):
    if isinstance(value, dict):
        return {k: interpolate(v) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v) for v in value]
    if not isinstance(value, str):
        return value
    def repl(m):
        if m.group(1):
            return "$"
        name = m.group(2) or m.group(5)
        op, arg = m.group(3), m.group(4) or ""
        val = os.environ.get(name)
        if op in (":-", "-"):
            return arg if (val is None or (op == ":-" and val == "")) else val
        if op in (":+", "+"):
            return arg if (val is not None and (op == "-" or val != "")) else ""
        if val is None and not op:
            unset_vars.add(name)
        return val or ""
    return INTERP.sub(repl, value)

# ---------------------------------------------------------------- helpers
def env_dict(service):
    env = service.get("environment") or {}
    if isinstance(env, list):
        out = {}
        for item in env:
            k, _, v = str(item).partition("=")
            out[k] = v
        return out
    return {k: ("" if v is None else v) for k, v in env.items()}

def mounts(service):
    """(kind, source, target) for each volume entry; kind is bind or volume."""
    out = []
    for v in service.get("volumes") or []:
        if isinstance(v, dict):
            out.append((v.get("type", "volume"), v.get("source"), v.get("target")))
            continue
        parts = str(v).split(":")
        if len(parts) == 1:
            out.append(("volume", None, parts[0]))
            continue
        src, target = parts[0], parts[1]
        kind = "bind" if src.startswith((".", "/", "~")) else "volume"
        out.append((kind, src, target))
    return out

def bind_source_for(service, container_path):
    """Repository path bind-mounted at container_path (or at a parent of it), else None."""
    best = None
    for kind, src, target in mounts(service):
        if kind != "bind" or not target:
            continue
        t = target.rstrip("/")
        if container_path == t or container_path.startswith(t + "/"):
            if best is None or len(t) > len(best[1]):
                best = (src, t)
    if best is None:
        return None
    src, t = best
    return os.path.normpath(os.path.join(ROOT, src, os.path.relpath(container_path, t)))

def published_ports(service):
    """[(host_ip, host_port, container_port, protocol)], host_port None when not published."""
    out = []
    for p in service.get("ports") or []:
        if isinstance(p, dict):
            out.append((p.get("host_ip", ""), int(p["published"]) if p.get("published") else None,
                        int(p["target"]), p.get("protocol", "tcp")))
            continue
        if isinstance(p, int):
            raise ValueError(f"port {p} is not a string (YAML 1.1 may read 'a:b' as base 60): quote it")
        spec, _, proto = str(p).partition("/")
        parts = spec.rsplit(":", 2) if spec.count(":") >= 2 else spec.split(":")
        if len(parts) == 3:
            ip, host, cont = parts
        elif len(parts) == 2:
            ip, (host, cont) = "", parts
        else:
            ip, host, cont = "", None, parts[0]
        def expand(r):
            if r is None:
                return [None]
            a, _, b = r.partition("-")
            return list(range(int(a), int(b or a) + 1))
        hosts, conts = expand(host), expand(cont)
        if hosts != [None] and len(hosts) != len(conts):
            raise ValueError(f"port range {p!r} maps ranges of different sizes")
        for i, c in enumerate(conts):
            out.append((ip, hosts[i] if hosts != [None] else None, c, proto or "tcp"))
    return out

def url_host_port(url):
    m = re.match(r"^[a-z]+://(\[[^\]]+\]|[^:/]*)(?::(\d+))?(/[^?#]*)?", url)
    if not m:
        return None, None, None
    default = 443 if url.startswith("https") else 80
    return m.group(1), int(m.group(2)) if m.group(2) else default, m.group(3) or "/"

def names_of(services, name):
    s = services[name]
    return {name, s.get("hostname"), s.get("container_name")} - {None}

def resolves_to_service(services, host):
    return next((n for n in services if host in names_of(services, n)), None)

# ---------------------------------------------------------------- compose file
section(f"{COMPOSE}: syntax and structure")
if not os.path.isfile(COMPOSE):
    fail(f"{COMPOSE} does not exist")
    print(f"\n{passed} passed, {failed} failed")
    sys.exit(1)
try:
    raw = load_yaml(COMPOSE)
    ok("valid YAML, no duplicate keys")
except yaml.YAMLError as e:
    fail(f"invalid YAML: {e}")
    print(f"\n{passed} passed, {failed} failed")
    sys.exit(1)
compose_text = open(COMPOSE, encoding="utf-8").read()
doc = interpolate(raw)
if unset_vars:
    warn(f"variables without a default, blank unless set: {', '.join(sorted(unset_vars))}")
else:
    ok("every ${VAR} has a default")

allowed_top = {"name", "services", "volumes", "networks", "configs", "secrets", "include"}
extra = [k for k in doc if k not in allowed_top and not str(k).startswith("x-")]
check(not extra, "top-level keys are compose keys", f"unknown top-level keys: {extra}")
if "version" in doc:
    warn("'version' is obsolete in the compose specification")
services = doc.get("services") or {}
check(bool(services), f"services: {', '.join(services)}", "no services")
declared_volumes = set((doc.get("volumes") or {}).keys())

section("images and builds")
for name, s in services.items():
    if "build" in s:
        b = s["build"] if isinstance(s["build"], dict) else {"context": s["build"]}
        ctx = os.path.join(ROOT, b.get("context", "."))
        dockerfile = os.path.join(ctx, b.get("dockerfile", "Dockerfile"))
        check(os.path.isdir(ctx), f"{name}: build context {b.get('context', '.')} exists",
              f"{name}: build context {b.get('context')} does not exist")
        check(os.path.isfile(dockerfile), f"{name}: Dockerfile {os.path.relpath(dockerfile, ROOT)} exists",
              f"{name}: Dockerfile {os.path.relpath(dockerfile, ROOT)} does not exist")
    elif "image" in s:
        image = s["image"]
        tag = image.rsplit("/", 1)[-1].partition(":")[2]
        check(tag and tag != "latest", f"{name}: image {image} has a pinned tag",
              f"{name}: image {image} should name a version, not latest or none")
    else:
        fail(f"{name}: neither image nor build")

section("files and volumes")
for name, s in services.items():
    for kind, src, target in mounts(s):
        if kind == "bind":
            path = os.path.normpath(os.path.join(ROOT, os.path.expanduser(src)))
            check(os.path.exists(path) and path.startswith(ROOT),
                  f"{name}: {src} -> {target} (in the repository)",
                  f"{name}: bind source {src} does not exist in the repository")
        elif src is not None:
            check(src in declared_volumes, f"{name}: named volume {src} -> {target}",
                  f"{name}: volume {src} is not declared under top-level volumes")
    for key in ("configs", "secrets"):
        for ref in s.get(key) or []:
            ref_name = ref if isinstance(ref, str) else ref.get("source")
            spec = (doc.get(key) or {}).get(ref_name)
            check(spec is not None, f"{name}: {key[:-1]} {ref_name} is declared",
                  f"{name}: {key[:-1]} {ref_name} is not declared")
    env_files = s.get("env_file") or []
    for ef in [env_files] if isinstance(env_files, str) else env_files:
        ef_path = ef if isinstance(ef, str) else ef.get("path")
        required = True if isinstance(ef, str) else ef.get("required", True)
        if required:
            check(os.path.isfile(os.path.join(ROOT, ef_path)), f"{name}: env_file {ef_path} exists",
                  f"{name}: env_file {ef_path} does not exist")
for key in ("configs", "secrets"):
    for cname, spec in (doc.get(key) or {}).items():
        if isinstance(spec, dict) and "file" in spec:
            check(os.path.isfile(os.path.join(ROOT, spec["file"])), f"{key} {cname}: {spec['file']} exists",
                  f"{key} {cname}: {spec['file']} does not exist")
used_volumes = {src for s in services.values() for kind, src, _ in mounts(s) if kind == "volume" and src}
unused = declared_volumes - used_volumes
check(not unused, "every declared volume is used", f"declared but unused volumes: {sorted(unused)}")

section("ports")
seen_ports = {}
for name, s in services.items():
    try:
        ports = published_ports(s)
    except (ValueError, KeyError) as e:
        fail(f"{name}: {e}")
        continue
    for ip, host, cont, proto in ports:
        if host is None:
            warn(f"{name}: container port {cont} published on a random host port")
            continue
        key = (host, proto)
        if key in seen_ports:
            fail(f"host port {host}/{proto} is published by both {seen_ports[key]} and {name}")
        else:
            seen_ports[key] = name
ok("host ports: " + ", ".join(f"{p} {n}" for (p, _), n in sorted(seen_ports.items())))

section("dependencies and healthchecks")
for name, s in services.items():
    hc = s.get("healthcheck")
    if hc and not hc.get("disable"):
        test = hc.get("test")
        good = isinstance(test, str) or (isinstance(test, list) and test and test[0] in ("CMD", "CMD-SHELL", "NONE"))
        check(good, f"{name}: healthcheck {' '.join(test) if isinstance(test, list) else test}",
              f"{name}: healthcheck test must be a string or a list starting with CMD, CMD-SHELL or NONE")
    deps = s.get("depends_on") or {}
    deps = {d: {"condition": "service_started"} for d in deps} if isinstance(deps, list) else deps
    for dep, spec in deps.items():
        if dep not in services:
            fail(f"{name}: depends on unknown service {dep}")
            continue
        cond = (spec or {}).get("condition", "service_started")
        if cond == "service_healthy":
            dhc = services[dep].get("healthcheck")
            check(bool(dhc) and not dhc.get("disable"), f"{name}: waits for {dep} to be healthy (it has a healthcheck)",
                  f"{name}: waits for {dep} to be healthy, but {dep} has no healthcheck")
        else:
            ok(f"{name}: depends on {dep} ({cond})")
    for key, val in env_dict(s).items():
        if isinstance(val, bool):
            fail(f"{name}: environment {key} is a YAML boolean; quote it")

# ---------------------------------------------------------------- ingest service
server_dir = "services/Ingest.Server"
ingest = services.get("ingest")
ingest_port = None
section("ingest: settings the server reads")
if ingest is None:
    fail("no ingest service")
else:
    env = env_dict(ingest)
    opts_file = os.path.join(server_dir, "Hosting", "IngestOptions.cs")
    props = []
    if os.path.isfile(opts_file):
        src = open(opts_file, encoding="utf-8").read()
        props = re.findall(r"public\s+[\w<>?,.\[\] ]+?\s+(\w+)\s*\{\s*get;", src)
        ok(f"IngestOptions properties: {', '.join(props)}")
        # Sections bound by other options classes (Ingest:Batching, Ingest:Sources, ...).
        for f in glob.glob(f"{server_dir}/**/*.cs", recursive=True):
            cs = open(f, encoding="utf-8").read()
            props += re.findall(r'SectionName\s*=\s*"Ingest:(\w+)"', cs)
            # Options bound at "Ingest" itself (Ingest:Indexes, the configured indexes): their properties are sections.
            if re.search(r'SectionName\s*=\s*"Ingest"', cs):
                props += re.findall(r"public\s+[\w<>?,.\[\] ]+?\s+(\w+)\s*\{\s*get;", cs)
        ok(f"Ingest sections: {', '.join(props)}")
    else:
        fail(f"{opts_file} not found: cannot tell which Ingest__ settings exist")
    def is_read(key):
        k = key.lower()
        if k in ("urls",) or k.startswith("otel_"):
            return True
        if k.startswith(("aspnetcore_", "dotnet_", "logging__")):
            return True  # read by ASP.NET Core and the logging configuration themselves
        parts = k.split("__")
        return len(parts) >= 2 and parts[0] == "ingest" and parts[1] in {p.lower() for p in props}
    for key in env:
        check(is_read(key), f"ingest: {key} is read by the server", f"ingest: {key} is not a setting the server reads")
    for key in ("Urls", "Ingest__DataDirectory", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_SERVICE_NAME"):
        check(key in env, f"ingest: {key} is set", f"ingest: {key} is not set")
    for key, val in re.findall(r"^\s*#\s*(Ingest__\w+)\s*[:=]\s*(\S+)", compose_text, re.M):
        if is_read(key):
            ok(f"ingest: {key} is read by the server (optional, commented out)")
        else:
            ok(f"ingest: {key} ({val}) is commented out until the server reads it")

    urls = env.get("Urls", "")
    host, ingest_port, _ = url_host_port(urls.split(";")[0])
    check(host in ("0.0.0.0", "*", "+", "[::]"), f"ingest: Urls {urls} listens on all interfaces",
          f"ingest: Urls {urls} is not reachable from other containers")
    cports = {c for _, _, c, _ in published_ports(ingest)}
    check(ingest_port in cports, f"ingest: container port {ingest_port} is published",
          f"ingest: Urls port {ingest_port} is not among published container ports {sorted(cports)}")
    data_dir = env.get("Ingest__DataDirectory")
    targets = {t for kind, _, t in mounts(ingest) if kind == "volume"}
    check(data_dir in targets, f"ingest: a named volume holds Ingest__DataDirectory {data_dir}",
          f"ingest: Ingest__DataDirectory {data_dir} is not on a named volume (data lost on re-create)")

    test = (ingest.get("healthcheck") or {}).get("test") or []
    test_s = " ".join(test) if isinstance(test, list) else str(test)
    m = re.search(r"https?://[^\s\"']+", test_s)
    if m:
        h, p, path = url_host_port(m.group(0))
        check(h in ("localhost", "127.0.0.1") and p == ingest_port, f"ingest: healthcheck targets its own port {p}",
              f"ingest: healthcheck URL {m.group(0)} does not match Urls port {ingest_port}")
        code = "\n".join(open(f, encoding="utf-8").read() for f in glob.glob(f"{server_dir}/**/*.cs", recursive=True))
        check(re.search(r'Map(?:Get)?\(\s*"' + re.escape(path) + r'"', code) is not None,
              f"ingest: healthcheck path {path} is mapped by the server",
              f"ingest: healthcheck path {path} is not mapped in {server_dir}")
        tool = test[1] if isinstance(test, list) and test[0] == "CMD" else test_s.split()[0]
        b = ingest.get("build") or {}
        b = b if isinstance(b, dict) else {"context": b}
        df = os.path.join(ROOT, b.get("context", "."), b.get("dockerfile", "Dockerfile"))
        final = open(df, encoding="utf-8").read().split("\nFROM ")[-1] if os.path.isfile(df) else ""
        check(re.search(r"apt-get install[^\n]*(?:\\\n[^\n]*)*\b" + re.escape(tool) + r"\b", final) is not None,
              f"ingest: healthcheck tool {tool} is installed in the final image stage",
              f"ingest: healthcheck uses {tool}, which the final image stage does not install")
    else:
        fail("ingest: healthcheck has no URL")

# ---------------------------------------------------------------- Dockerfile
section("Dockerfile: build context and COPY list")

def dockerfile_instructions(path):
    lines, cur = [], ""
    for line in open(path, encoding="utf-8").read().splitlines():
        stripped = line.strip()
        if stripped.startswith("#") or (not stripped and cur):
            continue
        if stripped.endswith("\\"):
            cur += stripped[:-1] + " "
            continue
        cur += stripped
        if cur.strip():
            word, _, rest = cur.strip().partition(" ")
            lines.append((word.upper(), rest.strip()))
        cur = ""
    return lines

def dockerignore_rules(path):
    rules = []
    if not os.path.isfile(path):
        return rules
    for line in open(path, encoding="utf-8").read().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        neg = line.startswith("!")
        pat = os.path.normpath(line[1:] if neg else line).lstrip("/")
        rx, i = "", 0
        while i < len(pat):
            if pat.startswith("**/", i):
                rx, i = rx + "(?:.*/)?", i + 3
            elif pat.startswith("**", i):
                rx, i = rx + ".*", i + 2
            elif pat[i] == "*":
                rx, i = rx + "[^/]*", i + 1
            elif pat[i] == "?":
                rx, i = rx + "[^/]", i + 1
            else:
                rx, i = rx + re.escape(pat[i]), i + 1
        rules.append((neg, re.compile("^" + rx + "(?:/.*)?$")))  # a matched directory takes its contents
    return rules

def ignored(rules, rel):
    result = False
    for neg, rx in rules:
        if rx.match(rel):
            result = not neg
    return result

def copied_files(ctx, rules, src):
    """Context-relative files that `COPY src` sends, after .dockerignore."""
    out = []
    for match in sorted(glob.glob(os.path.join(ctx, src))) or []:
        if os.path.isdir(match):
            for dirpath, _, files in os.walk(match):
                for f in files:
                    rel = os.path.relpath(os.path.join(dirpath, f), ctx)
                    if not ignored(rules, rel):
                        out.append(rel)
        else:
            rel = os.path.relpath(match, ctx)
            if not ignored(rules, rel):
                out.append(rel)
    return out

def project_closure(csproj):
    seen, todo = [], [os.path.normpath(csproj)]
    while todo:
        p = todo.pop()
        if p in seen or not os.path.isfile(p):
            if p not in seen:
                seen.append(p)
            continue
        seen.append(p)
        for ref in re.findall(r'<ProjectReference\s+Include="([^"]+)"', open(p, encoding="utf-8").read()):
            todo.append(os.path.normpath(os.path.join(os.path.dirname(p), ref.replace("\\", "/"))))
    return seen

build = (ingest or {}).get("build") or {}
build = build if isinstance(build, dict) else {"context": build}
ctx = os.path.normpath(os.path.join(ROOT, build.get("context", ".")))
dockerfile = os.path.join(ctx, build.get("dockerfile", "Dockerfile"))
emulation = None  # what --publish needs: [(src, dest)], publish RUN, final ENV, entrypoint dll
if not os.path.isfile(dockerfile):
    fail(f"{os.path.relpath(dockerfile, ROOT)} does not exist")
else:
    instrs = dockerfile_instructions(dockerfile)
    rules = dockerignore_rules(os.path.join(ctx, ".dockerignore"))
    check(bool(rules), f".dockerignore has {len(rules)} patterns", ".dockerignore is missing or empty")
    stages = [i for i, (w, _) in enumerate(instrs) if w == "FROM"]
    check(len(stages) >= 2, f"multi-stage: {', '.join(instrs[i][1] for i in stages)}", "expected a build and a final stage")
    build_stage = instrs[stages[0]:stages[1]] if len(stages) >= 2 else instrs
    final_stage = instrs[stages[-1]:]
    copies, sent = [], set()
    for word, rest in build_stage:
        if word not in ("COPY", "ADD"):
            continue
        tokens = json.loads(rest) if rest.startswith("[") else shlex.split(rest)
        flags = [t for t in tokens if t.startswith("--")]
        args = [t for t in tokens if not t.startswith("--")]
        if any(f.startswith("--from") for f in flags):
            continue
        srcs, dest = args[:-1], args[-1]
        for src in srcs:
            files = copied_files(ctx, rules, src)
            if check(bool(files), f"COPY {src}: {len(files)} file(s) sent", f"COPY {src}: nothing in the context (missing or excluded by .dockerignore)"):
                sent.update(files)
            mirrored = (dest in ("./", ".") and "/" not in src.rstrip("/")) or dest.rstrip("/") == src.rstrip("/") \
                or (dest.endswith("/") and os.path.dirname(src.rstrip("/")) == dest.rstrip("/"))
            if not mirrored:
                warn(f"COPY {src} {dest} does not mirror the repository layout; --publish assumes it does")
            copies.append((src, dest))
    for f in sorted(os.listdir(ctx)):
        if re.fullmatch(r"(?i)(Directory\..+\.(props|targets)|global\.json|nuget\.config)", f):
            check(f in sent, f"build input {f} is copied", f"build input {f} is not copied into the build stage")
    publish = next((rest for w, rest in build_stage if w == "RUN" and "dotnet publish" in rest), None)
    main_proj = None
    if check(publish is not None, "build stage runs dotnet publish", "build stage has no dotnet publish"):
        m = re.search(r"dotnet publish\s+(\S+)", publish)
        main_proj = m.group(1) if m else None
        if main_proj and not main_proj.endswith("proj"):
            found = glob.glob(os.path.join(ctx, main_proj, "*.csproj"))
            main_proj = os.path.relpath(found[0], ctx) if found else main_proj
    if main_proj:
        for proj in project_closure(os.path.join(ctx, main_proj)):
            rel = os.path.relpath(proj, ctx)
            in_context = copied_files(ctx, rules, os.path.dirname(rel))
            missing = [f for f in in_context if f not in sent]
            check(rel in sent and not missing, f"project {rel}: all {len(in_context)} file(s) copied",
                  f"project {rel} (referenced by {main_proj}): not copied: {(missing or [rel])[:5]}")
    entry = next((rest for w, rest in final_stage if w == "ENTRYPOINT"), "")
    entry_args = json.loads(entry) if entry.startswith("[") else entry.split()
    dll = next((a for a in entry_args if a.endswith(".dll")), None)
    if main_proj:
        proj_text = open(os.path.join(ctx, main_proj), encoding="utf-8").read()
        m = re.search(r"<AssemblyName>([^<]+)</AssemblyName>", proj_text)
        assembly = (m.group(1) if m else os.path.splitext(os.path.basename(main_proj))[0]) + ".dll"
        check(dll == assembly, f"ENTRYPOINT runs {assembly}", f"ENTRYPOINT runs {dll}, the project builds {assembly}")
    final_env = {}
    for w, rest in final_stage:
        if w == "ENV":
            for tok in shlex.split(rest):
                k, _, v = tok.partition("=")
                final_env[k] = v
    exposed = {int(p.split("/")[0]) for w, rest in final_stage if w == "EXPOSE" for p in rest.split()}
    img_port = url_host_port(final_env.get("Urls", "http://0.0.0.0:0"))[1]
    check(img_port in exposed and (ingest_port is None or img_port == ingest_port),
          f"image listens on and exposes {img_port}, as compose expects",
          f"image Urls port {img_port}, EXPOSE {sorted(exposed)} and compose port {ingest_port} disagree")
    vols = {v for w, rest in final_stage if w == "VOLUME" for v in (json.loads(rest) if rest.startswith("[") else rest.split())}
    check(final_env.get("Ingest__DataDirectory") in vols, f"image VOLUME {sorted(vols)} holds its data directory",
          f"image data directory {final_env.get('Ingest__DataDirectory')} is not a VOLUME")
    emulation = {"copies": copies, "publish": publish, "env": final_env, "dll": dll}

# ---------------------------------------------------------------- OpenTelemetry collector
section("otel-collector")
collector = services.get("otel-collector")
if collector is None:
    fail("no otel-collector service")
else:
    cmd = collector.get("command") or []
    cmd = cmd if isinstance(cmd, list) else shlex.split(cmd)
    cfg_path = next((c.split("=", 1)[1] for c in cmd if c.startswith("--config=")), "/etc/otelcol-contrib/config.yaml")
    src = bind_source_for(collector, cfg_path)
    if check(src is not None and os.path.isfile(src), f"config {cfg_path} comes from {os.path.relpath(src, ROOT) if src else '?'}",
             f"config {cfg_path} is not bind-mounted from a file in the repository"):
        cfg = load_yaml(src)
        ok(f"{os.path.relpath(src, ROOT)} is valid YAML")
        svc = cfg.get("service") or {}
        for kind in ("receivers", "processors", "exporters"):
            defined = set((cfg.get(kind) or {}).keys())
            for pname, pipe in (svc.get("pipelines") or {}).items():
                missing = [c for c in pipe.get(kind) or [] if c not in defined]
                check(not missing, f"pipeline {pname}: {kind} {', '.join(pipe.get(kind) or []) or '-'} are defined",
                      f"pipeline {pname}: {kind} {missing} are not defined")
        missing = [e for e in svc.get("extensions") or [] if e not in (cfg.get("extensions") or {})]
        check(not missing, "service extensions are defined", f"service extensions {missing} are not defined")
        check({"traces", "metrics"} <= set((svc.get("pipelines") or {}).keys()), "traces and metrics pipelines exist",
              "a traces and a metrics pipeline are expected")
        endpoints = {}
        def collect(node, path):
            if isinstance(node, dict):
                for k, v in node.items():
                    if k == "endpoint" and isinstance(v, str):
                        endpoints[path] = v
                    collect(v, f"{path}.{k}" if path else k)
        collect({k: cfg.get(k) for k in ("receivers", "exporters", "extensions")}, "")
        listen_ports = {}
        for where, ep in endpoints.items():
            host, _, port = ep.rpartition(":")
            if port.isdigit():
                listen_ports[int(port)] = where
                check(host in ("0.0.0.0", "", "[::]"), f"{where} listens on {ep}",
                      f"{where} listens on {ep}, unreachable from other containers and the host")
        for _, host, cont, _ in published_ports(collector):
            check(cont in listen_ports, f"published port {cont} is {listen_ports.get(cont)}",
                  f"published port {cont} is not an endpoint in the collector config")
        if ingest is not None:
            env = env_dict(ingest)
            ep = env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "")
            h, p, _ = url_host_port(ep)
            proto = env.get("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
            want = "grpc" if proto == "grpc" else "http"
            rport = next((int(v.rpartition(":")[2]) for k, v in endpoints.items() if k == f"receivers.otlp.protocols.{want}"), None)
            check(resolves_to_service(services, h) == "otel-collector" and p == rport,
                  f"ingest exports OTLP/{want} to otel-collector:{p}, where the collector receives it",
                  f"ingest OTEL_EXPORTER_OTLP_ENDPOINT {ep} does not reach the collector's OTLP/{want} receiver ({rport})")

# ---------------------------------------------------------------- Grafana
section("grafana")
grafana = services.get("grafana")
CORE_TYPES = {"prometheus", "loki", "tempo", "jaeger", "zipkin", "elasticsearch", "influxdb", "graphite",
              "mysql", "postgres", "grafana-postgresql-datasource", "mssql", "cloudwatch", "testdata",
              "grafana-testdata-datasource", "alertmanager", "grafana"}
if grafana is None:
    fail("no grafana service")
else:
    genv = env_dict(grafana)
    plugins = set()
    for spec in str(genv.get("GF_INSTALL_PLUGINS", "")).split(","):
        spec = spec.strip()
        if spec:
            plugins.add(spec.split(";")[-1].split()[0])
    image = grafana.get("image", "")
    if "simpod-json-datasource" in plugins:
        tag = image.rpartition(":")[2]
        check(tag.split(".")[0] in ("10", "11"), f"image {image}: simpod-json-datasource supports it",
              f"image {image}: simpod-json-datasource supports Grafana 10 and 11 only")
    prov = bind_source_for(grafana, "/etc/grafana/provisioning")
    ds_uids = set()
    if check(prov is not None and os.path.isdir(prov), f"provisioning comes from {os.path.relpath(prov, ROOT) if prov else '?'}",
             "/etc/grafana/provisioning is not bind-mounted from the repository"):
        env_ref = re.compile(r"\$(?:\{(\w+)\}|(\w+))")
        ds_types = {}
        server_routes = set()
        for cs in glob.glob(os.path.join(ROOT, "services", "Ingest.Server", "**", "*.cs"), recursive=True):
            text = open(cs, encoding="utf-8").read()
            group = re.search(r'MapGroup\("([^"]+)"\)', text)
            for m in re.finditer(r'\b(grafana|endpoints)\.Map(?:Get|Post|Put|Delete)\("([^"]*)"', text):
                prefix = group.group(1) if m.group(1) == "grafana" and group else ""
                server_routes.add((prefix + m.group(2)).rstrip("/") or "/")

        def check_api_key_header(ds):
            """A data source that sends a header sends the one the server reads, with a value from the environment."""
            jd, secure = ds.get("jsonData") or {}, ds.get("secureJsonData") or {}
            names = {k[len("httpHeaderName"):]: v for k, v in jd.items() if k.startswith("httpHeaderName")}
            check(any(v == "X-Api-Key" and secure.get(f"httpHeaderValue{i}") for i, v in names.items()),
                  f"data source {ds.get('name')}: sends X-Api-Key (httpHeaderName/httpHeaderValue pair)",
                  f"data source {ds.get('name')}: does not send the API key as X-Api-Key with a secureJsonData value")

        def route_of(url):
            path = str(url).split("?", 1)[0].rstrip("/") or "/"
            return any(re.fullmatch(re.sub(r"\\\{[^}]*\\\}", "[^/]+", re.escape(r)), path) for r in server_routes)
        for f in sorted(glob.glob(os.path.join(prov, "datasources", "*.y*ml"))):
            rel = os.path.relpath(f, ROOT)
            d = load_yaml(f)
            ok(f"{rel} is valid YAML")
            for ds in d.get("datasources") or []:
                uid, typ = ds.get("uid"), ds.get("type")
                check(uid and uid not in ds_uids, f"data source {ds.get('name')}: uid {uid}", f"data source {ds.get('name')}: missing or duplicate uid")
                ds_uids.add(uid)
                ds_types[uid] = typ
                if resolves_to_service(services, url_host_port(ds.get("url", ""))[0]) == "ingest":
                    check_api_key_header(ds)
                if typ == "yesoreyeram-infinity-datasource":
                    allowed = (ds.get("jsonData") or {}).get("allowedHosts") or []
                    base = str(ds.get("url", "")).rstrip("/")
                    check(base and base in [str(a).rstrip("/") for a in allowed],
                          f"data source {ds.get('name')}: Infinity may call its base URL {base} (allowedHosts)",
                          f"data source {ds.get('name')}: Infinity's allowedHosts {allowed} lack its url {base}; panels would be refused")
                check(typ in plugins or typ in CORE_TYPES, f"data source {ds.get('name')}: type {typ} is installed",
                      f"data source {ds.get('name')}: type {typ} is neither built in nor in GF_INSTALL_PLUGINS")
                h, p, _ = url_host_port(ds.get("url", ""))
                target = resolves_to_service(services, h)
                if target:
                    want = ingest_port if target == "ingest" else None
                    check(want is None or p == want, f"data source {ds.get('name')}: {ds.get('url')} is {target}'s port",
                          f"data source {ds.get('name')}: {ds.get('url')} does not match {target}'s port {want}")
                else:
                    warn(f"data source {ds.get('name')}: {ds.get('url')} is not a compose service")
            for a, b in env_ref.findall(open(f, encoding="utf-8").read()):
                var = a or b
                check(var in genv, f"{rel}: ${{{var}}} is in grafana's environment",
                      f"{rel}: ${{{var}}} is not in grafana's environment")
        dash_uids = set()
        for f in sorted(glob.glob(os.path.join(prov, "dashboards", "*.y*ml"))):
            rel = os.path.relpath(f, ROOT)
            d = load_yaml(f)
            ok(f"{rel} is valid YAML")
            for p in d.get("providers") or []:
                path = (p.get("options") or {}).get("path", "")
                src = bind_source_for(grafana, path)
                if not check(src is not None and os.path.isdir(src), f"provider {p.get('name')}: {path} is mounted from {os.path.relpath(src, ROOT) if src else '?'}",
                             f"provider {p.get('name')}: {path} is not bind-mounted from a repository directory"):
                    continue
                files = sorted(glob.glob(os.path.join(src, "**", "*.json"), recursive=True))
                check(bool(files), f"provider {p.get('name')}: {len(files)} dashboard(s)", f"provider {p.get('name')}: no dashboards in {src}")
                for jf in files:
                    jrel = os.path.relpath(jf, ROOT)
                    try:
                        dash = json.load(open(jf, encoding="utf-8"))
                    except ValueError as e:
                        fail(f"{jrel}: invalid JSON: {e}")
                        continue
                    uid = dash.get("uid")
                    check(uid and uid not in dash_uids, f"{jrel}: uid {uid}", f"{jrel}: missing or duplicate uid")
                    dash_uids.add(uid)
                    refs = set()
                    def walk(node):
                        if isinstance(node, dict):
                            ds = node.get("datasource")
                            if isinstance(ds, dict) and ds.get("uid"):
                                refs.add(ds["uid"])
                            for v in node.values():
                                walk(v)
                        elif isinstance(node, list):
                            for v in node:
                                walk(v)
                    walk(dash.get("panels") or [])
                    bad = {r for r in refs if r not in ds_uids and not r.startswith("$")}
                    check(not bad, f"{jrel}: data sources {sorted(refs)} are provisioned",
                          f"{jrel}: data source uids {sorted(bad)} are not provisioned")
                    # Each panel target: its data source type matches the provisioned one; an Infinity URL is a
                    # path the server maps; a JSON data source target has query text.
                    def targets(panels):
                        for panel in panels:
                            yield from ((panel, t) for t in panel.get("targets") or [])
                            yield from targets(panel.get("panels") or [])
                    for panel, t in targets(dash.get("panels") or []):
                        ds = t.get("datasource") or panel.get("datasource") or {}
                        uid, typ = ds.get("uid"), ds.get("type")
                        where = f"{jrel}: panel '{panel.get('title')}' {t.get('refId')}"
                        if uid in ds_types:
                            check(typ == ds_types[uid], f"{where}: data source type {typ}",
                                  f"{where}: says type {typ} but {uid} is {ds_types[uid]}")
                        if typ == "yesoreyeram-infinity-datasource":
                            url = t.get("url", "")
                            check(url.startswith("/") and route_of(url), f"{where}: Infinity URL {url} is a server route",
                                  f"{where}: Infinity URL {url!r} is not a path the server maps (relative to the data source URL)")
                        elif typ == "simpod-json-datasource":
                            check(bool(str(t.get("target", "")).strip()), f"{where}: has a target",
                                  f"{where}: has no target (query text, saved query or collection)")

# ---------------------------------------------------------------- Prometheus and the demo producer
section("prometheus")
prometheus = services.get("prometheus")
if prometheus is None:
    fail("no prometheus service")
else:
    pconf = bind_source_for(prometheus, "/etc/prometheus/prometheus.yml")
    if check(pconf is not None and os.path.isfile(pconf), f"prometheus.yml comes from {os.path.relpath(pconf, ROOT) if pconf else '?'}",
             "/etc/prometheus/prometheus.yml is not bind-mounted from a repository file"):
        pc = load_yaml(pconf)
        targets = [(job.get("job_name"), job.get("metrics_path", "/metrics"), t)
                   for job in pc.get("scrape_configs") or [] for sc in job.get("static_configs") or [] for t in sc.get("targets") or []]
        scraped = False
        for job, path, target in targets:
            h, _, port = target.rpartition(":")
            if resolves_to_service(services, h) == "ingest":
                scraped = True
                check(ingest_port is None or int(port) == ingest_port, f"job {job} scrapes ingest on its port {port}",
                      f"job {job} scrapes ingest on {port}, not its port {ingest_port}")
                check(path == "/metrics", f"job {job} scrapes {path}, the server's scrape endpoint", f"job {job} scrapes {path}, not /metrics")
        check(scraped, "Prometheus scrapes the ingest service", "no scrape job targets the ingest service")
demo = services.get("demo-producer")
if demo is not None:
    check("demo" in (demo.get("profiles") or []), "demo-producer only runs with --profile demo", "demo-producer has no demo profile")
    script = bind_source_for(demo, "/demo/produce-orders.sh")
    check(script is not None and os.path.isfile(script), "the demo producer's script is in the repository",
          "/demo/produce-orders.sh is not bind-mounted from a repository file")

# ---------------------------------------------------------------- Kafka and RabbitMQ
section("kafka")
kafka = services.get("kafka")
kafka_listeners = {}
if kafka is None:
    fail("no kafka service")
else:
    kenv = {k: str(v) for k, v in env_dict(kafka).items()}
    def listener_map(value):
        out = {}
        for item in filter(None, (x.strip() for x in value.split(","))):
            m = re.match(r"^([A-Za-z0-9_]+)://(\[[^\]]*\]|[^:]*):(\d+)$", item)
            if m:
                out[m.group(1)] = (m.group(2), int(m.group(3)))
            else:
                fail(f"listener {item!r} is not NAME://host:port")
        return out
    listeners = listener_map(kenv.get("KAFKA_LISTENERS", ""))
    advertised = listener_map(kenv.get("KAFKA_ADVERTISED_LISTENERS", ""))
    kafka_listeners = advertised
    protomap = dict(x.split(":", 1) for x in kenv.get("KAFKA_LISTENER_SECURITY_PROTOCOL_MAP", "").split(",") if ":" in x)
    roles = set(kenv.get("KAFKA_PROCESS_ROLES", "").split(","))
    check(roles == {"broker", "controller"}, "KRaft: one node is broker and controller", f"KAFKA_PROCESS_ROLES is {roles}")
    for n in listeners:
        check(n in protomap, f"listener {n} has a security protocol ({protomap.get(n)})", f"listener {n} is not in KAFKA_LISTENER_SECURITY_PROTOCOL_MAP")
    for n in advertised:
        check(n in listeners, f"advertised listener {n} is a listener", f"advertised listener {n} is not in KAFKA_LISTENERS")
    controller = kenv.get("KAFKA_CONTROLLER_LISTENER_NAMES", "")
    check(controller in listeners and controller not in advertised, f"controller listener {controller} is separate",
          f"KAFKA_CONTROLLER_LISTENER_NAMES {controller} must be a listener and not advertised")
    inter = kenv.get("KAFKA_INTER_BROKER_LISTENER_NAME", "")
    check(inter in advertised, f"inter-broker listener {inter} is advertised", f"inter-broker listener {inter} is not advertised")
    kports = published_ports(kafka)
    for n, (host, port) in advertised.items():
        lport = listeners.get(n, (None, None))[1]
        if host in ("localhost", "127.0.0.1"):
            check(any(h == port and c == lport for _, h, c, _ in kports),
                  f"{n} advertises {host}:{port}, published to container port {lport}",
                  f"{n} advertises {host}:{port}, but host port {port} is not published to its container port {lport}")
        else:
            check(resolves_to_service(services, host) == "kafka" and port == lport,
                  f"{n} advertises {host}:{port}, the service's own name and port",
                  f"{n} advertises {host}:{port}, which is not this service's name and listener port")
    for voter in kenv.get("KAFKA_CONTROLLER_QUORUM_VOTERS", "").split(","):
        m = re.match(r"^(\d+)@([^:]+):(\d+)$", voter)
        good = bool(m) and m.group(1) == kenv.get("KAFKA_NODE_ID") and resolves_to_service(services, m.group(2)) == "kafka" \
            and int(m.group(3)) == listeners.get(controller, (None, None))[1]
        check(good, f"quorum voter {voter} is this node's controller listener", f"quorum voter {voter} does not match node id, service name and controller port")
    cid = kenv.get("CLUSTER_ID", "")
    try:
        good = len(base64.urlsafe_b64decode(cid + "==")) == 16 and len(cid) == 22
    except ValueError:
        good = False
    check(good, "CLUSTER_ID is a base64url UUID", f"CLUSTER_ID {cid!r} is not a 22-character base64url UUID (kafka-storage.sh random-uuid)")
    rf = {k: v for k, v in kenv.items() if k.endswith(("_REPLICATION_FACTOR", "_MIN_ISR"))}
    check(rf and all(v == "1" for v in rf.values()), f"replication factors and min ISR are 1 ({len(rf)} settings)",
          f"a single broker needs replication factors and min ISR of 1: {rf}")
    log_dirs = kenv.get("KAFKA_LOG_DIRS", "")
    check(log_dirs in {t for kind, _, t in mounts(kafka) if kind == "volume"}, f"KAFKA_LOG_DIRS {log_dirs} is a named volume",
          f"KAFKA_LOG_DIRS {log_dirs} is not on a named volume")
    for val in re.findall(r"Ingest__Kafka__BootstrapServers\s*[:=]\s*(\S+)", compose_text):
        for hp in val.split(","):
            h, _, p = hp.rpartition(":")
            check(any(h == ah and p.isdigit() and int(p) == ap for ah, ap in advertised.values()),
                  f"Ingest__Kafka__BootstrapServers {hp} is an advertised listener",
                  f"Ingest__Kafka__BootstrapServers {hp} is not an advertised listener")

section("rabbitmq")
rabbit = services.get("rabbitmq")
if rabbit is None:
    fail("no rabbitmq service")
else:
    check(bool(rabbit.get("hostname")), f"hostname {rabbit.get('hostname')} fixes the node name its data is stored under",
          "no fixed hostname: the node name, and so the data directory, changes with each container")
    check(any(t == "/var/lib/rabbitmq" for kind, _, t in mounts(rabbit) if kind == "volume"), "/var/lib/rabbitmq is a named volume",
          "/var/lib/rabbitmq is not on a named volume")
    rports = {c for _, _, c, _ in published_ports(rabbit)}
    for val in re.findall(r"Ingest__RabbitMq__Uri\s*[:=]\s*(\S+)", compose_text):
        m = re.match(r"^amqps?://(?:[^@/]*@)?([^:/]+)(?::(\d+))?", val)
        h, p = (m.group(1), int(m.group(2) or (5671 if val.startswith("amqps") else 5672))) if m else (None, None)
        check(resolves_to_service(services, h) == "rabbitmq" and p in rports,
              f"Ingest__RabbitMq__Uri reaches rabbitmq:{p}", f"Ingest__RabbitMq__Uri {val} does not reach the rabbitmq service")

# ---------------------------------------------------------------- docker compose config
section("docker compose config")
def runs(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False
if not runs(["docker", "compose", "version"]):
    skip("docker compose is not installed")
elif not runs(["docker", "info"]):
    skip("no Docker daemon answers")
else:
    r = subprocess.run(["docker", "compose", "config", "-q"], capture_output=True, text=True)
    check(r.returncode == 0, "docker compose config -q", f"docker compose config -q: {r.stderr.strip()}")

# ---------------------------------------------------------------- --publish
def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

def http_get(url, timeout=3):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")
    except (urllib.error.URLError, OSError):
        return None, ""

def stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode

if "--publish" in ARGS:
    section("--publish: the Dockerfile's build stage, emulated without Docker")
    if emulation is None or not emulation["publish"]:
        fail("nothing to emulate (see the Dockerfile checks above)")
    else:
        work = tempfile.mkdtemp(prefix="ingest-image-")
        try:
            src_dir, app_dir = os.path.join(work, "src"), os.path.join(work, "app")
            for src, dest in emulation["copies"]:
                for rel in copied_files(ctx, rules, src):
                    target = os.path.join(src_dir, rel)
                    os.makedirs(os.path.dirname(target), exist_ok=True)
                    shutil.copy2(os.path.join(ctx, rel), target)
            ok(f"copied the build stage's COPY list into {src_dir}")
            m = re.search(r"(dotnet publish .*?)(?:&&|$)", emulation["publish"])
            cmd = m.group(1).strip()
            cmd = re.sub(r"(-o\s+)/app\b", lambda mm: mm.group(1) + app_dir, cmd)
            print(f"        $ {cmd}")
            r = subprocess.run(cmd, shell=True, cwd=src_dir, capture_output=True, text=True)
            if not check(r.returncode == 0, "dotnet publish succeeds from the copied files alone",
                         "dotnet publish failed:\n" + "\n".join(r.stdout.splitlines()[-25:])):
                raise RuntimeError("publish failed")
            dll = os.path.join(app_dir, emulation["dll"])
            check(os.path.isfile(dll), f"{emulation['dll']} is published", f"{emulation['dll']} is not in the publish output")
            # Confluent.Kafka falls back from librdkafka.so to the centos8 build (glibc only) on x64.
            native = os.path.join(app_dir, "runtimes", "linux-" + {"x86_64": "x64", "aarch64": "arm64"}.get(os.uname().machine, os.uname().machine), "native")
            candidates = [os.path.join(native, n) for n in ("librdkafka.so", "centos8-librdkafka.so") if os.path.isfile(os.path.join(native, n))]
            if check(bool(candidates), f"librdkafka.redist's native library is published in {os.path.relpath(native, app_dir)}",
                     f"no librdkafka in {os.path.relpath(native, app_dir)} of the publish output"):
                loadable = [c for c in candidates if "not found" not in subprocess.run(["ldd", c], capture_output=True, text=True).stdout]
                check(bool(loadable), f"{os.path.basename(loadable[0]) if loadable else '?'} resolves all its libraries here",
                      f"no published librdkafka resolves its libraries: {[os.path.basename(c) for c in candidates]}")
            port = free_port()
            env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "ASPNETCORE_", "Ingest__"))}
            env.update(emulation["env"])
            env.update({k: str(v) for k, v in env_dict(ingest).items()})
            # The collector's name resolves only inside the compose network.
            for k in [k for k in env if k.startswith("OTEL_")]:
                del env[k]
            env["Urls"] = f"http://127.0.0.1:{port}"
            env["Ingest__DataDirectory"] = os.path.join(work, "data")
            log_path = os.path.join(work, "server.log")
            with open(log_path, "w") as log:
                proc = subprocess.Popen(["dotnet", dll], cwd=app_dir, env=env, stdout=log, stderr=subprocess.STDOUT)
            try:
                health_test = " ".join(ingest["healthcheck"]["test"])
                url = re.search(r"https?://[^\s\"']+", health_test).group(0)
                _, _, path = url_host_port(url)
                status = None
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline and proc.poll() is None:
                    status, _ = http_get(f"http://127.0.0.1:{port}{path}")
                    if status == 200:
                        break
                    time.sleep(1)
                check(status == 200, f"published server answers the healthcheck GET {path} with 200",
                      f"healthcheck GET {path} answered {status}; server log:\n{open(log_path).read()[-2000:]}")
                status, body = http_get(f"http://127.0.0.1:{port}/health")
                check(status == 200, f"GET /health: {status} {body.strip()[:120]}", f"GET /health answered {status}: {body[:300]}")
            finally:
                code = stop(proc)
            log_text = open(log_path).read()
            check(code == 0, "server stops cleanly on SIGTERM (exit 0)", f"server exited {code} on SIGTERM")
            check("Overriding HTTP_PORTS" not in log_text, "no HTTP_PORTS/Urls override warning at start-up",
                  "start-up warns that Urls overrides HTTP_PORTS")
        except RuntimeError:
            pass
        finally:
            shutil.rmtree(work, ignore_errors=True)

# ---------------------------------------------------------------- --kafka
if "--kafka" in ARGS:
    section("--kafka: the kafka service's settings on a real broker from $KAFKA_HOME")
    home = os.environ.get("KAFKA_HOME")
    if kafka is None:
        fail("no kafka service")
    elif not home or not os.path.isfile(os.path.join(home, "bin", "kafka-server-start.sh")):
        fail("KAFKA_HOME is not set to a Kafka installation (bin/kafka-server-start.sh)")
    else:
        work = tempfile.mkdtemp(prefix="ingest-kafka-")
        proc = None
        try:
            kenv = {k: str(v) for k, v in env_dict(kafka).items()}
            # Every container port gets a free loopback port; every host name becomes 127.0.0.1.
            # "localhost" means the host in advertised listeners (through the published ports)
            # and the container itself in the healthcheck.
            remap = {}
            def local(host, port, from_host):
                cport = port
                if from_host and host in ("localhost", "127.0.0.1"):
                    cport = next((c for _, h, c, _ in published_ports(kafka) if h == port), port)
                remap.setdefault(cport, free_port())
                return f"127.0.0.1:{remap[cport]}"
            def local_all(text, from_host):
                return re.sub(r"(?<=[/@])(\[[^\]]*\]|[A-Za-z0-9_.-]*):(\d+)",
                              lambda m: local(m.group(1), int(m.group(2)), from_host), text)
            props = {}
            for k, v in kenv.items():
                if not k.startswith("KAFKA_") or k in ("KAFKA_HEAP_OPTS", "KAFKA_OPTS", "KAFKA_JMX_OPTS"):
                    continue
                # The image's mapping: _ -> ., __ -> _, ___ -> -
                key = k[len("KAFKA_"):].lower().replace("___", "-").replace("__", "\0").replace("_", ".").replace("\0", "_")
                props[key] = v
            for key in ("listeners", "controller.quorum.voters"):
                props[key] = local_all(props.get(key, ""), from_host=False)
            props["advertised.listeners"] = local_all(props.get("advertised.listeners", ""), from_host=True)
            props["log.dirs"] = os.path.join(work, "data")
            cfg = os.path.join(work, "server.properties")
            with open(cfg, "w") as f:
                f.writelines(f"{k}={v}\n" for k, v in sorted(props.items()))
            print("        " + "\n        ".join(f"{k}={v}" for k, v in sorted(props.items())))
            bin_dir = os.path.join(home, "bin")
            tool_env = dict(os.environ, KAFKA_HEAP_OPTS="-Xmx256m")
            r = subprocess.run([os.path.join(bin_dir, "kafka-storage.sh"), "format", "-t", kenv["CLUSTER_ID"], "-c", cfg],
                               capture_output=True, text=True, env=tool_env)
            if not check(r.returncode == 0, "kafka-storage.sh formats the log directory with CLUSTER_ID",
                         f"format failed: {(r.stdout + r.stderr)[-600:]}"):
                raise RuntimeError
            log_path = os.path.join(work, "kafka.log")
            with open(log_path, "w") as log:
                proc = subprocess.Popen([os.path.join(bin_dir, "kafka-server-start.sh"), cfg], stdout=log, stderr=subprocess.STDOUT,
                                        env=dict(os.environ, KAFKA_HEAP_OPTS="-Xms256m -Xmx512m"), start_new_session=True)
            test = " ".join(kafka["healthcheck"]["test"][1:])
            m = re.search(r"(kafka-[\w-]+\.sh)([^>|;&]*)", test)
            script = m.group(1)
            tool_args = shlex.split(re.sub(r"(--bootstrap-server\s+)([^\s:]+):(\d+)",
                                           lambda mm: mm.group(1) + local(mm.group(2), int(mm.group(3)), from_host=False), m.group(2)))
            # A KAFKA_HOME without the official launcher (a minimal one) still has the class.
            tool = [os.path.join(bin_dir, script)] if os.path.isfile(os.path.join(bin_dir, script)) else \
                [os.path.join(bin_dir, "kafka-run-class.sh"), "org.apache.kafka.tools.BrokerApiVersionsCommand"]
            # Like compose: each attempt has the healthcheck's timeout; give up after 90 s.
            attempt_timeout = int(re.match(r"\d+", str(kafka["healthcheck"].get("timeout", "30s"))).group(0))
            healthy, deadline = False, time.monotonic() + 90
            while not healthy and time.monotonic() < deadline and proc.poll() is None:
                try:
                    healthy = subprocess.run(tool + tool_args, capture_output=True, env=tool_env,
                                             timeout=attempt_timeout).returncode == 0
                except subprocess.TimeoutExpired:
                    pass
                if not healthy:
                    time.sleep(1)
            check(healthy, f"broker starts and the healthcheck ({script} {' '.join(tool_args)}) passes",
                  f"broker not healthy; log:\n{open(log_path).read()[-2000:]}")
            if healthy:
                topics = os.path.join(bin_dir, "kafka-topics.sh")
                for name, (host, port) in kafka_listeners.items():
                    bootstrap = local(host, port, from_host=True)
                    topic = f"check-{name.lower()}"
                    r = subprocess.run([topics, "--bootstrap-server", bootstrap, "--create", "--topic", topic,
                                        "--partitions", "1", "--replication-factor", "1"], capture_output=True, text=True, env=tool_env)
                    r2 = subprocess.run([topics, "--bootstrap-server", bootstrap, "--describe", "--topic", topic],
                                        capture_output=True, text=True, env=tool_env)
                    check(r.returncode == 0 and r2.returncode == 0 and "Leader: 1" in r2.stdout,
                          f"{name} ({host}:{port} -> {bootstrap}): create and describe a topic with replication factor 1",
                          f"{name} ({bootstrap}): topic create/describe failed: {(r.stderr + r2.stderr)[-600:]}")
        except RuntimeError:
            pass
        finally:
            if proc is not None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                except ProcessLookupError:
                    pass
            shutil.rmtree(work, ignore_errors=True)

print(f"\n{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
