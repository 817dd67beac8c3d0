package chain

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/klog/v2"
)

// What the chain command prints is its progress; what the libraries it is built from log
// (k8s.io/apiserver, the aggregator, client-go, ...: about a hundred info lines per start) goes
// to <data-dir>/chain.log, as the metrics server's goes to metrics-server.log. The terminal
// gets the warnings and errors too, and everything from -v=1 up. A clean start prints none.

// logFileName is the chain's log in the data dir.
const logFileName = "chain.log"

// routeLogs applies the logging flags (-v, --vmodule, --logging-format) with klog writing to
// <data-dir>/chain.log, and to terminal as said above. It returns the log's path and a func
// that flushes it. klog is process-wide: this is for the chain command, once. The file stays
// open until the process exits: the command's error is logged after Run returns (cli.Run).
func routeLogs(o CompletedOptions, terminal io.Writer) (path string, flush func(), err error) {
	if err := os.MkdirAll(o.DataDir, 0o700); err != nil {
		return "", nil, fmt.Errorf("creating data dir: %w", err)
	}
	path = filepath.Join(o.DataDir, logFileName)
	f, err := openLog(path)
	if err != nil {
		return "", nil, fmt.Errorf("opening the chain's log: %w", err)
	}
	info := io.Writer(f)
	if o.Logs.Verbosity > 0 {
		info = io.MultiWriter(f, terminal)
	}
	out := bySeverity{info: info, problems: io.MultiWriter(f, terminal)}
	if err := logsapi.ValidateAndApplyWithOptions(o.Logs, &logsapi.LoggingOptions{ErrorStream: out, InfoStream: out}, nil); err != nil {
		f.Close()
		return "", nil, err
	}
	return path, klog.Flush, nil
}

// bySeverity sends each klog entry (one Write, starting with its severity: I, W, E or F) to
// info or to problems. Warnings the libraries log on every healthy start are written as info
// (severity I), to info.
type bySeverity struct {
	info, problems io.Writer
}

// benign are such warnings; kube-apiserver logs them too.
var benign = [][]byte{
	// apiextensions-apiserver and kube-aggregator serve v1 only, but their schemes also know v1beta1.
	[]byte("because it has no resources."),
	// The aggregator's OpenAPI downloader asks an aggregated API server that is not available yet.
	[]byte("no RequestInfo found in the context"),
}

func (w bySeverity) Write(p []byte) (int, error) {
	if len(p) > 0 && p[0] == 'W' {
		for _, b := range benign {
			if bytes.Contains(p, b) {
				return w.info.Write(append([]byte{'I'}, p[1:]...))
			}
		}
	}
	if len(p) == 0 || p[0] == 'I' {
		return w.info.Write(p)
	}
	return w.problems.Write(p)
}
