"""The Kubernetes cluster `demo-k8s`: its nodes' devices, namespaces and workloads, the pods
bound to the devices, and what kubectl recorded of them."""
