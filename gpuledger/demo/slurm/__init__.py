"""The Slurm cluster `demo`: its tenants' workload streams, the jobs drawn from them, the
scheduler that places them, and the weekly sacct files that record them."""
