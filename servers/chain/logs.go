package chain

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"

	logsapi "k8s.io/component-base/logs/api/v1"
)

// What the chain command prints is its progress; what the libraries it is built from log
// (k8s.io/apiserver, the aggregator, client-go, ...: about a hundred info lines per start) goes
// to <data-dir>/chain.log, as the metrics server's goes to metrics-server.log. The terminal
// gets the warnings and errors too, and everything from -v=1 up. A clean start prints none.
// Once a stop has been asked for (Ctrl-C, SIGTERM), warnings and errors go to the log only:
// they are then the libraries' complaints about the teardown itself (informers' watches and
// the leader elector's requests canceled mid-flight, and the server's side of those), which
// kube-apiserver logs too and which say nothing about the cluster. A stop that fails is Run's
// error, printed by the command.

// logFileName is the chain's log in the data dir.
const logFileName = "chain.log"

// routeLogs applies the logging flags (-v, --vmodule, --logging-format) with klog writing to
// <data-dir>/chain.log, and to terminal as said above. It returns the log's path and the
// router, to be told when a stop is asked for. klog is process-wide: this is for the chain
// command, once. The file stays open until the process exits: the command's error is logged
// after Run returns (cli.Run).
func routeLogs(o CompletedOptions, terminal io.Writer) (path string, router *bySeverity, err error) {
	if err := os.MkdirAll(o.DataDir, 0o700); err != nil {
		return "", nil, fmt.Errorf("creating data dir: %w", err)
	}
	path = filepath.Join(o.DataDir, logFileName)
	f, err := openLog(path)
	if err != nil {
		return "", nil, fmt.Errorf("opening the chain's log: %w", err)
	}
	router = &bySeverity{file: f, terminal: terminal, verbose: o.Logs.Verbosity > 0}
	if err := logsapi.ValidateAndApplyWithOptions(o.Logs, &logsapi.LoggingOptions{ErrorStream: router, InfoStream: router}, nil); err != nil {
		f.Close()
		return "", nil, err
	}
	return path, router, nil
}

// bySeverity writes each klog entry (one Write, starting with its severity: I, W, E or F) to
// the file, and to the terminal as the comment at the top says. Warnings the libraries log on
// every healthy start are written as info (severity I).
type bySeverity struct {
	file, terminal io.Writer
	verbose        bool // -v=1 or more: info lines to the terminal too
	stopping       atomic.Bool
}

// stopAsked sends warnings and errors to the file only from now on.
func (w *bySeverity) stopAsked() { w.stopping.Store(true) }

// benign are such warnings; kube-apiserver logs them too.
var benign = [][]byte{
	// apiextensions-apiserver and kube-aggregator serve v1 only, but their schemes also know v1beta1.
	[]byte("because it has no resources."),
	// The aggregator's OpenAPI downloader asks an aggregated API server that is not available yet.
	[]byte("no RequestInfo found in the context"),
}

func (w *bySeverity) Write(p []byte) (int, error) {
	if len(p) > 0 && p[0] == 'W' {
		for _, b := range benign {
			if bytes.Contains(p, b) {
				p = append([]byte{'I'}, p[1:]...)
				break
			}
		}
	}
	var toTerminal bool
	switch {
	case len(p) == 0 || p[0] == 'I':
		toTerminal = w.verbose
	case p[0] == 'W' || p[0] == 'E':
		toTerminal = !w.stopping.Load()
	default: // fatal, or a format without the severity first: as a problem, always
		toTerminal = true
	}
	if toTerminal {
		return io.MultiWriter(w.file, w.terminal).Write(p)
	}
	return w.file.Write(p)
}
