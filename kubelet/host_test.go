package kubelet

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

func TestNodeNameFor(t *testing.T) {
	for host, want := range map[string]string{
		"vm":                       "vm",
		"My-Laptop.local":          "my-laptop.local",
		"Jane's MacBook Pro":       "jane-s-macbook-pro",
		"-odd-.example..com-":      "odd.example.com",
		"under_score":              "under-score",
		"":                         "localhost",
		"***":                      "localhost",
		"ip-10-0-0-1.ec2.internal": "ip-10-0-0-1.ec2.internal",
	} {
		if got := nodeNameFor(host); got != want {
			t.Errorf("nodeNameFor(%q) = %q, want %q", host, got, want)
		}
	}
}

func TestProcParsing(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// user nice system idle iowait irq softirq steal guest guest_nice
	write("stat", "cpu  1000 50 300 90000 700 10 20 5 400 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n")
	write("meminfo", "MemTotal:       16000 kB\nMemFree:         1000 kB\nMemAvailable:    6000 kB\n")
	h := &hostSystem{proc: dir}
	cpu, err := h.cpuSeconds()
	if err != nil || cpu != 13.85 { // (1000+50+300+10+20+5)/100
		t.Errorf("cpuSeconds = %v, %v; want 13.85", cpu, err)
	}
	ws, err := h.workingSet()
	if err != nil || ws != 10000*1024 {
		t.Errorf("workingSet = %v, %v; want %d", ws, err, 10000*1024)
	}
	if _, err := h.meminfo("Nope"); err == nil {
		t.Error("a missing meminfo field is not an error")
	}
	write("stat", "intr 1 2 3\n")
	if _, err := h.cpuSeconds(); err == nil {
		t.Error("a /proc/stat without a cpu line is not an error")
	}
}

func TestOSImage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "os-release")
	if err := os.WriteFile(path, []byte("NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := osImage(path); got != "Debian GNU/Linux 12 (bookworm)" {
		t.Errorf("osImage = %q", got)
	}
}

func TestResolveImage(t *testing.T) {
	digest := "sha256:" + hashHex("x", 64)
	for _, tc := range []struct{ image, wantImage, wantRepo, wantDigest string }{
		{"nginx", "docker.io/library/nginx:latest", "docker.io/library/nginx", ""},
		{"nginx:1.27", "docker.io/library/nginx:1.27", "docker.io/library/nginx", ""},
		{"bitnami/redis:7", "docker.io/bitnami/redis:7", "docker.io/bitnami/redis", ""},
		{"registry.k8s.io/pause:3.10", "registry.k8s.io/pause:3.10", "registry.k8s.io/pause", ""},
		{"localhost:5000/app", "localhost:5000/app:latest", "localhost:5000/app", ""},
		{"localhost/app:v1", "localhost/app:v1", "localhost/app", ""},
		{"busybox@" + digest, "docker.io/library/busybox@" + digest, "docker.io/library/busybox", digest},
	} {
		r := resolveImage(tc.image)
		id := regexp.MustCompile(`^` + regexp.QuoteMeta(tc.wantRepo) + `@sha256:[0-9a-f]{64}$`)
		if r.Image() != tc.wantImage || !id.MatchString(r.ID()) || (tc.wantDigest != "" && r.ID() != tc.wantRepo+"@"+tc.wantDigest) {
			t.Errorf("resolveImage(%q) = %q, %q; want %q, %s@sha256:…", tc.image, r.Image(), r.ID(), tc.wantImage, tc.wantRepo)
		}
	}
	if resolveImage("nginx").ID() != resolveImage("docker.io/library/nginx:latest").ID() {
		t.Error("the same image has two IDs")
	}
	if resolveImage("nginx:1").ID() == resolveImage("nginx:2").ID() {
		t.Error("two images share an ID")
	}
}

func TestIPPool(t *testing.T) {
	p := newIPPool(netip.MustParsePrefix("10.244.3.0/24"))
	a, _ := p.allocate("a")
	b, _ := p.allocate("b")
	if a.String() != "10.244.3.2" || b.String() != "10.244.3.3" {
		t.Errorf("first addresses %s, %s", a, b)
	}
	if again, _ := p.allocate("a"); again != a {
		t.Errorf("a pod got a second address %s", again)
	}
	if p.claim("c", b) || !p.claim("b", b) || p.claim("c", netip.MustParseAddr("10.244.4.2")) {
		t.Error("claim gave away a held or foreign address")
	}
	p.release("a")
	if c, _ := p.allocate("c"); c != a {
		t.Errorf("released address not reused: %s", c)
	}
	for i := range 251 { // .2 to .254, two of them taken
		if _, err := p.allocate(types.UID(fmt.Sprint(i))); err != nil {
			t.Fatalf("allocation %d: %v", i, err)
		}
	}
	if _, err := p.allocate("full"); err == nil {
		t.Error("allocated beyond .254")
	}
}
