package kubelet

import (
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/types"
)

// imageRef is an image reference as a container runtime reports it after pulling: fully
// qualified (docker.io/library/nginx:latest), with the digest it resolved to.
type imageRef struct {
	repo   string // docker.io/library/nginx
	tag    string // latest; empty when pulled by digest
	digest string // sha256:<hex>
}

// resolveImage qualifies image as the docker reference grammar does (a first component
// without '.' or ':' that is not localhost is a Docker Hub path; a single name is in
// library/; no tag means latest) and gives it a digest: its own if it names one, else one
// derived from the reference, so that the same image always has the same ID.
func resolveImage(image string) imageRef {
	var r imageRef
	name := image
	if i := strings.Index(name, "@"); i >= 0 {
		name, r.digest = name[:i], name[i+1:]
	}
	if i := strings.LastIndex(name, ":"); i > strings.LastIndex(name, "/") {
		name, r.tag = name[:i], name[i+1:]
	}
	if r.tag == "" && r.digest == "" {
		r.tag = "latest"
	}
	first, _, hasSlash := strings.Cut(name, "/")
	if !hasSlash || (!strings.ContainsAny(first, ".:") && first != "localhost") {
		if !hasSlash {
			name = "library/" + name
		}
		name = "docker.io/" + name
	}
	r.repo = name
	if r.digest == "" {
		r.digest = "sha256:" + hashHex("image:"+r.repo+":"+r.tag, 64)
	}
	return r
}

// Image is what status.containerStatuses[].image shows.
func (r imageRef) Image() string {
	if r.tag != "" {
		return r.repo + ":" + r.tag
	}
	return r.repo + "@" + r.digest
}

// ID is what status.containerStatuses[].imageID shows: the repo digest.
func (r imageRef) ID() string { return r.repo + "@" + r.digest }

// containerID names the restart'th container of a pod's container, as containerd would:
// 64 hex digits, the same every time it is asked.
func containerID(uid types.UID, container string, restart int32) string {
	return "containerd://" + hashHex(string(uid)+"/"+container+"/"+strconv.Itoa(int(restart)), 64)
}
