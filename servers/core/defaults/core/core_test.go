package core

// Tests of the functions that the scheme-level tests in ../defaults_test.go cannot reach on
// their own: the image tag behind imagePullPolicy, and the pod IP defaults.

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

func TestImageTag(t *testing.T) {
	for image, want := range map[string]string{
		"nginx":                          "latest",
		"nginx:latest":                   "latest",
		"nginx:1.27":                     "1.27",
		"library/nginx:1.27":             "1.27",
		"docker.io/library/nginx:latest": "latest",
		"localhost:5000/app":             "latest",
		"localhost:5000/app:v2":          "v2",
		"registry.example.com:8443/team/app:latest":                                            "latest",
		"nginx@sha256:0000000000000000000000000000000000000000000000000000000000000000":        "",
		"nginx:latest@sha256:0000000000000000000000000000000000000000000000000000000000000000": "latest",
		"nginx@sha256:00": "", // bad digest: parse error
		"NGINX:latest":    "", // uppercase repository: parse error
		"0000000000000000000000000000000000000000000000000000000000000000": "", // bare identifier: parse error
		"":                                "",
		" nginx":                          "",
		"Registry.Example.com/app:latest": "latest",
	} {
		if got := imageTag(image); got != want {
			t.Errorf("imageTag(%q) = %q, want %q", image, got, want)
		}
	}
}

func TestContainerImagePullPolicy(t *testing.T) {
	for image, want := range map[string]corev1.PullPolicy{
		"nginx":        corev1.PullAlways,
		"nginx:latest": corev1.PullAlways,
		"nginx:1.27":   corev1.PullIfNotPresent,
		"nginx@sha256:0000000000000000000000000000000000000000000000000000000000000000": corev1.PullIfNotPresent,
		"Bad Image Name": corev1.PullIfNotPresent,
	} {
		c := corev1.Container{Image: image}
		SetDefaults_Container(&c)
		if c.ImagePullPolicy != want {
			t.Errorf("image %q: imagePullPolicy %q, want %q", image, c.ImagePullPolicy, want)
		}
	}
}

func TestPodStatusPodIPs(t *testing.T) {
	for _, tc := range []struct {
		in, want corev1.PodStatus
	}{
		{corev1.PodStatus{PodIPs: []corev1.PodIP{{IP: "1.1.1.1"}, {IP: "::1"}}}, corev1.PodStatus{PodIP: "1.1.1.1", PodIPs: []corev1.PodIP{{IP: "1.1.1.1"}, {IP: "::1"}}}},
		{corev1.PodStatus{PodIP: "2.2.2.2", PodIPs: []corev1.PodIP{{IP: "1.1.1.1"}}}, corev1.PodStatus{PodIP: "2.2.2.2", PodIPs: []corev1.PodIP{{IP: "2.2.2.2"}}}},
		{corev1.PodStatus{}, corev1.PodStatus{}},
	} {
		SetDefaults_PodStatus(&tc.in)
		if diff := cmp.Diff(tc.want, tc.in); diff != "" {
			t.Errorf("unexpected status (-want +got):\n%s", diff)
		}
	}
}

// A volume that names no source is an emptyDir; one that names a source keeps it alone.
func TestVolumeWithoutSourceIsEmptyDir(t *testing.T) {
	v := corev1.Volume{Name: "scratch"}
	SetDefaults_Volume(&v)
	if v.EmptyDir == nil {
		t.Errorf("a volume without a source: %+v, want an emptyDir", v.VolumeSource)
	}
	v = corev1.Volume{Name: "conf", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{}}}
	SetDefaults_Volume(&v)
	if v.EmptyDir != nil {
		t.Errorf("a configMap volume got an emptyDir too: %+v", v.VolumeSource)
	}
}
