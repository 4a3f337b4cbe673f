"""`gpuledger demo`: a demo fleet month, every kind of evidence the ledger ingests, generated
(`generate`), then landed, closed and shown (`run_demo`).

`generate` writes, for one period, what a deployment's extractors would have captured:

- `inventory.csv`, the CMDB export of every GPU (the Slurm cluster, the Kubernetes nodes and
  the vGPU hypervisor);
- one `sacct --parsable2 --noheader` file per ISO week (Open XDMoD's 26 fields) of a Slurm
  cluster of 8 H100 and 4 A100 nodes (8 GPUs each) run by a small scheduler (queue by
  priority then eligibility, best fit, draining for jobs waiting too long), so that
  allocations never exceed a node's GPUs. `dgx-a100-04` enters service on day 8; boreal
  serves on about its 16-GPU reservation and bursts above it; atlas trains in campaigns;
  jobs cross both month ends; `nlp-shared` changes owner mid-month (`NLP_SHARED_HANDOVER`);
  the unmapped accounts `scratch` and `hackathon` hold about 1% of the GPU-hours; every end
  state sacct reports, step rows, an array job, and jobs running or pending at extraction;
- the Kubernetes cluster `demo-k8s` (`kubectl get namespaces -o json` when the pod watch
  started, before the window's first pod, the month's pod watch events, and `kubectl get
  pods,namespaces,resourcequotas,nodes -A -o json` at the extraction): whole H100s, an A100 node in
  MIG mode (all-balanced: 3g + 2g + 1g + 1g per GPU) and an L4 node time-sliced 4 ways;
  serving Deployments pinned to their devices and rolled out every few days, Jobs and
  notebooks placed by a scheduler that never over-commits a device, a Pending pod, and
  namespaces owned by their tenant label, by the policy, or by nobody (`sandbox`);
- the vGPU host sampler's JSONL of `hv-a100-01` (A100D-40C and A100D-20C VMs coming and
  going, one VM known only by its domain id);
- NVML sampler JSONL of two Slurm nodes and two Kubernetes nodes (whole GPUs, and the
  time-sliced L4s, one process per pod holding a replica) for two days, whose processes'
  cgroups name the jobs and pods that ran there;
- Prometheus `/api/v1/query_range` responses: dcgm-exporter activity, framebuffer and power
  of the Kubernetes GPUs and MIG instances (with the pod that held them) for three days,
  and the vLLM counters of the shared `chat-shared` model server for the month;
- the model gateway's request log of `chat-shared`, three tenants' requests of the month.

The sources agree with one another: the NVML processes, dcgm-exporter pods and vLLM
counters are those of the jobs, pods and requests generated here. Every file's modification
time is the extraction instant, but the namespace listing's, which is the watch start
(Kubernetes file mode dates its observations by it: a tenant label owns a namespace from
when it was first observed). Each
source draws from its own `random.Random` seeded by `seed`: the same seed writes the same
bytes, and the Slurm files are those the Slurm-only demo wrote.

The fleet and every instant of the month (the late node, the handover, cirrus's reservation,
the hackathon, the extraction) are in `constants`, written as they fall in 2026-10, the month
policy/demo prices, with the rule that moves them to another period. One module per source
writes its files (`inventory`, `slurm/`, `kubernetes/`, `vgpu`, `nvml`, `prometheus`,
`requests`) from what `common` shares; `files` runs them in order, and `run` lands the files
through the real ingest clients and closes the month.
"""

from gpuledger.demo.constants import K8S_CLUSTER
from gpuledger.demo.files import DemoFiles, generate
from gpuledger.demo.run import run_demo

__all__ = ["K8S_CLUSTER", "DemoFiles", "generate", "run_demo"]
