"""What a kustomize render must hold beyond Kubernetes' schemas (validate.js checks those):
the command-line contract of each role (docs/DEPLOY.md) and the frontend's passive range equal
to its Service's data ports, which nothing in Kubernetes ties together.

usage: check_rendered.py RENDERED.yaml OUT.json [CONFIG_DIR]
Writes the objects as a JSON array for validate.js, and with CONFIG_DIR each ConfigMap's
gridftpd config (its *.toml keys) as CONFIG_DIR/<key>; prints each broken rule and exits 1 if
any.
"""

import json
import os
import re
import sys

import yaml

FRONTEND_ARGS = ["-c", "/etc/gridftpd/gridftpd.toml", "-p", "2811"]
REMOTE_NODES = ["-r", "gridftpd-movers.$(POD_NAMESPACE).svc.cluster.local:6001"]
MOVER_ARGS = ["-c", "/etc/gridftpd/gridftpd.toml", "-dn", "-p", "6001"]


def find(objects, kind, name):
    found = [o for o in objects
             if o.get("kind") == kind and o.get("metadata", {}).get("name") == name]
    return found[0] if len(found) == 1 else None


def container(workload):
    containers = workload["spec"]["template"]["spec"].get("containers") or [{}]
    return containers[0]


def port_range(workload):
    for variable in container(workload).get("env", []):
        if variable.get("name") == "GLOBUS_TCP_PORT_RANGE":
            m = re.fullmatch(r"(\d+),(\d+)", str(variable.get("value", "")))
            if m and int(m.group(1)) <= int(m.group(2)):
                return set(range(int(m.group(1)), int(m.group(2)) + 1))
    return None


def problems(objects):
    out = []
    frontend = find(objects, "Deployment", "gridftpd-frontend")
    service = find(objects, "Service", "gridftpd-frontend")
    if frontend is None or service is None:
        return ["no Deployment and Service gridftpd-frontend"]
    args = container(frontend).get("args")
    mover = find(objects, "DaemonSet", "gridftpd-mover")
    want = FRONTEND_ARGS + REMOTE_NODES if mover is not None else FRONTEND_ARGS
    if args != want:
        out.append(f"frontend args {args}, the contract is {want}")
    passive = port_range(frontend)
    if passive is None:
        out.append("frontend: no GLOBUS_TCP_PORT_RANGE MIN,MAX")
    else:
        forwarded = {p.get("port") for p in service["spec"].get("ports", [])
                     if p.get("port") != 2811}
        if forwarded != passive:
            out.append(f"frontend passive range {min(passive)}-{max(passive)} is not the Service's "
                       f"data ports {sorted(forwarded)}")
    if mover is not None:
        if container(mover).get("args") != MOVER_ARGS:
            out.append(f"mover args {container(mover).get('args')}, the contract is {MOVER_ARGS}")
        if find(objects, "Service", "gridftpd-movers") is None:
            out.append("movers without their headless Service gridftpd-movers")
        if port_range(mover) is None:
            out.append("mover: no GLOBUS_TCP_PORT_RANGE MIN,MAX")
    return out


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        objects = [o for o in yaml.safe_load_all(f) if o is not None]
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump(objects, f)
    if len(sys.argv) > 3:
        for config_map in (o for o in objects if o.get("kind") == "ConfigMap"):
            for key, text in (config_map.get("data") or {}).items():
                if key.endswith(".toml"):
                    with open(os.path.join(sys.argv[3], key), "w", encoding="utf-8") as f:
                        f.write(text)
    found = problems(objects)
    for problem in found:
        print(f"FAIL {problem}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
