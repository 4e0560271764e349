// Package deploy holds no code: the module exists for its tests, which
// render the Kubernetes manifests under kubernetes/ with kustomize, decode
// every object strictly into the Kubernetes API types, and check what can
// go wrong across files (probe ports and flags, Services and container
// ports, Secrets and the variables the binaries read, config.yaml and
// skillsd's own validation, the image's binaries and the manifests'
// commands). What it deploys, and how: docs/deploy.md.
package deploy
