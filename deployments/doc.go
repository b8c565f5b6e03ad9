// Package deployments holds the production units and manifests of the
// service (compose for one host, Kubernetes for a cluster, systemd, the
// Prometheus and Grafana configuration). It has no code: its test parses
// the manifests and checks what operators rely on (pinned images, secrets
// only from secret objects, the operator surface's ports, probes, a
// dashboard that names real series).
package deployments
