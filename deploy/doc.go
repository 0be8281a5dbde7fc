// Package deploy holds the Kubernetes manifests (a kustomize base and its
// overlays) and the CI examples; it has no code.
//
// Its tests render the base and every overlay with the kustomize API, decode
// each object strictly into the Kubernetes API types, and hold the result to
// what the API server and the kubelet would refuse or break on: a volume with
// two sources, a mount of a missing volume, a read-only path a container
// writes to, an emptyDir with no size limit. They also run the repository's
// GitHub Action (action.yml) step by step, as a runner would, against a
// freshly built governanced.
//
// It is not imported by anything: the kustomize and Kubernetes API modules it
// needs stay out of the binary and out of the other packages' tests.
package deploy
