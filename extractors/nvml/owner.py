"""Who owns a GPU process: its cgroup, read from `/proc/<pid>/cgroup` (parsing is pure).

Recognised layouts (cgroup v1 `N:controllers:/path` lines and the v2 `0::/path` line):
- Kubernetes, systemd driver: `/kubepods.slice/kubepods-burstable.slice/
  kubepods-burstable-pod<uid with _>.slice/cri-containerd-<id>.scope` (also `crio-`, `docker-`);
- Kubernetes, cgroupfs driver: `/kubepods/burstable/pod<uid>/<64-hex container id>`;
- Slurm, cgroup v1: `/slurm/uid_<uid>/job_<id>/step_<step>/task_<n>`;
- Slurm, cgroup v2: `/system.slice/slurmstepd.scope/job_<id>/step_<step>/user/task_<n>`.

The Slurm id in a cgroup is the raw job id (SLURM_JOB_ID, sacct's JobIDRaw), also for an
array task. The pod UID is returned with dashes, as the API server spells it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

K8S_POD = "k8s_pod"
SLURM_JOB = "slurm_job"
OTHER = "other"
UNRESOLVED = "unresolved"
OWNER_KINDS = (K8S_POD, SLURM_JOB, OTHER, UNRESOLVED)

_UID = r"[0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12}"
_POD = re.compile(rf"(?:^|[/-])pod({_UID})(?:\.slice)?(?:/|$)")
_CONTAINER = re.compile(r"^(?:(?:cri-containerd|crio|docker)-)?([0-9a-f]{64})(?:\.scope)?$")
_SLURM_JOB = re.compile(r"/job_(\d+)(?:/|$)")
_SLURM_STEP = re.compile(r"/step_([A-Za-z0-9_]+)(?:/|$)")


@dataclass(frozen=True)
class Owner:
    cgroup_path: str | None
    kind: str
    pod_uid: str | None = None
    container_id: str | None = None
    slurm_job_id: str | None = None
    slurm_step_id: str | None = None
    error: str | None = None


def owner_from_cgroup(text: str) -> Owner:
    """The owner a `/proc/<pid>/cgroup` file names; the first Kubernetes or Slurm path wins,
    the v2 line (`0::`) is tried first."""
    unified, legacy = [], []
    for line in text.splitlines():
        parts = line.strip().split(":", 2)
        if len(parts) == 3 and parts[2]:
            (unified if parts[:2] == ["0", ""] else legacy).append(parts[2])
    paths = unified + legacy
    if not paths:
        return Owner(cgroup_path=None, kind=UNRESOLVED, error="no cgroup path in the file")
    for path in paths:
        owner = _owner_of_path(path)
        if owner is not None:
            return owner
    return Owner(cgroup_path=paths[0], kind=OTHER)


def _owner_of_path(path: str) -> Owner | None:
    if "kubepods" in path:
        pod = _POD.search(path)
        if pod is not None:
            leaf = _CONTAINER.match(path.rstrip("/").rsplit("/", 1)[-1])
            return Owner(
                cgroup_path=path,
                kind=K8S_POD,
                pod_uid=pod.group(1).replace("_", "-"),
                container_id=leaf.group(1) if leaf else None,
            )
    if "slurm" in path:
        job = _SLURM_JOB.search(path)
        if job is not None:
            step = _SLURM_STEP.search(path)
            return Owner(
                cgroup_path=path,
                kind=SLURM_JOB,
                slurm_job_id=job.group(1),
                slurm_step_id=step.group(1) if step else None,
            )
    return None


def read_owner(proc_root: Path, pid: int) -> Owner:
    """Resolve a PID's owner from `<proc_root>/<pid>/cgroup`; never raises."""
    try:
        text = (proc_root / str(pid) / "cgroup").read_text(encoding="utf-8", errors="replace")
    except OSError as err:
        return Owner(
            cgroup_path=None,
            kind=UNRESOLVED,
            error=f"cannot read <proc-root>/{pid}/cgroup: {err.strerror} (the process ended, "
            "or it is not in this PID namespace: point --proc-root at the host's /proc)",
        )
    return owner_from_cgroup(text)
