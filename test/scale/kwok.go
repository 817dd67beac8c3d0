package scale

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/apichain/apichain/test/anchor"
)

// The kwok the reference runs with: v0.8.0, the release the earlier scale figures were measured with.
const kwokModule, kwokVersion = "sigs.k8s.io/kwok", "v0.8.0"

// kwokStages are the stages kwokctl gives kwok when the user names none (kwokctl's
// runtime.Cluster: the fast node and pod stages, and a node heartbeat with leases), as files of
// kwok's module.
var kwokStages = []string{
	"kustomize/stage/node/fast/node-initialize.yaml",
	"kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
	"kustomize/stage/pod/fast/pod-ready.yaml",
	"kustomize/stage/pod/fast/pod-complete.yaml",
	"kustomize/stage/pod/fast/pod-delete.yaml",
}

// Kwok is a running kwok controller.
type Kwok struct {
	cmd    *exec.Cmd
	log    *anchor.LockedBuffer
	exited chan struct{}
}

// KwokBinary is $KWOK_BIN if set, else kwok v0.8.0 built into dir with `go install` (from the
// module cache when it is there, else through the module proxy).
func KwokBinary(ctx context.Context, dir string) (string, error) {
	if b := os.Getenv("KWOK_BIN"); b != "" {
		return b, nil
	}
	cmd := exec.CommandContext(ctx, "go", "install", kwokModule+"/cmd/kwok@"+kwokVersion)
	cmd.Dir = dir // outside the chain's module: nothing of it is touched
	cmd.Env = append(os.Environ(), "GOBIN="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building kwok %s: %v\n%s", kwokVersion, err, out)
	}
	return filepath.Join(dir, "kwok"), nil
}

// writeKwokConfig writes kwokctl's default stages, read from kwok's module, into one config
// file in dir, and returns its path.
func writeKwokConfig(ctx context.Context, dir string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", kwokModule+"@"+kwokVersion)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("finding kwok %s's module: %v\n%s", kwokVersion, err, out)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		return "", fmt.Errorf("go mod download -json said %q: %v", out, err)
	}
	var docs []string
	for _, f := range kwokStages {
		b, err := os.ReadFile(filepath.Join(mod.Dir, f))
		if err != nil {
			return "", err
		}
		docs = append(docs, string(b))
	}
	path := filepath.Join(dir, "kwok.yaml")
	return path, os.WriteFile(path, []byte(strings.Join(docs, "\n---\n")), 0o600)
}

// writeKubeconfig writes a kubeconfig for cfg (a server, a bearer token, no CA check: the
// reference's test setup) into dir.
func writeKubeconfig(cfg *rest.Config, dir string) (string, error) {
	path := filepath.Join(dir, "kwok.kubeconfig")
	kc := clientcmdapi.NewConfig()
	kc.Clusters["anchor"] = &clientcmdapi.Cluster{Server: cfg.Host, InsecureSkipTLSVerify: cfg.Insecure}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: cfg.BearerToken}
	kc.Contexts["anchor"] = &clientcmdapi.Context{Cluster: "anchor", AuthInfo: "admin"}
	kc.CurrentContext = "anchor"
	return path, clientcmd.WriteToFile(*kc, path)
}

// StartKwok runs kwok against the server cfg reaches as kwokctl runs it: the default stages,
// the nodes annotated kwok.x-k8s.io/node=fake, leases of leaseSeconds.
func StartKwok(ctx context.Context, bin string, cfg *rest.Config, leaseSeconds int, dir string) (*Kwok, error) {
	conf, err := writeKwokConfig(ctx, dir)
	if err != nil {
		return nil, err
	}
	kubeconfig, err := writeKubeconfig(cfg, dir)
	if err != nil {
		return nil, err
	}
	k := &Kwok{log: &anchor.LockedBuffer{}, exited: make(chan struct{})}
	k.cmd = exec.Command(bin,
		"--kubeconfig="+kubeconfig,
		"--config="+conf,
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector="+kwokAnnotation+"=fake",
		"--node-lease-duration-seconds="+strconv.Itoa(leaseSeconds),
	)
	k.cmd.Stdout, k.cmd.Stderr = k.log, k.log
	if err := k.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { _ = k.cmd.Wait(); close(k.exited) }()
	return k, nil
}

// Pid is kwok's process id.
func (k *Kwok) Pid() int { return k.cmd.Process.Pid }

// Log is what kwok wrote so far.
func (k *Kwok) Log() string { return k.log.String() }

// Stop stops kwok with SIGTERM, and kills it if it is still there after 10 s.
func (k *Kwok) Stop() {
	_ = k.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-k.exited:
	case <-time.After(10 * time.Second):
		_ = k.cmd.Process.Kill()
		<-k.exited
	}
}
